/**
 * DCTCP's arithmetic (Alizadeh et al. SIGCOMM'10 in the rate form of the HPCC ns-3 simulator;
 * docs/algorithms/dctcp.md "Algorithm").
 */

/** α ← (1 − g)·α + g·F with F = min(1, marked/packets) of the window that just ended. */
export function dctcpAlpha(alpha: number, g: number, markedAcks: number, windowPackets: number): number {
  const f = windowPackets > 0 ? Math.min(1, markedAcks / windowPackets) : 0;
  return (1 - g) * alpha + g * f;
}

/** The cut on an ECN echo outside CWR: R·(1 − α/2), not below the floor. */
export function dctcpCut(rateBps: number, alpha: number, minRateBps: number): number {
  return Math.max(minRateBps, rateBps * (1 - alpha / 2));
}
