/**
 * Dolce-RC+'s arms and reward (paper Definitions 3-4, Eq. 5) as pure functions.
 */

/** Definition 3: r_i = C / 2^(K−1−i), ascending. */
export function armRatesBps(arms: number, capacityBps: number): number[] {
  return Array.from({ length: arms }, (_, i) => capacityBps / 2 ** (arms - 1 - i));
}

/**
 * ideal_MCT [ours]: the unloaded time at line rate, bytes·8/C plus the path's base RTT. It does
 * not depend on the arm, so slow arms are penalised (docs/algorithms/dolce-rc.md "Choices", item 16).
 */
export function idealMctNs(msgBytes: number, capacityBps: number, baseRttNs: number): number {
  return (msgBytes * 8e9) / capacityBps + baseRttNs;
}

/**
 * Eq. (5): X = (ideal/actual) · (1 − ECN ratio)^i with the 0-based arm index i, the MCT factor
 * capped at 1 (a message can beat our ideal by a few ns) and X clamped to [0, 1].
 */
export function messageReward(
  idealNs: number,
  actualNs: number,
  ceCount: number,
  pktCount: number,
  arm: number,
): number {
  const speed = actualNs > 0 ? Math.min(1, idealNs / actualNs) : 1;
  const ecnRatio = pktCount > 0 ? Math.min(1, Math.max(0, ceCount / pktCount)) : 0;
  const x = speed * (1 - ecnRatio) ** arm;
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
