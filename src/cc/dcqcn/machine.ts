/**
 * DCQCN's rate arithmetic as small pure functions (rates in bit/s), shared by both machines and
 * unit-tested against hand-computed trajectories. Equation numbers are the DCQCN+ paper's
 * numbering of the original DCQCN (Gao et al., 2018, §II-B, Eqs. 1-10).
 */

export type IncreasePhase = 'fr' | 'ai' | 'hi';

export interface RateStep {
  rcBps: number;
  rtBps: number;
  phase: IncreasePhase;
}

/** Eq. (2)-(3): Rc·(1 − α/2), not below the floor. */
export function cutRate(rcBps: number, alpha: number, minRateBps: number): number {
  return Math.max(rcBps * (1 - alpha / 2), minRateBps);
}

/** Eq. (4): α after a congestion notification. */
export function alphaOnCnp(alpha: number, g: number): number {
  return (1 - g) * alpha + g;
}

/** Eq. (10) applied `periods` times: α after that many update periods without a CNP. */
export function alphaDecay(alpha: number, g: number, periods: number): number {
  return periods <= 0 ? alpha : alpha * (1 - g) ** periods;
}

/**
 * One increase event of the paper machine (docs/algorithms/dcqcn.md "Paper machine"):
 * `timerCount`/`byteCount` are T and BC after this event's increment. FR while both are below F, HI when both
 * exceed F (step i·R_HAI with i = min(T, BC) − F), AI otherwise; both rates are clamped to line rate.
 */
export function paperIncrease(
  rcBps: number,
  rtBps: number,
  timerCount: number,
  byteCount: number,
  f: number,
  rateAiBps: number,
  rateHaiBps: number,
  lineRateBps: number,
): RateStep {
  let phase: IncreasePhase;
  let rt = rtBps;
  if (Math.max(timerCount, byteCount) < f) {
    phase = 'fr';
  } else if (Math.min(timerCount, byteCount) > f) {
    phase = 'hi';
    rt += (Math.min(timerCount, byteCount) - f) * rateHaiBps;
  } else {
    phase = 'ai';
    rt += rateAiBps;
  }
  rt = Math.min(rt, lineRateBps);
  const rc = Math.min((rt + rcBps) / 2, lineRateBps);
  return { rcBps: rc, rtBps: rt, phase };
}

/**
 * One rate-increase timer event of the HPCC simulator's machine (docs/algorithms/dcqcn.md "HPCC-simulator
 * machine"), `stage` = increases since the last cut before this one: FR below F, one AI at F, HAI above.
 */
export function hpccSimIncrease(
  rcBps: number,
  rtBps: number,
  stage: number,
  f: number,
  rateAiBps: number,
  rateHaiBps: number,
  lineRateBps: number,
): RateStep {
  let phase: IncreasePhase;
  let rt = rtBps;
  if (stage < f) {
    phase = 'fr';
  } else if (stage === f) {
    phase = 'ai';
    rt = Math.min(rt + rateAiBps, lineRateBps);
  } else {
    phase = 'hi';
    rt = Math.min(rt + rateHaiBps, lineRateBps);
  }
  return { rcBps: (rcBps + rt) / 2, rtBps: rt, phase };
}
