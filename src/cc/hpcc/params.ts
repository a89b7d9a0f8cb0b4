/**
 * HPCC parameters. Schema defaults are the HPCC ns-3 simulator's run.py `hp` preset at
 * `--bw 100` with the README's `--hpai 50`; the `paper` profile is the
 * SIGCOMM'19 paper's setting (maxStage = 5). See docs/algorithms/hpcc.md.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, int, rateBps, real } from '../params.js';

export const hpccParams = z.object({
  eta: real(0.95, 0.01, 1, 'η (U_TARGET): target utilisation of the most loaded hop'),
  maxStage: int(
    0,
    'maxStage (MI_THRESH): additive-only stages before a multiplicative step while U < η (simulator 0, paper 5)',
  ),
  rateAiBps: rateBps(
    50e6,
    'R_AI (RATE_AI): additive step of the reference rate per update (W_AI/T in the paper), scaled by stepScaleRefBps',
  ),
  windowAiBytes: bytes(
    0,
    'W_AI in bytes (paper form); if > 0 it replaces rateAiBps: R_AI = W_AI·8/T, not scaled',
  ),
  expectedFlows: int(
    0,
    "N of the paper's rule W_AI = W_init·(1 − η)/N (the most flows expected on a link); if > 0 it sets W_AI and replaces rateAiBps/windowAiBytes",
  ),
  stepScaleRefBps: rateBps(
    100e9,
    'If > 0, R_AI is scaled by lineRate/stepScaleRefBps (run.py sets RATE_AI = 10·bw/25 Mb/s, i.e. proportional to --bw); 0 = fixed',
  ),
  minRateBps: rateBps(1e9, 'Rate floor (MIN_RATE, run.py 1000 Mb/s)'),
  fastReact: bool(
    true,
    'FAST_REACT: react to every ACK with the current reference (Rc, stage kept); false = only once per RTT',
  ),
  multiRate: bool(
    false,
    'MULTI_RATE: keep U, Rc and stage per hop and send at the minimum (simulator attribute default; its configs use false)',
  ),
  sampleFeedback: bool(false, 'SAMPLE_FEEDBACK: on per-ACK (fast) reactions skip hops whose queue is empty'),
  baseRttNs: durationNs(
    0,
    "T: the base RTT used in U's EWMA and the queue term; 0 = the flow's unloaded path RTT (set the fabric's max RTT to reproduce GLOBAL_T=1)",
  ),
  bdpBytes: bytes(
    0,
    'Window base W_init (maxBdp in the simulator); 0 = lineRate·T/8. Also normalises the queue term as in the simulator',
  ),
  window: bool(true, 'HAS_WIN/VAR_WIN: enforce the window W = bdpBytes·R/lineRate (bytes in flight)'),
  pacing: bool(true, 'RATE_BOUND: pace packets at the computed rate R (false: line rate, window only)'),
  intMulti: int(
    1,
    'INT_MULTI: txBytes/qlen units are 128·N / 80·N bytes; sets the txBytes wrap (2^20·128·N); switches stamp and real nodes code INT with the same N (>= 1)',
  ),
});

export type HpccParams = z.output<typeof hpccParams>;

export const hpccProfiles: Record<string, Partial<HpccParams>> = {
  // Schema defaults: run.py `hp` at --bw 100 --hpai 50 (what the HPCC paper's figures ran).
  'hpcc-sim': {},
  // Li et al. SIGCOMM'19 §3.3/§5: maxStage 5, η 95%.
  paper: { maxStage: 5 },
};

export const hpccAliases: Record<string, string> = {
  rai: 'rateAiBps',
  wai: 'windowAiBytes',
  N: 'expectedFlows',
  utgt: 'eta',
  mi: 'maxStage',
  rmin: 'minRateBps',
  T: 'baseRttNs',
};
