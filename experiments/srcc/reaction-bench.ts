/**
 * AC5 (docs/algorithms/srcc.md "Reproduction"): the NIC's reaction to CNMs, exercised on one real
 * NIC of the NIC test bench (src/runtime/virtual/nic-bench.ts) with hand-made CNM and CNP frames.
 * The wire drops every frame, so there is no receiver: the QP sends paced at its rate for as long
 * as it has data.
 */
import { resolveCc } from '../../src/cc/registry.js';
import { flowId16 } from '../../src/cc/srcc/flow-id.js';
import { cnmBody } from '../../src/cc/testing/index.js';
import { bench, IP_A, IP_B } from '../../src/runtime/virtual/nic-bench.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';

export const BENCH_LINE_BPS = 100e9;
export const BENCH_BASE_RTT_NS = 16_180;
const SRC_PORT = 0xc123;

/** One NIC with one srcc QP (params under the `paper` profile plus `overrides`) sending 100 MB. */
export function reactionBench(overrides: Record<string, unknown> = {}) {
  const b = bench({
    rateBps: BENCH_LINE_BPS,
    rtoNs: 0,
    cc: resolveCc('srcc', { profile: 'paper', ...overrides }),
    ccB: resolveCc('none'),
    drop: () => true,
  });
  const path = { baseRttNs: BENCH_BASE_RTT_NS, bottleneckRateBps: BENCH_LINE_BPS, hops: 1 };
  const [qpn, remoteQpn] = b.connect(0x100, { srcPort: SRC_PORT, path });
  b.a.post({ qpn, id: 1, bytes: 100_000_000, verb: 'write' });
  /** A frame (CNM or CNP) built by `fill`, delivered to the NIC at `atNs`. */
  const deliver = (atNs: number, fill: (p: Packet) => void) => {
    const p = createPacket();
    fill(p);
    p.sizeBytes = emulatedSizeBytes(p);
    b.inject('a', atNs, p);
  };
  const cnm = (atNs: number, targetBps: number, flowIdDelta: number, destQpn: number) =>
    deliver(atNs, (p) => {
      p.kind = FrameKind.Cnm;
      p.cnm = cnmBody({
        flowId: (flowId16(IP_A, IP_B, SRC_PORT) + flowIdDelta) & 0xffff,
        targetRateKbps: Math.floor(targetBps / 1000),
        flowSrcIp: IP_A,
        flowDstIp: IP_B,
        flowSrcPort: SRC_PORT,
        destQpn,
      });
    });
  return {
    sched: b.sched,
    nic: b.a,
    /** Data frames the NIC sent: start of serialisation and size. */
    get departures() {
      return b.wire
        .filter((w) => w.from === 'a' && w.pkt.kind === FrameKind.Data)
        .map((w) => ({
          startNs: w.sentNs - (w.pkt.sizeBytes * 8e9) / BENCH_LINE_BPS,
          sizeBytes: w.pkt.sizeBytes,
        }));
    },
    rates: b.rates.a,
    /** A CNM for the bench QP at `atNs` (flowIdDelta ≠ 0 makes the flow id wrong). */
    cnm: (atNs: number, targetBps: number, flowIdDelta = 0) => cnm(atNs, targetBps, flowIdDelta, remoteQpn),
    /** A CNM for a QP the NIC does not have. */
    strayCnm: (atNs: number) => cnm(atNs, 10e9, 0, remoteQpn + 1),
    cnp: (atNs: number) =>
      deliver(atNs, (p) => {
        p.kind = FrameKind.Cnp;
        p.opcode = Opcode.Cnp;
        p.becn = true;
        p.destQp = qpn;
        p.srcIp = IP_B;
        p.dstIp = IP_A;
      }),
    inspect: () => b.a.qpInspect(qpn),
  };
}
