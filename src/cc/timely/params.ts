/**
 * TIMELY parameters. Schema defaults are the HPCC ns-3 simulator's (rdma-hw.cc constants and
 * run.py `timely` at `--bw 100`); the `paper` profile is Mittal et al.
 * SIGCOMM'15 as far as public re-implementations record it. See docs/algorithms/timely.md.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, oneOf, rateBps, real } from '../params.js';

export const timelyParams = z.object({
  alpha: real(0.875, 0, 1, 'α: EWMA weight of the newest RTT difference in the smoothed difference'),
  beta: real(0.8, 0, 1, 'β: multiplicative-decrease factor'),
  tLowNs: durationNs(50_000, 'T_low: below this RTT always increase'),
  tHighNs: durationNs(500_000, 'T_high: above this RTT decrease by β·(1 − T_high/rtt)'),
  minRttNs: durationNs(
    20_000,
    'minRTT: normaliser of the RTT gradient (not measured: a constant, as in the simulator)',
  ),
  rateAiBps: rateBps(100e6, 'δ: additive step (RATE_AI, run.py 10·bw/10 Mb/s), scaled by stepScaleRefBps'),
  rateHaiBps: rateBps(
    500e6,
    'Hyper-additive step (RATE_HAI, run.py 50·bw/10 Mb/s), scaled by stepScaleRefBps',
  ),
  stepScaleRefBps: rateBps(
    100e9,
    'If > 0, the steps are scaled by lineRate/stepScaleRefBps (run.py scales them with --bw); 0 = fixed',
  ),
  haiThreshold: int(5, 'N: increases in a row before the hyper-additive step is used'),
  haiMode: oneOf(
    ['stage', 'gradient'],
    'stage',
    'What counts toward N: stage = every increase (the simulator, T_low increases too); gradient = only consecutive updates with gradient ≤ 0 (paper)',
  ),
  minRateBps: rateBps(1e9, 'Rate floor (MIN_RATE, run.py 1000 Mb/s)'),
  window: bool(false, 'timely_vwin preset: also enforce the window W = bdpBytes·R/lineRate'),
  baseRttNs: durationNs(0, 'Window only: T for the window base; 0 = the flow path base RTT'),
  bdpBytes: bytes(0, 'Window only: W_init; 0 = lineRate·T/8'),
});

export type TimelyParams = z.output<typeof timelyParams>;

export const timelyProfiles: Record<string, Partial<TimelyParams>> = {
  'hpcc-sim': {},
  // TIMELY paper: δ = 10 Mb/s, HAI after 5 consecutive negative gradients with step 5δ ([M]).
  paper: { rateAiBps: 10e6, rateHaiBps: 50e6, stepScaleRefBps: 0, haiMode: 'gradient' },
  // run.py timely_vwin: the simulator's TIMELY with the variable window.
  'hpcc-sim-vwin': { window: true },
};

export const timelyAliases: Record<string, string> = {
  rai: 'rateAiBps',
  rhai: 'rateHaiBps',
  tlow: 'tLowNs',
  thigh: 'tHighNs',
  minRtt: 'minRttNs',
  rmin: 'minRateBps',
};
