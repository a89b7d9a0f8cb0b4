import { describe, expect, it } from 'vitest';
import {
  bench,
  CONTROL_PRIO,
  DATA_PRIO,
  serNs,
  type WireRecord,
} from '../../src/runtime/virtual/nic-bench.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { ROCE_FIXED_BYTES } from '../../src/wire/size.js';

const RATE_BPS = 100e9;
/** One pause quantum = 512 bit times: 5.12 ns at 100 Gbit/s (docs/wire.md §1.8 PFC). */
const QUANTUM_NS = (512 * 1e9) / RATE_BPS;
const DATA_SER_NS = serNs(1000 + ROCE_FIXED_BYTES, RATE_BPS);

function pfc(prio: number, quanta: number): Packet {
  const p = createPacket();
  p.kind = FrameKind.Pfc;
  const q = [0, 0, 0, 0, 0, 0, 0, 0];
  q[prio] = quanta;
  p.pfc = { classEnable: 1 << prio, quanta: q };
  return p;
}

/** Start times of frames A sent of `kind` (send time minus serialisation). */
function starts(wire: WireRecord[], kind: FrameKind, from: 'a' | 'b' = 'a'): number[] {
  return wire
    .filter((w) => w.from === from && w.pkt.kind === kind)
    .map((w) => w.sentNs - serNs(w.pkt.sizeBytes, RATE_BPS));
}

function longFlow() {
  const b = bench({ rateBps: RATE_BPS });
  const [qpn] = b.connect(1);
  b.send(qpn, 1, 2_000_000);
  return b;
}

describe('NIC PFC', () => {
  it('honours a pause for quanta × 512 bit times, then resumes', () => {
    const b = longFlow();
    const t0 = 20_000;
    b.inject('a', t0, pfc(DATA_PRIO, 65535));
    b.sched.run(1e9);
    const pauseNs = 65535 * QUANTUM_NS; // 335 539.2 ns
    const s = starts(b.wire, FrameKind.Data);
    const during = s.filter((t) => t >= t0 && t < t0 + pauseNs);
    expect(during).toEqual([]);
    // The frame being serialised at t0 finishes; the next one starts when the pause expires.
    const after = s.filter((t) => t >= t0);
    expect(after[0]).toBeGreaterThanOrEqual(t0 + pauseNs - 1e-6);
    expect(after[0]).toBeLessThan(t0 + pauseNs + 1);
    const c = b.a.counters();
    expect(c.pfcPauseRx).toBe(1);
    expect(Math.abs(c.pausedNs - pauseNs)).toBeLessThanOrEqual(1);
    expect(b.done.a.length).toBe(1);
  });

  it('lets a new pause replace the remaining time (refresh)', () => {
    const b = longFlow();
    b.inject('a', 20_000, pfc(DATA_PRIO, 10_000)); // 51 200 ns
    b.inject('a', 40_000, pfc(DATA_PRIO, 10_000)); // refreshed: paused until 91 200 ns
    b.sched.run(1e9);
    const s = starts(b.wire, FrameKind.Data).filter((t) => t >= 20_000);
    expect(s[0]).toBeGreaterThanOrEqual(40_000 + 10_000 * QUANTUM_NS - 1e-6);
    expect(s[0]).toBeLessThan(40_000 + 10_000 * QUANTUM_NS + 1);
    const c = b.a.counters();
    expect(c.pfcPauseRx).toBe(2);
    expect(Math.abs(c.pausedNs - (40_000 + 10_000 * QUANTUM_NS - 20_000))).toBeLessThanOrEqual(1);
  });

  it('resumes at once on quanta 0 (XON)', () => {
    const b = longFlow();
    b.inject('a', 20_000, pfc(DATA_PRIO, 65535));
    b.inject('a', 30_000, pfc(DATA_PRIO, 0));
    b.sched.run(1e9);
    const s = starts(b.wire, FrameKind.Data).filter((t) => t >= 20_000);
    expect(s[0]).toBeGreaterThanOrEqual(30_000);
    expect(s[0]).toBeLessThan(30_000 + 1);
    const c = b.a.counters();
    expect(c.pfcPauseRx).toBe(1);
    expect(Math.abs(c.pausedNs - 10_000)).toBeLessThanOrEqual(1);
  });

  it('ignores pauses of other priorities for data', () => {
    const b = longFlow();
    b.inject('a', 20_000, pfc(0, 65535));
    b.sched.run(1e9);
    const s = starts(b.wire, FrameKind.Data);
    // Back to back: no gap longer than one frame time around the pause.
    for (let i = 1; i < s.length; i++) expect(s[i] - s[i - 1]).toBeLessThan(DATA_SER_NS + 1);
  });

  it('keeps sending control frames while the data priority is paused, and holds them when theirs is', () => {
    // B sends to A; A only sends ACKs (control priority).
    const b = bench({ rateBps: RATE_BPS });
    b.connect(1);
    b.b.post({ qpn: 1001, id: 1, bytes: 200_000, verb: 'send' });
    b.inject('a', 5_000, pfc(DATA_PRIO, 65535));
    b.sched.run(1e9);
    const acks = starts(b.wire, FrameKind.Ack);
    expect(acks.filter((t) => t > 6_000 && t < 20_000).length).toBeGreaterThan(100);
    expect(b.done.b.length).toBe(1);

    const c = bench({ rateBps: RATE_BPS });
    c.connect(1);
    c.b.post({ qpn: 1001, id: 1, bytes: 200_000, verb: 'send' });
    const t0 = 5_000;
    const pauseNs = 2000 * QUANTUM_NS; // 10 240 ns
    c.inject('a', t0, pfc(CONTROL_PRIO, 2000));
    c.sched.run(1e9);
    const held = starts(c.wire, FrameKind.Ack);
    expect(held.filter((t) => t >= t0 && t < t0 + pauseNs)).toEqual([]);
    expect(held.filter((t) => t >= t0 + pauseNs).length).toBeGreaterThan(0);
    expect(c.done.b.length).toBe(1);
  });

  it('puts ACKs in the data class when ackPrio = dataPrio (HPCC simulator placement)', () => {
    const b = bench({ rateBps: RATE_BPS, ackPrio: DATA_PRIO });
    b.connect(1);
    b.b.post({ qpn: 1001, id: 1, bytes: 200_000, verb: 'send' });
    const t0 = 5_000;
    const pauseNs = 2000 * QUANTUM_NS;
    b.inject('a', t0, pfc(DATA_PRIO, 2000));
    b.sched.run(1e9);
    const acks = b.wire.filter((w) => w.from === 'a' && w.pkt.kind === FrameKind.Ack);
    expect(acks.every((w) => w.pkt.prio === DATA_PRIO)).toBe(true);
    const s = starts(b.wire, FrameKind.Ack);
    expect(s.filter((t) => t >= t0 && t < t0 + pauseNs)).toEqual([]);
    expect(b.done.b.length).toBe(1);
  });
});
