/**
 * RCCC bound into the `uet` transport (nic/rccc/credits.ts), on the NIC bench: two NICs back to
 * back at 100 Gbit/s, 1 µs each way, 4086-byte payloads (4154-byte frames with the pull target).
 * Against the UET brief (../shared/papers/uet.md "RCCC") and the reference simulator's UecSrc /
 * UecSink / UecPullPacer: a speculative start, credit paced at 99 % of the line rate, pull
 * targets on every data frame, pulls through the ACK queue, credit for a trimmed packet's resend,
 * and a timed-out packet that may leave without credit once per network RTT.
 */
import { describe, expect, it } from 'vitest';
import { RCCC_DEFAULTS, type RcccNicConfig } from '../../nic/rccc/settings.js';
import { bench } from '../../src/runtime/virtual/nic-bench.js';
import { FrameKind } from '../../src/wire/packet.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';

const MTU = 4086;
const FRAME = 4154;
const NET_RTT_NS = 14_000;
const MAXWND = (1.5 * NET_RTT_NS * 100e9) / 8e9; // 262 500 B
const RCCC: RcccNicConfig = {
  ...RCCC_DEFAULTS,
  enabled: true,
  networkRttNs: NET_RTT_NS,
  oversubscriptionRatio: null,
};
const SR = { windowPackets: 1024, ackBytes: 4 * MTU, reorderThresholdPackets: null };

function rcccBench(
  drop?: Parameters<typeof bench>[0] extends infer O ? (O extends { drop?: infer D } ? D : never) : never,
) {
  const b = bench({
    mtuBytes: MTU,
    transport: 'uet',
    sr: SR,
    rtoNs: 100_000,
    rcccB: RCCC,
    ...(drop ? { drop } : {}),
  });
  const [qpn] = b.connect(1, { receiverCredits: { networkRttNs: NET_RTT_NS } });
  return { b, qpn };
}

describe('RCCC over the uet transport', () => {
  it('starts on speculative credit, then sends at the pull rate: 99 % of the line rate', () => {
    const { b, qpn } = rcccBench();
    b.send(qpn, 0, 490 * MTU);
    b.sched.run(1e9);
    expect(b.done.b).toHaveLength(1);
    const data = b.wire.filter((w) => w.from === 'a' && w.pkt.kind === FrameKind.Data);
    expect(data).toHaveLength(490);
    // Every data frame asks for credit: its pull target rides along (4 bytes of its size).
    for (const w of data) {
      expect(w.pkt.ext?.pullTarget).not.toBeNull();
      expect(w.pkt.sizeBytes).toBe(FRAME);
    }
    // Speculation: back to back at the line rate until the first ACK comes back (the first frame's
    // last bit leaves at 0.33 µs; its ACK, after 4 packets, needs ~1 µs there and 1 µs back).
    const early = data.filter((w) => w.sentNs < 2_500);
    expect(early.length).toBeGreaterThanOrEqual(7);
    // Steady state: one full pull (63 quanta = 16 128 B) per 1.303 µs, i.e. 99 Gbit/s of credit.
    const mid = data.slice(100, 400);
    const bps = ((mid.length - 1) * FRAME * 8e9) / (mid.at(-1)!.sentNs - mid[0].sentNs);
    expect(bps / 100e9).toBeGreaterThan(0.985);
    expect(bps / 100e9).toBeLessThan(0.995);
    const pulls = b.wire.filter((w) => w.from === 'b' && w.pkt.kind === FrameKind.Pull);
    expect(pulls.length).toBeGreaterThan(100);
    expect(emulatedSizeBytes(pulls[0].pkt)).toBe(78);
    // Cumulative credit: non-decreasing, and all the sender spent beyond its speculation was pulled.
    const quanta = pulls.map((w) => w.pkt.ext!.pull!.quanta);
    expect(quanta.every((q, i) => i === 0 || q >= quanta[i - 1])).toBe(true);
    expect(b.b.counters().pullTx).toBe(pulls.length);
    expect(b.a.counters().pullRx).toBe(pulls.length);
    // Sent ≈ speculative credit used + credit pulled (within one pull and one packet).
    const pulledBytes = quanta.at(-1)! * 256;
    expect(490 * FRAME).toBeLessThanOrEqual(pulledBytes + MAXWND + FRAME);
  });

  it('lets a timed-out packet leave without credit to ask for more, once per network RTT', () => {
    // Data packets 6.. are lost the first time; pulls are lost until 105 µs: the sender's
    // speculation ends at the first ACK, its lost packets time out at ~100 µs with no credit.
    const seen = new Set<number>();
    const { b, qpn } = rcccBench((pkt, from, now) => {
      if (pkt.kind === FrameKind.Pull) return now < 105_000;
      if (from !== 'a' || pkt.kind !== FrameKind.Data || pkt.psn < 6 || seen.has(pkt.psn)) return false;
      seen.add(pkt.psn);
      return true;
    });
    b.send(qpn, 0, 40 * MTU);
    b.sched.run(1e9);
    const data = b.wire.filter((w) => w.from === 'a' && w.pkt.kind === FrameKind.Data);
    const first = data.filter((w) => w.sentNs < 50_000);
    expect(first.length).toBeGreaterThan(6);
    expect(first.length).toBeLessThan(MAXWND / FRAME + 1);
    // At the RTO exactly one packet leaves on no credit (the reference's request-to-send) and
    // carries the pull target; the pulls it brings back carry the rest.
    const atRto = data.filter((w) => w.sentNs >= 50_000 && w.sentNs < 106_000);
    expect(atRto).toHaveLength(1);
    expect(atRto[0].pkt.ext?.pullTarget).not.toBeNull();
    expect(b.done.b).toHaveLength(1);
    expect(b.a.counters().timeouts).toBeGreaterThanOrEqual(1);
  });

  it('credits the resend of a trimmed packet', () => {
    let trimmed = 0;
    const b = bench({
      mtuBytes: MTU,
      transport: 'uet',
      sr: SR,
      rtoNs: 100_000,
      rcccB: RCCC,
      mutate: (pkt, from) => {
        // Trim data packets 150..152 at a last-hop switch, once.
        if (from === 'a' && pkt.kind === FrameKind.Data && pkt.psn >= 150 && pkt.psn <= 152 && trimmed < 3) {
          trimmed++;
          pkt.trimHop = 1;
          pkt.trimLastHop = true;
          pkt.payload = null;
        }
      },
    });
    const [qpn] = b.connect(1, { receiverCredits: { networkRttNs: NET_RTT_NS } });
    b.send(qpn, 0, 300 * MTU);
    b.sched.run(1e9);
    expect(trimmed).toBe(3);
    expect(b.done.b).toHaveLength(1);
    const a = b.a.counters();
    expect(a.retransmits).toBe(3);
    // Resent on credit, well before any RTO (the flow takes ~100 µs at 99 Gbit/s).
    expect(a.timeouts).toBe(0);
    expect(b.done.a[0].completeNs).toBeLessThan(120_000);
  });
});
