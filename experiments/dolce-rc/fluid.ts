/**
 * Theorem 2's fluid model (paper Appendix B and Eq. (20); docs/algorithms/dolce-rc.md, finding F1): the
 * steady-state α of a connection for a given β, in packet units. Used by finding F1 to show
 * that the printed Eq. (3) contradicts its own derivation (Eq. 17-20).
 */

/**
 * A.2's parameters: CNP timer τ 50 µs, rate-increase timer T 55 µs (both in s), byte counter B
 * 10 MB = 10⁴ packets of 1000 B, F 5, R_AI 40 Mbit/s in packets/s.
 */
export const A2_PARAMS = {
  tauS: 50e-6,
  timerS: 55e-6,
  byteCounterPkts: 1e4,
  fastRecoveryTimes: 5,
  rateAiPps: 40e6 / 8000,
};

export type FluidParams = typeof A2_PARAMS;

/** a … e of Eq. (15)-(18) at marking probability p and R_C* (packets/s). */
export function coeffs(p: number, rcPps: number, f: FluidParams) {
  const q = 1 - p;
  const tRc = f.timerS * rcPps;
  const B = f.byteCounterPkts;
  const F = f.fastRecoveryTimes;
  return {
    a: 1 - q ** (f.tauS * rcPps),
    b: p / (q ** -B - 1),
    c: (q ** (F * B) * p) / (q ** -B - 1),
    d: p / (q ** -tRc - 1),
    e: (q ** (F * tRc) * p) / (q ** -tRc - 1),
  };
}

/** Eq. (20), the derivation's result: α = τR_C*(b+d)·[β − 1 + (τR_AI/a)(c+e)] / a. */
export function alphaEq20(beta: number, p: number, rcPps: number, f: FluidParams): number {
  const { a, b, c, d, e } = coeffs(p, rcPps, f);
  return (f.tauS * rcPps * (b + d) * (beta - 1 + ((f.tauS * f.rateAiPps) / a) * (c + e))) / a;
}

/** Eq. (3) as printed: [β − 1 + (τR_AI/a)(c+e)] / (τR_C*(b+d)). */
export function alphaEq3Printed(beta: number, p: number, rcPps: number, f: FluidParams): number {
  const { a, b, c, d, e } = coeffs(p, rcPps, f);
  return (beta - 1 + ((f.tauS * f.rateAiPps) / a) * (c + e)) / (f.tauS * rcPps * (b + d));
}

/**
 * DCQCN's own fixed point (β = 1 and its α ODE's equilibrium α = a): the marking probability p*
 * solving alphaEq20(1, p) = a(p), by bisection on a log scale.
 */
export function dcqcnFixedPointP(rcPps: number, f: FluidParams): number {
  const g = (p: number) => alphaEq20(1, p, rcPps, f) - coeffs(p, rcPps, f).a;
  let lo = 1e-9;
  let hi = 0.5;
  for (let i = 0; i < 200; i++) {
    const mid = Math.sqrt(lo * hi);
    if (g(lo) * g(mid) <= 0) hi = mid;
    else lo = mid;
  }
  return Math.sqrt(lo * hi);
}
