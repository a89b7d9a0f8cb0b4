/**
 * Swift's arithmetic as pure functions (Kumar et al. SIGCOMM'20 Algorithm 1 and §3.2-3.3;
 * docs/algorithms/swift.md "Algorithm"). Windows in packets (fractional), times in ns.
 */

export interface FlowScaling {
  fsRangeNs: number;
  fsMinCwnd: number;
  fsMaxCwnd: number;
}

/**
 * Flow-based scaling: fs(w) = clamp(α/√w + β, 0, fs_range) with
 * α = fs_range / (1/√fs_min − 1/√fs_max), β = −α/√fs_max; so fs(fs_min) = fs_range and
 * fs(fs_max) = 0. Small windows (many competing flows) get a larger target.
 */
export function flowScalingNs(cwnd: number, f: FlowScaling): number {
  const a = f.fsRangeNs / (1 / Math.sqrt(f.fsMinCwnd) - 1 / Math.sqrt(f.fsMaxCwnd));
  const b = -a / Math.sqrt(f.fsMaxCwnd);
  const v = a / Math.sqrt(Math.max(cwnd, 1e-12)) + b;
  return Math.min(f.fsRangeNs, Math.max(0, v));
}

/** target = base_target + hops·h + fs(cwnd). */
export function targetDelayNs(
  baseTargetNs: number,
  hops: number,
  hopScalingNs: number,
  cwnd: number,
  f: FlowScaling,
): number {
  return baseTargetNs + hops * hopScalingNs + flowScalingNs(cwnd, f);
}

export interface SwiftStep {
  cwnd: number;
  decreased: boolean;
}

/**
 * One ACK of Algorithm 1 (before clamping to [min_cwnd, max_cwnd]):
 *   delay < target: cwnd += ai/cwnd·acked (cwnd ≥ 1) or ai·acked (cwnd < 1)
 *   else if canDecrease: cwnd ·= max(1 − β·(delay − target)/delay, 1 − max_mdf)
 */
export function swiftOnAck(
  cwnd: number,
  delayNs: number,
  targetNs: number,
  ackedPackets: number,
  ai: number,
  beta: number,
  maxMdf: number,
  canDecrease: boolean,
): SwiftStep {
  if (delayNs < targetNs) {
    return {
      cwnd: cwnd >= 1 ? cwnd + (ai / cwnd) * ackedPackets : cwnd + ai * ackedPackets,
      decreased: false,
    };
  }
  if (!canDecrease) return { cwnd, decreased: false };
  const factor = Math.max(1 - (beta * (delayNs - targetNs)) / delayNs, 1 - maxMdf);
  return { cwnd: cwnd * factor, decreased: factor < 1 };
}

export function clampCwnd(cwnd: number, minCwnd: number, maxCwnd: number): number {
  return Math.min(maxCwnd, Math.max(minCwnd, cwnd));
}

/**
 * Below one packet Swift paces: one packet every rtt/cwnd, i.e. a rate of cwnd·packet/rtt
 * (`packetBytes` = the bytes one packet occupies on the link, as the NIC paces wire bytes).
 */
export function pacingRateBps(cwnd: number, rttNs: number, packetBytes: number): number {
  return (cwnd * packetBytes * 8e9) / rttNs;
}
