/**
 * DCQCN+ parameters. Schema defaults are the paper's values where it gives one and our choices
 * ([ours]) where it does not; docs/algorithms/dcqcn-plus.md lists the source of each.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, oneOf, rateBps, real } from '../params.js';

export const dcqcnPlusParams = z.object({
  // --- NP (receiver NIC) ---
  npCheckIntervalNs: durationNs(
    1_000,
    'NP: δ, time to check one record of the congested-flow list (the NIC CNP-generation interval; paper 1 µs)',
  ),
  cnpMinIntervalNs: durationNs(45_000, 'NP: minimal CNP interval of one flow (paper 45 µs)'),
  evictIdleVisits: int(
    256,
    'NP: remove a record after this many consecutive visits without a mark (ours; 0 = never evict)',
  ),
  // --- RP timers, Eqs. (16)-(17) ---
  tauGateNs: durationNs(
    50_000,
    'RP: the adaptive timers apply when the CNP period τ exceeds this (paper 50 µs)',
  ),
  timerGate: oneOf(
    ['above-gate', 'always'],
    'above-gate',
    'RP: above-gate = Eqs. (16)-(17) only when τ > tauGateNs, DCQCN defaults otherwise (paper text); ' +
      'always = max(default, λ·max{τ, M/R_C}) at every τ (spec P4 alternative)',
  ),
  rateTimerDefaultNs: durationNs(
    55_000,
    'RP: rate-increase timer K when τ ≤ tauGateNs or unknown (ours = DCQCN K)',
  ),
  alphaTimerDefaultNs: durationNs(
    55_000,
    'RP: α-decay timer K_α when τ ≤ tauGateNs or unknown (ours = DCQCN K_α)',
  ),
  lambda: real(2, 0, 1e6, 'RP: λ, rate-timer enlarging ratio (paper 2)'),
  lambdaAlpha: real(1, 0, 1e6, 'RP: λ_α, α-timer enlarging ratio (paper 1)'),
  timerMtuBytes: bytes(
    1_000,
    'RP: M in M/R_C, the maximal MTU (paper prints 1000KB; 1000 B intended, spec P2)',
  ),
  recomputeTimers: oneOf(
    ['rearm', 'cnp'],
    'rearm',
    'RP: recompute K and K_α at every timer re-arm with the current R_C (ours) or only on a CNP',
  ),
  // --- RP rate machine, Eqs. (12)-(15), (18)-(23) ---
  alpha0: real(1, 0, 1, 'RP: initial α (ours = DCQCN reference)'),
  alphaGain: real(1 / 256, 0, 1, 'RP: g, EWMA gain of α (ours = DCQCN reference)'),
  beta: real(0.5, 0, 1, 'RP: coefficient of α in the cut R_C·(1 − β·α) (paper 1/2)'),
  fastRecoveryTimes: int(5, 'RP: F; FR for S < F, AI for F ≤ S ≤ 4F, HI above (paper 5)'),
  aiAlphaSwitch: real(0.1, 0, 1, 'RP: AI uses the large step while α exceeds this (paper 0.1)'),
  aiLargeFraction: real(1 / 5, 0, 1e6, 'RP: large AI step as a fraction of R_C (paper 1/5)'),
  aiLargeCapFraction: real(1 / 50, 0, 1e6, 'RP: cap of the large AI step as a fraction of R_l (paper 1/50)'),
  aiSmallFraction: real(1 / 10, 0, 1e6, 'RP: small AI step as a fraction of R_C (paper 1/10)'),
  aiSmallCapFraction: real(
    1 / 100,
    0,
    1e6,
    'RP: cap of the small AI step as a fraction of R_l (paper 1/100)',
  ),
  hiScale: real(
    1,
    0,
    1e6,
    'RP: multiplies both terms of the HI step min{R_C, (S−4F)/100·R_l} (spec P19; 1 = paper)',
  ),
  minRateFraction: real(1e-4, 0, 1, 'RP: R_min as a fraction of line rate (paper R_l/10000)'),
  minRateBps: rateBps(
    0,
    'RP: absolute rate floor; the larger of this and minRateFraction·R_l applies (spec P22 rminFloor)',
  ),
  pauseCheck: bool(true, 'RP: skip rate recovery while the data priority is PFC-paused (paper §VI-E)'),
});

export type DcqcnPlusParams = z.output<typeof dcqcnPlusParams>;

export const dcqcnPlusProfiles: Record<string, Partial<DcqcnPlusParams>> = {
  // The defaults as docs/algorithms/dcqcn-plus.md "Parameters" lists them.
  paper: {},
  // The more robust alternative reading of the 50 µs gate (P4 in docs/algorithms/dcqcn-plus.md): timers never
  // below DCQCN's.
  'gate-always': { timerGate: 'always' },
};

export const dcqcnPlusAliases: Record<string, string> = {
  delta: 'npCheckIntervalNs',
  tcnp: 'cnpMinIntervalNs',
  eidle: 'evictIdleVisits',
  g: 'alphaGain',
  F: 'fastRecoveryTimes',
  rmin: 'minRateBps',
  M: 'timerMtuBytes',
};
