/**
 * Swift reaction point (docs/algorithms/swift.md "Mapping to RoCE"): a fabric window in
 * packets (fractional), ACK-clocked by the NIC's window of unacknowledged bytes while ≥ 1
 * packet, paced at cwnd·packet/srtt below one packet. Delay = RTT from the echoed NIC send
 * timestamp; the endpoint window is not modelled (our receiver NIC acknowledges on arrival, so
 * the endpoint delay is 0 — docs/algorithms/swift.md).
 */
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { clampCwnd, type FlowScaling, pacingRateBps, swiftOnAck, targetDelayNs } from './machine.js';
import type { SwiftParams } from './params.js';

/** Name of the ACK extension field carrying the hop count the receiver derived from the TTL. */
export const HOPS_FIELD = 'swiftHops';

export interface SwiftState {
  lineRateBps: number;
  mtuBytes: number;
  pathHops: number;
  fs: FlowScaling;
  minCwnd: number;
  maxCwnd: number;
  /** Fabric congestion window, packets. */
  cwnd: number;
  hops: number;
  srttNs: number;
  lastRttNs: number;
  lastTargetNs: number;
  tLastDecreaseNs: number;
  retransmitCount: number;
  /** Wire bytes of a full data packet (for pacing below one packet). */
  packetBytes: number;
  decreases: number;
}

export function initSwift(flow: FlowInfo, p: SwiftParams): SwiftState {
  const bdpPackets = (flow.lineRateBps * Math.max(1, flow.baseRttNs)) / 8e9 / flow.mtuBytes;
  const maxCwnd = Math.max(
    p.minCwndPackets,
    p.maxCwndPackets > 0 ? p.maxCwndPackets : Math.max(1, bdpPackets),
  );
  const cwnd = clampCwnd(p.initCwndPackets > 0 ? p.initCwndPackets : maxCwnd, p.minCwndPackets, maxCwnd);
  return {
    lineRateBps: flow.lineRateBps,
    mtuBytes: flow.mtuBytes,
    pathHops: flow.hops,
    fs: { fsRangeNs: p.fsRangeNs, fsMinCwnd: p.fsMinCwnd, fsMaxCwnd: p.fsMaxCwnd },
    minCwnd: p.minCwndPackets,
    maxCwnd,
    cwnd,
    hops: flow.hops,
    srttNs: Math.max(1, flow.baseRttNs),
    lastRttNs: Math.max(1, flow.baseRttNs),
    lastTargetNs: 0,
    tLastDecreaseNs: Number.NEGATIVE_INFINITY,
    retransmitCount: 0,
    // Until a full packet has left: payload + the RoCEv2 headers (58 B) + the 8-byte timestamp.
    packetBytes: flow.mtuBytes + 66,
    decreases: 0,
  };
}

/** Window (≥ 1 packet) or pacing rate (< 1 packet) for the current cwnd. */
export function applyCwnd(s: SwiftState, io: RpIo, why: string): void {
  if (s.cwnd >= 1) {
    io.setWindow(s.cwnd * s.mtuBytes, why);
    io.setRate(s.lineRateBps, why);
  } else {
    io.setWindow(s.mtuBytes, why);
    io.setRate(pacingRateBps(s.cwnd, s.srttNs, s.packetBytes), why);
  }
}

export function swiftAck(
  s: SwiftState,
  rttNs: number,
  ackedBytes: number,
  hops: number | null,
  p: SwiftParams,
  io: RpIo,
): void {
  const now = io.now();
  s.retransmitCount = 0;
  s.lastRttNs = rttNs;
  s.srttNs += p.srttGain * (rttNs - s.srttNs);
  if (hops !== null && p.hopSource === 'ttl') s.hops = hops;
  // Fabric delay = RTT − endpoint delay; the endpoint delay is 0 in our NIC.
  const delayNs = rttNs;
  s.lastTargetNs = targetDelayNs(p.baseTargetNs, s.hops, p.hopScalingNs, s.cwnd, s.fs);
  const canDecrease = now - s.tLastDecreaseNs >= rttNs;
  const before = s.cwnd;
  const step = swiftOnAck(
    s.cwnd,
    delayNs,
    s.lastTargetNs,
    ackedBytes / s.mtuBytes,
    p.ai,
    p.beta,
    p.maxMdf,
    canDecrease,
  );
  s.cwnd = clampCwnd(step.cwnd, s.minCwnd, s.maxCwnd);
  if (s.cwnd < before) {
    s.tLastDecreaseNs = now;
    s.decreases++;
  }
  if (s.cwnd !== before || s.cwnd < 1) applyCwnd(s, io, step.decreased ? 'delay:md' : 'delay:ai');
}

/** Loss: fast recovery (NAK, go-back-N) or a retransmission timeout. */
export function swiftLoss(s: SwiftState, kind: 'nack' | 'timeout', p: SwiftParams, io: RpIo): void {
  const now = io.now();
  const canDecrease = now - s.tLastDecreaseNs >= s.lastRttNs;
  const before = s.cwnd;
  if (kind === 'timeout') {
    s.retransmitCount++;
    if (s.retransmitCount >= p.retxResetThreshold) s.cwnd = s.minCwnd;
    else if (canDecrease) s.cwnd *= 1 - p.maxMdf;
  } else {
    s.retransmitCount = 0;
    if (canDecrease) s.cwnd *= 1 - p.maxMdf;
  }
  s.cwnd = clampCwnd(s.cwnd, s.minCwnd, s.maxCwnd);
  if (s.cwnd < before) {
    s.tLastDecreaseNs = now;
    s.decreases++;
    applyCwnd(s, io, kind);
  }
}

export const swiftRp: RpAlgorithm<SwiftParams, SwiftState> = {
  features: { int: null, txTimestamp: true },
  init(flow, p, io) {
    const s = initSwift(flow, p);
    applyCwnd(s, io, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'tx':
        if (ev.bytes === s.mtuBytes) s.packetBytes = ev.pkt.sizeBytes;
        break;
      case 'ack':
        if (ev.rttNs !== null) {
          const h = ev.pkt.ext?.fields?.[HOPS_FIELD];
          swiftAck(s, ev.rttNs, ev.ackedBytes, h === undefined ? null : h, p, io);
        }
        break;
      case 'nack':
        swiftLoss(s, 'nack', p, io);
        break;
      case 'timeout':
        swiftLoss(s, 'timeout', p, io);
        break;
      default:
        break;
    }
  },
  inspect(s) {
    return {
      cwndPackets: s.cwnd,
      targetNs: s.lastTargetNs,
      srttNs: s.srttNs,
      hops: s.hops,
      decreases: s.decreases,
    };
  },
};
