/**
 * Dolce-RC parameters (docs/algorithms/dolce-rc.md "Parameters"). DR-UCB's constants are the paper's (§V-A);
 * the rate machine's are the ns-3 DCQCN code the paper used ([22]); the arm values, Q_MIN and the actual-mode
 * cut spacing are our [ours] choices. Profiles: `s1` (default arm set), `wide` (a wider experimental set),
 * `hardware` (S1 with the prototype's CNP ÷ Tx-slot ECN estimator, §IV-B.1 "actual case").
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, oneOf, rateBps, real } from '../params.js';

export type Arm = readonly [alpha: number, beta: number];

/** S1 [ours]: α doubling with β, bracketing DCQCN's fluid steady-state α (arms: paper Definition 1). */
export const ARMS_S1: readonly Arm[] = [
  [1 / 16, 0.95],
  [1 / 8, 1.0],
  [1 / 4, 1.05],
  [1 / 2, 1.1],
];

/** The "wide" alternative arm set (paper Definition 1), for experiments. */
export const ARMS_WIDE: readonly Arm[] = [
  [1 / 8, 0.875],
  [1 / 4, 1.0],
  [1 / 2, 1.125],
  [1, 1.25],
];

/** `"a:b,a:b"` (from --set or an environment variable) → [[a, b], ...]; anything else unchanged. */
function parseArms(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const pairs = v.split(',').map((p) => p.split(':').map((x) => Number(x.trim())));
  return pairs.every((p) => p.length === 2 && p.every((x) => Number.isFinite(x))) ? pairs : v;
}

const armSchema = z.tuple([z.number().min(0).max(1), z.number().positive().max(4)]);

export const dolceRcParams = z.object({
  arms: z
    .preprocess(
      parseArms,
      z.array(armSchema, { error: 'expected a list of [alpha, beta] pairs or "a:b,a:b,..."' }).min(1).max(16),
    )
    .default(ARMS_S1.map((a) => [a[0], a[1]] as [number, number]))
    .describe(
      'Arm set: (alpha, beta) pairs, in the order forced exploration tries them (paper K = 4; values [ours], S1)',
    ),
  epsilon: real(0.015, 1e-6, 0.999, 'DR-UCB forced-exploration share epsilon (period floor(K/epsilon))'),
  gamma: real(0.9998, 0, 1, 'DR-UCB discount per iteration (qualified CNP)'),
  xi: real(0.5001, 0, 100, 'DR-UCB exploration-bonus weight xi (> 0.5 in the paper)'),
  qualifiedMinNs: durationNs(
    250_000,
    'Q_MIN: a CNP is qualified (closes a reward window, re-selects the arm) this long after the previous qualified one (5 × CNP interval)',
  ),
  ecnEstimator: oneOf(
    ['ideal', 'actual'],
    'ideal',
    'ECN-ratio estimator: ideal = marked packets counted by the receiver ÷ packets sent; actual = CNPs ÷ 1-µs Tx slots (hardware prototype)',
  ),
  cnpCount: oneOf(
    ['exact', 'resv7'],
    'exact',
    'ideal mode: read the mark count from the exact extension field or from the 7-bit BTH reserved field (saturates at 127)',
  ),
  cnpIntervalNs: durationNs(50_000, 'NP, ideal mode: minimum time between CNPs of one QP (tau_CNP)'),
  actualCnpIntervalNs: durationNs(
    1_000,
    'NP, actual mode: minimum time between CNPs of one QP (MIN_TIME_BETWEEN_CNPS)',
  ),
  txSlotNs: durationNs(1_000, 'actual mode: length of a Tx slot'),
  rateCutMinIntervalNs: durationNs(
    50_000,
    'actual mode: CNPs closer than this to the previous cut are counted but do not cut ([ours])',
  ),
  rateIncreasePeriodNs: durationNs(60_000, 'T: rate-increase timer period (ns3-rdma RP_TIMER)'),
  fastRecoveryTimes: int(5, 'F: fast-recovery steps'),
  byteCounterBytes: bytes(10_000_000, 'B: byte counter, one increase event per B bytes sent (0 = off)'),
  rateAiBps: rateBps(40e6, 'R_AI: additive-increase step'),
  rateHaiBps: rateBps(200e6, 'R_HAI: hyper-increase step'),
  minRateBps: rateBps(100e6, 'R_min: rate floor'),
  rateCuts: bool(
    true,
    'Diagnostic: false keeps the rate constant while windows and the bandit still run (spec AC5)',
  ),
});

export type DolceRcParams = z.output<typeof dolceRcParams>;

export const dolceRcProfiles: Record<string, Partial<DolceRcParams>> = {
  s1: {},
  wide: { arms: ARMS_WIDE.map((a) => [a[0], a[1]] as [number, number]) },
  hardware: { ecnEstimator: 'actual' },
};

export const dolceRcAliases: Record<string, string> = {
  rai: 'rateAiBps',
  rhai: 'rateHaiBps',
  F: 'fastRecoveryTimes',
  B: 'byteCounterBytes',
  rmin: 'minRateBps',
  kt: 'rateIncreasePeriodNs',
  cnpInterval: 'cnpIntervalNs',
  qmin: 'qualifiedMinNs',
  eps: 'epsilon',
};
