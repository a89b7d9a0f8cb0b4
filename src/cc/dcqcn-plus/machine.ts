/**
 * DCQCN+ arithmetic as small pure functions (rates in bit/s, times in ns), unit-tested against
 * hand-computed values. Equation numbers are the DCQCN+ paper's
 * (Gao et al., 2018, §IV-B-3, Eqs. 12-23).
 */

export type Phase = 'fr' | 'ai' | 'hi';

export interface TimerParams {
  tauGateNs: number;
  timerGate: 'above-gate' | 'always';
  rateTimerDefaultNs: number;
  alphaTimerDefaultNs: number;
  lambda: number;
  lambdaAlpha: number;
  timerMtuBytes: number;
}

export interface Timers {
  /** K, the rate-increase timer period. */
  rateTimerNs: number;
  /** K_α, the α-decay timer period. */
  alphaTimerNs: number;
}

/**
 * Eqs. (16)-(17): K = λ·max{τ, M/R_C}, K_α = λ_α·max{τ, M/R_C} when τ exceeds the 50 µs gate; the DCQCN
 * defaults otherwise (the paper is silent there, P4 in docs/algorithms/dcqcn-plus.md). `tauNs` 0 = no period
 * known. With `timerGate: always` the formula applies at every τ but never goes below the defaults. Results
 * are whole ns (timers fire on integer ns).
 */
export function computeTimers(tauNs: number, rcBps: number, p: TimerParams): Timers {
  const adaptive = p.timerGate === 'always' || tauNs > p.tauGateNs;
  if (!adaptive) return { rateTimerNs: p.rateTimerDefaultNs, alphaTimerNs: p.alphaTimerDefaultNs };
  const packetNs = (p.timerMtuBytes * 8 * 1e9) / rcBps;
  const baseNs = Math.max(tauNs, packetNs);
  let rateTimerNs = Math.round(p.lambda * baseNs);
  let alphaTimerNs = Math.round(p.lambdaAlpha * baseNs);
  if (p.timerGate === 'always') {
    rateTimerNs = Math.max(rateTimerNs, p.rateTimerDefaultNs);
    alphaTimerNs = Math.max(alphaTimerNs, p.alphaTimerDefaultNs);
  }
  // A zero period would re-fire at the same instant forever.
  return { rateTimerNs: Math.max(1, rateTimerNs), alphaTimerNs: Math.max(1, alphaTimerNs) };
}

export interface CutResult {
  rcBps: number;
  rtBps: number;
  alpha: number;
}

/**
 * Eqs. (12)-(15) in the paper's order: R_T = R_C, the cut with the α *before* its update, then
 * α's update, then the R_min floor.
 */
export function cutOnCnp(
  rcBps: number,
  alpha: number,
  beta: number,
  g: number,
  minRateBps: number,
): CutResult {
  const rtBps = rcBps;
  const cut = rcBps * (1 - beta * alpha);
  return { rtBps, rcBps: Math.max(cut, minRateBps), alpha: (1 - g) * alpha + g };
}

/** Eq. (23) applied `periods` times. */
export function alphaDecay(alpha: number, g: number, periods: number): number {
  return periods <= 0 ? alpha : alpha * (1 - g) ** periods;
}

export interface IncreaseParams {
  fastRecoveryTimes: number;
  aiAlphaSwitch: number;
  aiLargeFraction: number;
  aiLargeCapFraction: number;
  aiSmallFraction: number;
  aiSmallCapFraction: number;
  hiScale: number;
}

/**
 * Phase of the increase at state counter `s` (after its increment): FR < F ≤ AI ≤ 4F < HI (P7 in
 * docs/algorithms/dcqcn-plus.md).
 */
export function phaseOf(s: number, f: number): Phase {
  if (s < f) return 'fr';
  return s <= 4 * f ? 'ai' : 'hi';
}

/** The R_T step of Eq. (19) (AI) or Eq. (21) (HI); 0 in FR. */
export function increaseStepBps(
  s: number,
  rcBps: number,
  alpha: number,
  lineRateBps: number,
  p: IncreaseParams,
): number {
  const f = p.fastRecoveryTimes;
  switch (phaseOf(s, f)) {
    case 'fr':
      return 0;
    case 'ai':
      return alpha > p.aiAlphaSwitch
        ? Math.min(rcBps * p.aiLargeFraction, lineRateBps * p.aiLargeCapFraction)
        : Math.min(rcBps * p.aiSmallFraction, lineRateBps * p.aiSmallCapFraction);
    case 'hi':
      return p.hiScale * Math.min(rcBps, ((s - 4 * f) / 100) * lineRateBps);
  }
}

export interface IncreaseResult {
  rcBps: number;
  rtBps: number;
  phase: Phase;
}

/**
 * One rate-timer expiry that is not PFC-paused (DCQCN+ §IV-B-3), `s` = S after its increment: FR (18),
 * AI (19)-(20) or HI (21)-(22), then both rates clamped to line rate (P11 in
 * docs/algorithms/dcqcn-plus.md: the paper never clamps; R_C is averaged with the unclamped R_T, as
 * in its "Reaction point").
 */
export function increaseOnTimer(
  s: number,
  rcBps: number,
  rtBps: number,
  alpha: number,
  lineRateBps: number,
  p: IncreaseParams,
): IncreaseResult {
  const rt = rtBps + increaseStepBps(s, rcBps, alpha, lineRateBps, p);
  const rc = (rt + rcBps) / 2;
  return {
    rtBps: Math.min(rt, lineRateBps),
    rcBps: Math.min(rc, lineRateBps),
    phase: phaseOf(s, p.fastRecoveryTimes),
  };
}
