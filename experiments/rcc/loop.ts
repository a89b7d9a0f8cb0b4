/**
 * RCC's linearised loop (paper §IV, eqs. 16-18) for the eq. (18) check: the open-loop transfer
 * function as printed, K·(1 + z/s) / (s²·(s + 1/R0)), and as derived from eq. (17),
 * K·(1 + s/z) / (s²·(s + 1/R0)), with K = Kp/R0² and z = Kp/((Kd + Kp/2)·R0); the gain crossover
 * and the phase margin found numerically.
 */

export type Eq18Form = 'printed' | 'derived';

interface Complex {
  re: number;
  im: number;
}

function mul(a: Complex, b: Complex): Complex {
  return { re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re };
}

function div(a: Complex, b: Complex): Complex {
  const d = b.re * b.re + b.im * b.im;
  return { re: (a.re * b.re + a.im * b.im) / d, im: (a.im * b.re - a.re * b.im) / d };
}

/** G(jω) of eq. (18). */
export function openLoop(kpPerS: number, kdPerS: number, r0S: number, form: Eq18Form, wRadPerS: number) {
  const k = kpPerS / (r0S * r0S);
  const z = kpPerS / ((kdPerS + kpPerS / 2) * r0S);
  const s: Complex = { re: 0, im: wRadPerS };
  const num: Complex = form === 'derived' ? { re: 1, im: wRadPerS / z } : { re: 1, im: -z / wRadPerS };
  const den = mul(mul(s, s), { re: 1 / r0S, im: wRadPerS });
  const g = div(num, den);
  return { re: k * g.re, im: k * g.im };
}

/**
 * The first gain crossover (|G| falls through 1) on a log sweep of ω from 1 to 10⁹ rad/s, and
 * the phase margin there in degrees (negative: unstable in closed loop).
 */
export function phaseMargin(kpPerS: number, kdPerS: number, r0S: number, form: Eq18Form) {
  let prev = Number.POSITIVE_INFINITY;
  for (let e = 0; e <= 9 * 2000; e++) {
    const w = 10 ** (e / 2000);
    const g = openLoop(kpPerS, kdPerS, r0S, form, w);
    const mag = Math.hypot(g.re, g.im);
    if (prev >= 1 && mag < 1) {
      const phaseDeg = (Math.atan2(g.im, g.re) * 180) / Math.PI;
      return { crossoverRadPerS: w, marginDeg: phaseDeg < 0 ? 180 + phaseDeg : phaseDeg - 180 };
    }
    prev = mag;
  }
  return { crossoverRadPerS: Number.NaN, marginDeg: Number.NaN };
}
