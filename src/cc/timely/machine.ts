/**
 * TIMELY's arithmetic as pure functions (Mittal et al. SIGCOMM'15 Algorithm 1).
 * Rates in bit/s, times in ns.
 */

export interface Gradient {
  /** New smoothed RTT difference: (1 − α)·rttDiff + α·(rtt − prevRtt). */
  rttDiffNs: number;
  /** rttDiff / minRTT (dimensionless). */
  gradient: number;
}

export function rttGradient(
  rttDiffNs: number,
  rttNs: number,
  prevRttNs: number,
  alpha: number,
  minRttNs: number,
): Gradient {
  const diff = (1 - alpha) * rttDiffNs + alpha * (rttNs - prevRttNs);
  return { rttDiffNs: diff, gradient: diff / minRttNs };
}

export interface TimelyConfig {
  beta: number;
  tLowNs: number;
  tHighNs: number;
  rateAiBps: number;
  rateHaiBps: number;
  haiThreshold: number;
  haiMode: 'stage' | 'gradient';
  minRateBps: number;
  lineRateBps: number;
}

export interface TimelyStep {
  rateBps: number;
  stage: number;
  /** Which branch ran: low (rtt < T_low), high (rtt > T_high), ai/hai (gradient ≤ 0), md. */
  branch: 'low' | 'high' | 'ai' | 'hai' | 'md';
}

/**
 * One TIMELY update of rate Rc from an RTT sample and its gradient:
 *   rtt < T_low       → increase
 *   rtt > T_high      → Rc·(1 − β·(1 − T_high/rtt)), stage 0
 *   gradient ≤ 0      → increase
 *   else              → Rc·max(0, 1 − β·gradient), stage 0
 * increase: Rc + (HAI if stage ≥ N else δ); `stage` counts increases (haiMode stage) or only
 * gradient ≤ 0 increases (haiMode gradient). Result clamped to [minRate, lineRate].
 */
export function timelyUpdate(
  rcBps: number,
  stage: number,
  rttNs: number,
  gradient: number,
  c: TimelyConfig,
): TimelyStep {
  let rate: number;
  let next: number;
  let branch: TimelyStep['branch'];
  if (rttNs < c.tLowNs || (rttNs <= c.tHighNs && gradient <= 0)) {
    const lowBand = rttNs < c.tLowNs;
    const hai = stage >= c.haiThreshold && !(lowBand && c.haiMode === 'gradient');
    rate = rcBps + (hai ? c.rateHaiBps : c.rateAiBps);
    next = lowBand && c.haiMode === 'gradient' ? stage : stage + 1;
    branch = lowBand ? 'low' : hai ? 'hai' : 'ai';
  } else if (rttNs > c.tHighNs) {
    rate = rcBps * (1 - c.beta * (1 - c.tHighNs / rttNs));
    next = 0;
    branch = 'high';
  } else {
    rate = rcBps * Math.max(0, 1 - c.beta * gradient);
    next = 0;
    branch = 'md';
  }
  rate = Math.min(c.lineRateBps, Math.max(c.minRateBps, rate));
  return { rateBps: rate, stage: next, branch };
}
