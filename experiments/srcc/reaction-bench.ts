/**
 * AC5 (docs/algorithms/srcc.md "Reproduction"): the NIC's reaction to CNMs, exercised on one real NIC on the virtual
 * scheduler with hand-made CNM and CNP frames (no switch, no receiver: the QP sends paced at
 * its rate for as long as it has data).
 */
import { createNic, type RateChange } from '../../nic/api.js';
import { resolveCc } from '../../src/cc/registry.js';
import { flowId16, ROCE_UDP_PORT } from '../../src/cc/srcc/flow-id.js';
import { nullLogger } from '../../src/env/env.js';
import { createRng } from '../../src/env/rng.js';
import { EngineScheduler } from '../../src/runtime/virtual/engine-scheduler.js';
import { CnmFlag } from '../../src/wire/cnm.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';

export const BENCH_LINE_BPS = 100e9;
export const BENCH_BASE_RTT_NS = 16_180;
const NIC_IP = 0x0a000001;
const PEER_IP = 0x0a000002;
const QPN = 0x100;
const REMOTE_QPN = 0x200;
const SRC_PORT = 0xc123;

/** One NIC with one srcc QP (params under the `paper` profile plus `overrides`) sending 100 MB. */
export function reactionBench(overrides: Record<string, unknown> = {}) {
  const sched = new EngineScheduler();
  /** Data frames the NIC sent: start of serialisation, size, PSN. */
  const departures: { startNs: number; sizeBytes: number; psn: number }[] = [];
  const rates: RateChange[] = [];
  const nsPerByte = 8e9 / BENCH_LINE_BPS;
  let nextId = 1;
  const nic = createNic(
    {
      now: () => sched.now(),
      setTimer: (at, fn) => sched.setTimer(at, fn),
      cancelTimer: (id) => sched.cancelTimer(id),
      send: (_port, pkt) => {
        if (pkt.kind === FrameKind.Data)
          departures.push({
            startNs: sched.now() - pkt.sizeBytes * nsPerByte,
            sizeBytes: pkt.sizeBytes,
            psn: pkt.psn,
          });
      },
      rng: createRng(1),
      log: nullLogger,
      nextPacketId: () => nextId++,
    },
    {
      name: 'h1',
      ip: NIC_IP,
      port: { rateBps: BENCH_LINE_BPS, mac: 0x020000000001, peerMac: 0x020000000002 },
      mtuBytes: 1000,
      ackEveryPackets: 1,
      rtoNs: 0,
      dataPrio: 3,
      controlPrio: 0,
      cc: resolveCc('srcc', { profile: 'paper', ...overrides }),
      observer: { onMessageComplete() {}, onRateChange: (c) => rates.push(c) },
    },
  );
  nic.createQp({
    qpn: QPN,
    remoteQpn: REMOTE_QPN,
    remoteIp: PEER_IP,
    srcPort: SRC_PORT,
    path: { baseRttNs: BENCH_BASE_RTT_NS, bottleneckRateBps: BENCH_LINE_BPS, hops: 1 },
  });
  nic.post({ qpn: QPN, id: 1, bytes: 100_000_000, verb: 'write' });

  const deliver = (atNs: number, pkt: Packet) => sched.setTimer(atNs, () => nic.receive(0, pkt));
  const cnmFrame = (targetBps: number, flowIdDelta: number, destQpn: number): Packet => {
    const p = createPacket();
    p.kind = FrameKind.Cnm;
    p.cnm = {
      flags: CnmFlag.FullFlowKey,
      flowId: (flowId16(NIC_IP, PEER_IP, SRC_PORT) + flowIdDelta) & 0xffff,
      targetRateKbps: Math.floor(targetBps / 1000),
      cpId: 1,
      nHops: 1,
      hopsTraversed: 0,
      mActive: 1,
      MActive: 1,
      cpEgressPort: 0,
      qLenBytes: 0,
      qCthRaw: 0,
      flowSrcIp: NIC_IP,
      flowDstIp: PEER_IP,
      flowSrcPort: SRC_PORT,
      flowDstPort: ROCE_UDP_PORT,
      destQpn,
      triggerPsn: 0,
      cpTimestampNs: 0,
    };
    p.sizeBytes = emulatedSizeBytes(p);
    return p;
  };
  return {
    sched,
    nic,
    departures,
    rates,
    /** A CNM for the bench QP at `atNs` (flowIdDelta ≠ 0 makes the flow id wrong). */
    cnm: (atNs: number, targetBps: number, flowIdDelta = 0) =>
      deliver(atNs, cnmFrame(targetBps, flowIdDelta, REMOTE_QPN)),
    /** A CNM for a QP the NIC does not have. */
    strayCnm: (atNs: number) => deliver(atNs, cnmFrame(10e9, 0, REMOTE_QPN + 1)),
    cnp: (atNs: number) => {
      const p = createPacket();
      p.kind = FrameKind.Cnp;
      p.opcode = Opcode.Cnp;
      p.becn = true;
      p.destQp = QPN;
      p.srcIp = PEER_IP;
      p.dstIp = NIC_IP;
      p.sizeBytes = emulatedSizeBytes(p);
      deliver(atNs, p);
    },
    inspect: () => nic.qpInspect(QPN),
  };
}
