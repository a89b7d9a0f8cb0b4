/**
 * DCQCN parameters. Schema defaults are the DCQCN paper's (Zhu et al. SIGCOMM'15 Table/§ values at 40 Gbps;
 * docs/algorithms/dcqcn.md "Parameters"); the `hpcc-sim` profile is the HPCC ns-3 simulator's run.py `dcqcn`
 * preset, which is the default "DCQCN" of HPCC/RCC-style papers and therefore our default profile.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, oneOf, rateBps, real } from '../params.js';

export const dcqcnParams = z.object({
  machine: oneOf(
    ['paper', 'hpcc-sim'],
    'paper',
    'Rate machine: paper = cut on each CNP, 55 µs timer + byte counter, FR/AI/HI (Zhu et al.); ' +
      'hpcc-sim = HPCC ns-3 CX4-style: periodic alpha update, decrease-check timer, stage counter, no byte counter',
  ),
  alpha0: real(1, 0, 1, 'Initial alpha (paper: 1; the ns-3-rdma code used 0.5)'),
  alphaGain: real(1 / 256, 0, 1, 'g, EWMA gain of alpha'),
  alphaPeriodNs: durationNs(
    55_000,
    'Alpha update period: paper = decay (1-g)·alpha per period without CNP (K_alpha); hpcc-sim = AlphaResumInterval',
  ),
  rateIncreasePeriodNs: durationNs(55_000, 'Rate-increase timer period (paper K_T, hpcc-sim RPTimer)'),
  rateDecreasePeriodNs: durationNs(
    4_000,
    'hpcc-sim only: decrease-check period (RateDecreaseInterval); CNPs seen in it cause one cut',
  ),
  byteCounterBytes: bytes(
    10_000_000,
    'paper only: byte counter B, one increase event per B bytes sent (0 = off)',
  ),
  fastRecoveryTimes: int(5, 'F: fast-recovery rounds / stage threshold'),
  rateAiBps: rateBps(40e6, 'Additive-increase step R_AI'),
  rateHaiBps: rateBps(100e6, 'Hyper-increase step R_HAI'),
  stepScaleRefBps: rateBps(
    0,
    'If > 0, R_AI and R_HAI are scaled by lineRate/stepScaleRefBps (hpcc-sim: 100 Gbps, as run.py scales with --bw)',
  ),
  minRateBps: rateBps(
    0,
    'Absolute rate floor R_min (the larger of this and minRateFraction·lineRate applies)',
  ),
  minRateFraction: real(1e-4, 0, 1, 'Rate floor as a fraction of line rate (paper profile: R_l/10000)'),
  rateReduceMonitorPeriodNs: durationNs(
    0,
    'paper only: CNPs closer than this to the previous cut are ignored (CX4 rate_reduce_monitor_period, 4 µs; 0 = off)',
  ),
  cutWithUpdatedAlpha: bool(
    false,
    'paper only: update alpha before the cut (ns-3 codes) instead of after it (paper Eqs. 1-4)',
  ),
  rateOnFirstCnp: real(1, 0, 1, 'hpcc-sim only: Rc and Rt are multiplied by this at the first CNP'),
  clampTargetRate: bool(false, 'hpcc-sim only: set Rt = Rc on every cut, not only after an increase'),
  cnpIntervalNs: durationNs(
    50_000,
    'NP: minimum interval between CNPs of one QP (paper N; 0 = every CE packet)',
  ),
  npMode: oneOf(
    ['immediate', 'deferred'],
    'immediate',
    'NP: immediate = ignore CE inside the interval; deferred = send one CNP when the interval ends',
  ),
  cnpTransport: oneOf(
    ['cnp', 'ack-flag'],
    'cnp',
    'How congestion reaches the RP: RoCEv2 CNP frames, or the ECN-echo (BECN) bit on ACKs as in the HPCC simulator',
  ),
});

export type DcqcnParams = z.output<typeof dcqcnParams>;

export const dcqcnProfiles: Record<string, Partial<DcqcnParams>> = {
  // Schema defaults: the DCQCN paper's (R_min = R_l/10000, P15 in docs/algorithms/dcqcn.md).
  paper: {},
  // run.py `dcqcn` at --bw 100 (docs/algorithms/dcqcn.md "Parameters").
  'hpcc-sim': {
    machine: 'hpcc-sim',
    alpha0: 1,
    alphaGain: 1 / 256,
    alphaPeriodNs: 1_000,
    rateIncreasePeriodNs: 300_000,
    rateDecreasePeriodNs: 4_000,
    byteCounterBytes: 0,
    fastRecoveryTimes: 1,
    rateAiBps: 20e6,
    rateHaiBps: 200e6,
    stepScaleRefBps: 100e9,
    minRateBps: 1e9,
    minRateFraction: 0,
    rateOnFirstCnp: 1,
    clampTargetRate: false,
    cnpIntervalNs: 0,
    npMode: 'immediate',
    cnpTransport: 'cnp',
  },
};

export const dcqcnAliases: Record<string, string> = {
  rai: 'rateAiBps',
  rhai: 'rateHaiBps',
  g: 'alphaGain',
  F: 'fastRecoveryTimes',
  B: 'byteCounterBytes',
  rmin: 'minRateBps',
  kt: 'rateIncreasePeriodNs',
  kalpha: 'alphaPeriodNs',
  cnpInterval: 'cnpIntervalNs',
};
