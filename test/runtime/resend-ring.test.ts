/** ResendRing: an output link's unacknowledged datagrams in one byte ring (overlay retransmission). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResendRing } from '../../src/runtime/real/resend-ring.js';

/** A datagram of `n` bytes whose content names its sequence. */
function datagram(seq: number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (seq * 31 + i) & 0xff;
  return b;
}

describe('ResendRing', () => {
  it('keeps every datagram until acknowledged, then only the last `slots`', () => {
    const r = new ResendRing(8, 1024);
    for (let s = 0; s < 6; s++) r.record(s, datagram(s, 100 + s), 100 + s, 0);
    for (let s = 0; s < 6; s++) expect(r.view(s)).toEqual(datagram(s, 100 + s));
    r.releaseBefore(3, 0);
    expect(r.view(2)).toBeNull();
    expect(r.view(3)).toEqual(datagram(3, 103));
    expect(r.size).toBe(3);
    for (let s = 6; s < 20; s++) r.record(s, datagram(s, 50), 50, 0);
    // The last 8 (12..19) are kept, older ones were dropped to make their slots free.
    expect(r.size).toBe(8);
    expect(r.view(11)).toBeNull();
    for (let s = 12; s < 20; s++) expect(r.view(s)).toEqual(datagram(s, 50));
  });

  it('copies only the first n bytes of a larger scratch buffer', () => {
    const r = new ResendRing(4, 256);
    const scratch = Buffer.alloc(200, 7);
    r.record(0, scratch, 40, 0);
    expect(r.view(0)).toEqual(Buffer.alloc(40, 7));
  });

  it('grows instead of overwriting a datagram that is not acknowledged', () => {
    const r = new ResendRing(64, 1024);
    for (let s = 0; s < 40; s++) r.record(s, datagram(s, 300), 300, 0);
    expect(r.capacityBytes).toBeGreaterThanOrEqual(40 * 300);
    for (let s = 0; s < 40; s++) expect(r.view(s)).toEqual(datagram(s, 300));
  });

  it('reuses released bytes in steady state (no growth once acks keep up)', () => {
    const r = new ResendRing(1024, 4096);
    let acked = 0;
    for (let s = 0; s < 2000; s++) {
      r.record(s, datagram(s, 500), 500, s);
      r.sent(s, s);
      if (s - acked >= 4) {
        r.releaseBefore(s - 2, s + 1);
        acked = s - 2;
      }
      expect(r.view(s)?.equals(datagram(s, 500))).toBe(true);
    }
    expect(r.capacityBytes).toBeLessThanOrEqual(8192);
  });

  it('does not write over the bytes of a released datagram whose send is still pending', () => {
    const r = new ResendRing(16, 1024);
    r.record(0, datagram(0, 400), 400, 0);
    r.sent(0, 0);
    const pendingView = r.view(0)!;
    r.record(1, datagram(1, 400), 400, 0);
    // Acknowledged while its send (ticket 0) has not completed (0 sends done).
    r.releaseBefore(1, 0);
    r.record(2, datagram(2, 400), 400, 0);
    r.record(3, datagram(3, 400), 400, 0);
    expect(pendingView).toEqual(datagram(0, 400));
    // Once that send completed, its bytes may be used again.
    r.releaseBefore(4, 1);
    for (let s = 4; s < 10; s++) r.record(s, datagram(s, 400), 400, 1);
    for (let s = 4; s < 10; s++) expect(r.view(s)).toEqual(datagram(s, 400));
  });

  it('holds every unacknowledged datagram intact under random sizes, acks and pending sends', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ bytes: fc.integer({ min: 8, max: 3000 }), ack: fc.nat(6), complete: fc.nat(3) }),
          { minLength: 1, maxLength: 300 },
        ),
        (steps) => {
          const slots = 32;
          const r = new ResendRing(slots, 2048);
          const sizes: number[] = [];
          const views: { seq: number; view: Buffer; ticket: number }[] = [];
          let acked = 0;
          let issued = 0;
          let done = 0;
          steps.forEach((st, seq) => {
            r.record(seq, datagram(seq, st.bytes), st.bytes, done);
            sizes.push(st.bytes);
            r.sent(seq, issued);
            views.push({ seq, view: r.view(seq)!, ticket: issued });
            issued++;
            done = Math.min(issued, done + st.complete);
            const ackTo = Math.min(seq + 1, acked + st.ack);
            if (ackTo > acked) {
              r.releaseBefore(ackTo, done);
              acked = ackTo;
            }
            for (let s = Math.max(acked, seq + 1 - slots); s <= seq; s++)
              expect(r.view(s)?.equals(datagram(s, sizes[s]))).toBe(true);
            // A send not yet completed still reads what it was given.
            for (const v of views)
              if (v.ticket >= done) expect(v.view.equals(datagram(v.seq, sizes[v.seq]))).toBe(true);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
