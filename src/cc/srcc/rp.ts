/**
 * SRCC reaction point (sender NIC, per QP): DCQCN's RP with SRCC's CNM reaction on top
 * (Sub-RTT Congestion Control, Hu et al., IEEE TII 2024; docs/algorithms/srcc.md). Without CNMs every event goes to DCQCN unchanged, so an SRCC host in an
 * uncongested network behaves exactly like a DCQCN host (AC7).
 *
 * The QP also remembers when each PSN left (a ring of the last RING_SIZE), so a CNM's echoed
 * `triggerPsn` gives the feedback latency on the sender's own clock.
 */

import { PSN_MASK } from '../../wire/bth.js';
import { CnmFlag } from '../../wire/cnm.js';
import type { Packet } from '../../wire/packet.js';
import { type DcqcnState, dcqcnRp, RATE_TIMER } from '../dcqcn/rp.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { flowId16, ROCE_UDP_PORT } from './flow-id.js';
import type { SrccParams } from './params.js';
import { alphaOnlyCnp, cnmStep, restartIncrease } from './reaction.js';

/** Send times kept per QP: a CNM echoes a PSN sent less than one RTT earlier (≤ ~400 frames at 100 Gb/s). */
const RING_SIZE = 512;

export interface SrccQp {
  /** Window after a CNM in which CNPs update α only, ns. */
  holdNs: number;
  minCnmRateBps: number;
  lastCnmRxNs: number;
  cnmRx: number;
  cnmApplied: number;
  cnpHeld: number;
  cnmUnknownFlow: number;
  /** The QP's own 5-tuple, learned from its first data packet. */
  srcIp: number;
  dstIp: number;
  srcPort: number;
  flowId: number;
  keyKnown: boolean;
  /** Allocated at the first transmission (most QPs of a big workload never see a CNM, but all send). */
  sentPsn: Int32Array | null;
  sentAtNs: Float64Array | null;
  latencyFirstNs: number;
  latencyMinNs: number;
  latencyMaxNs: number;
  latencyCount: number;
}

export type SrccState = DcqcnState & { srcc: SrccQp };

function initSrcc(flow: FlowInfo, p: SrccParams): SrccQp {
  const rttNs = p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs;
  return {
    holdNs: p.cnpHoldAfterCnmRtts * rttNs,
    minCnmRateBps: p.cnmMinRateFraction * flow.lineRateBps,
    lastCnmRxNs: Number.NEGATIVE_INFINITY,
    cnmRx: 0,
    cnmApplied: 0,
    cnpHeld: 0,
    cnmUnknownFlow: 0,
    srcIp: 0,
    dstIp: 0,
    srcPort: 0,
    flowId: -1,
    keyKnown: false,
    sentPsn: null,
    sentAtNs: null,
    latencyFirstNs: Number.NaN,
    latencyMinNs: Number.NaN,
    latencyMaxNs: Number.NaN,
    latencyCount: 0,
  };
}

function onTx(q: SrccQp, pkt: Packet, nowNs: number): void {
  if (!q.keyKnown) {
    q.keyKnown = true;
    q.srcIp = pkt.srcIp >>> 0;
    q.dstIp = pkt.dstIp >>> 0;
    q.srcPort = pkt.srcPort;
    q.flowId = flowId16(pkt.srcIp, pkt.dstIp, pkt.srcPort);
    q.sentPsn = new Int32Array(RING_SIZE).fill(-1);
    q.sentAtNs = new Float64Array(RING_SIZE);
  }
  const i = pkt.psn & (RING_SIZE - 1);
  q.sentPsn![i] = pkt.psn & PSN_MASK;
  q.sentAtNs![i] = nowNs;
}

/** Is this CNM about this QP? The NIC matched destination IP and QPN; check the rest of the key. */
function isOurs(q: SrccQp, pkt: Packet): boolean {
  const c = pkt.cnm;
  if (c === null || !q.keyKnown) return false;
  if (c.flowId !== q.flowId) return false;
  if ((c.flags & CnmFlag.FullFlowKey) === 0) return true;
  return (
    c.flowSrcIp >>> 0 === q.srcIp &&
    c.flowDstIp >>> 0 === q.dstIp &&
    c.flowSrcPort === q.srcPort &&
    c.flowDstPort === ROCE_UDP_PORT
  );
}

function onCnm(s: SrccState, p: SrccParams, io: RpIo, pkt: Packet): void {
  const q = s.srcc;
  if (!isOurs(q, pkt)) {
    q.cnmUnknownFlow++;
    io.count('srccCnmUnknownFlow');
    return;
  }
  const c = pkt.cnm!;
  const now = io.now();
  q.cnmRx++;
  io.count('srccCnmRx');
  const i = c.triggerPsn & (RING_SIZE - 1);
  if (q.sentPsn !== null && q.sentPsn[i] === (c.triggerPsn & PSN_MASK)) {
    const lat = now - q.sentAtNs![i];
    if (q.latencyCount === 0) {
      q.latencyFirstNs = lat;
      q.latencyMinNs = lat;
      q.latencyMaxNs = lat;
    } else {
      q.latencyMinNs = Math.min(q.latencyMinNs, lat);
      q.latencyMaxNs = Math.max(q.latencyMaxNs, lat);
    }
    q.latencyCount++;
  }
  q.lastCnmRxNs = now;
  const step = cnmStep(s.rcBps, s.rtBps, c.targetRateKbps * 1000, q.minCnmRateBps, p.rtOnCnm);
  if (step.applied) {
    s.rcBps = step.rcBps;
    s.rtBps = step.rtBps;
    q.cnmApplied++;
    io.count('srccCnmApplied');
    io.setRate(s.rcBps, 'cnm');
  }
  if (p.cnmHold || step.applied) io.setTimer(RATE_TIMER, restartIncrease(s, p, now));
}

/** A congestion signal of the end-to-end CC (CNP, or ECN echo with ack-flag transport). */
function onCongestion(s: SrccState, p: SrccParams, io: RpIo, ev: RpEvent): void {
  const q = s.srcc;
  const now = io.now();
  if (now - q.lastCnmRxNs < q.holdNs) {
    alphaOnlyCnp(s, p, now);
    q.cnpHeld++;
    io.count('srccCnpHeld');
    return;
  }
  dcqcnRp.onEvent(s, ev, p, io);
}

export const srccRp: RpAlgorithm<SrccParams, SrccState> = {
  features: dcqcnRp.features,
  init(flow, params, io) {
    const s = dcqcnRp.init(flow, params, io) as SrccState;
    s.srcc = initSrcc(flow, params);
    return s;
  },
  onEvent(s, ev, p, io) {
    switch (ev.type) {
      case 'cnm':
        onCnm(s, p, io, ev.pkt);
        return;
      case 'cnp':
        onCongestion(s, p, io, ev);
        return;
      case 'ack':
        if (ev.ecnEcho && p.cnpTransport === 'ack-flag') onCongestion(s, p, io, ev);
        else dcqcnRp.onEvent(s, ev, p, io);
        return;
      case 'tx':
        onTx(s.srcc, ev.pkt, io.now());
        dcqcnRp.onEvent(s, ev, p, io);
        return;
      default:
        dcqcnRp.onEvent(s, ev, p, io);
    }
  },
  inspect(s, p, nowNs) {
    const q = s.srcc;
    return {
      ...dcqcnRp.inspect!(s, p, nowNs),
      cnmRx: q.cnmRx,
      cnmApplied: q.cnmApplied,
      cnpHeld: q.cnpHeld,
      cnmUnknownFlow: q.cnmUnknownFlow,
      lastCnmRxNs: q.lastCnmRxNs,
      cnmLatencyFirstNs: q.latencyFirstNs,
      cnmLatencyMinNs: q.latencyMinNs,
      cnmLatencyMaxNs: q.latencyMaxNs,
      cnmLatencyCount: q.latencyCount,
    };
  },
};
