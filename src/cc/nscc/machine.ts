/**
 * NSCC's equations as pure functions (UET 1.0 CMS "NSCC", docs/algorithms/nscc.md; the
 * reference simulator's functions are named on each). Windows and byte counts are payload bytes,
 * delays ns. Increases accumulate as bytes² (`inc`) and reach the window as inc / cwnd
 * (fulfill_adjustment), so a window grows by about fi · MSS per window of ACKs.
 */
import type { NsccParams } from './params.js';

/** The constants of one flow, scaled to its network (initNsccParams). */
export interface NsccConstants {
  /** network_rtt, ns. */
  networkRttNs: number;
  targetNs: number;
  /** a = BDP_net / BDP_ref, b = target_Qdelay / RTT_ref. */
  a: number;
  b: number;
  /** Proportional-increase gain, bytes of inc per acked byte per ns below target. */
  alpha: number;
  /** Fair-increase gain, bytes of inc per acked byte. */
  fi: number;
  /** Window added once per adjustment period, bytes. */
  eta: number;
  /** Fast increase: window bytes per acked byte. */
  fiScale: number;
  qaThresholdNs: number;
  adjustPeriodNs: number;
  adjustBytes: number;
  minWindowBytes: number;
}

/** Bandwidth-delay product, bytes. */
export function bdpBytes(rttNs: number, rateBps: number): number {
  return (rttNs * rateBps) / 8e9;
}

/**
 * initNsccParams: target_Qdelay = 0.75 × network_rtt with trimming (1 × without) unless set;
 * a = BDP_net / BDP_ref; b = target / RTT_ref; α = 4·MSS·a·b / target; fi = 5·MSS·a;
 * η = 0.15·MSS·a; fi_scale = 0.25·a; quick-adapt threshold 4 × target; adjustment every
 * network_rtt or 8 MTU.
 */
export function nsccConstants(
  p: NsccParams,
  lineRateBps: number,
  mssBytes: number,
  pathBaseRttNs: number,
): NsccConstants {
  const networkRttNs = Math.max(1, p.networkRttNs > 0 ? p.networkRttNs : pathBaseRttNs);
  const targetNs = Math.max(
    1,
    p.targetQdelayNs > 0 ? p.targetQdelayNs : p.trimming ? 0.75 * networkRttNs : networkRttNs,
  );
  const a = bdpBytes(networkRttNs, lineRateBps) / bdpBytes(Math.max(1, p.referenceRttNs), p.referenceRateBps);
  const b = targetNs / Math.max(1, p.referenceRttNs);
  return {
    networkRttNs,
    targetNs,
    a,
    b,
    alpha: (p.alphaMss * mssBytes * a * b) / targetNs,
    fi: p.fairIncreaseMss * mssBytes * a,
    eta: p.etaMss * mssBytes * a,
    fiScale: p.fastIncreaseScale * a,
    qaThresholdNs: p.qaThresholdFactor * targetNs,
    adjustPeriodNs: p.adjustPeriodNs > 0 ? p.adjustPeriodNs : networkRttNs,
    adjustBytes: p.adjustBytesMtu * mssBytes,
    minWindowBytes: p.minWindowBytes > 0 ? p.minWindowBytes : mssBytes,
  };
}

/** maxwnd = 1.5 × BDP of the base RTT (initNscc, update_base_rtt). */
export function maxWindowBytes(baseRttNs: number, lineRateBps: number, factor: number): number {
  return factor * bdpBytes(baseRttNs, lineRateBps);
}

/**
 * The four cases of an ACK (updateCwndOnAck_NSCC): no ECN echo and delay ≥ target → fair
 * increase; no echo, below target → proportional increase; echo at or above target →
 * multiplicative decrease; echo below target → no change (the path is to blame: the
 * multipath policy penalises its entropy).
 */
export type NsccQuadrant = 'fair' | 'proportional' | 'decrease' | 'hold';

export function quadrant(ecnEcho: boolean, delayNs: number, targetNs: number): NsccQuadrant {
  if (delayNs >= targetNs) return ecnEcho ? 'decrease' : 'fair';
  return ecnEcho ? 'hold' : 'proportional';
}

/** fair_increase: inc += fi × acked. */
export function fairIncrement(fi: number, ackedBytes: number): number {
  return fi * ackedBytes;
}

/** proportional_increase: inc += α × acked × (target − delay). */
export function proportionalIncrement(
  alpha: number,
  ackedBytes: number,
  targetNs: number,
  delayNs: number,
): number {
  return alpha * ackedBytes * Math.max(0, targetNs - delayNs);
}

/** fulfill_adjustment: cwnd += inc / cwnd. */
export function fulfilledWindow(cwndBytes: number, incBytes2: number): number {
  return cwndBytes + incBytes2 / cwndBytes;
}

/** multiplicative_decrease: the factor max(1 − γ·(avg − target)/avg, floor), for avg > target. */
export function mdFactor(avgDelayNs: number, targetNs: number, gamma: number, floor: number): number {
  return Math.max(1 - (gamma * (avgDelayNs - targetNs)) / avgDelayNs, floor);
}

/**
 * update_delay: the averaged queueing delay after one sample. A sample above target without an
 * ECN mark enters as 0.25 × base_RTT: the queue that delayed it is probably on another path
 * (ECN would have marked it on this one).
 */
export function nextAvgDelay(
  avgNs: number,
  sampleNs: number,
  ecnEcho: boolean,
  targetNs: number,
  baseRttNs: number,
  weight: number,
): number {
  const x = !ecnEcho && sampleNs > targetNs ? 0.25 * baseRttNs : sampleNs;
  return weight * x + (1 - weight) * avgNs;
}

/** quick_adapt's gate: the bytes acknowledged in the last window are below maxwnd / 2^gate. */
export function quickAdaptGate(achievedBytes: number, maxWndBytes: number, gate: number): boolean {
  return achievedBytes < Math.floor(Math.floor(maxWndBytes) / 2 ** gate);
}

/** set_cwnd_bounds. */
export function boundWindow(cwndBytes: number, minBytes: number, maxBytes: number): number {
  return Math.min(Math.max(cwndBytes, minBytes), Math.max(minBytes, maxBytes));
}
