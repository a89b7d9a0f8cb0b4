/**
 * MPCC (Zheng 2024) parameters. Defaults (docs/algorithms/mpcc.md "Parameters"): the
 * thesis' values where it gives them (Hp 3, W_Q:W_R 1:10, W_init = W_max = P), our [OURS]
 * choices where it is silent (W_floor, pacing, the zero-queue policy, T_flow). The `thesis`
 * profile is the literal text: hold the window on an all-zero INT and no pacing.
 * See docs/algorithms/mpcc.md.
 */
import { z } from 'zod';
import { bool, bytes, durationNs, oneOf, real } from '../params.js';

/** Integer in [min, max] (also from a string, as every parameter may come from YAML or --set). */
function intIn(def: number, min: number, max: number, description: string) {
  return z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v),
      z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }).min(min).max(max),
    )
    .default(def)
    .describe(description);
}

export const mpccParams = z.object({
  horizon: intIn(3, 1, 64, 'Hp: prediction horizon in control steps (ACKs); the thesis tested 3, 5, 10, 20'),
  weightQ: real(1, 1e-12, 1e12, 'W_Q: weight of the predicted queue² in the cost'),
  weightR: real(10, 1e-12, 1e12, 'W_R: weight of (W − W_fair)² in the cost (thesis ratio 1:10)'),
  windowFloorBytes: bytes(
    270,
    'W_floor: lower window bound in the QP and the applied window ([OURS] 0.25·S_wire; W = 0 would deadlock the ACK clock)',
  ),
  zeroQueuePolicy: oneOf(
    ['fairShare', 'hold', 'algo1Defaults'],
    'fairShare',
    'All INT queues 0: fairShare = run the MPC on the hop with the smallest R/N ([OURS] default); ' +
      'hold = keep W (thesis text; starves after departures); algo1Defaults = Q=0, N=1, hop 0',
  ),
  pacing: oneOf(
    ['model', 'none'],
    'model',
    'model = pace at R_in,max·W/P (the model input, [OURS] default); none = window only at line rate (thesis literal)',
  ),
  controlEveryNAcks: intIn(
    1,
    1,
    1e6,
    'Run the MPC on every n-th ACK only (thesis §6.2 future work; 1 = every ACK)',
  ),
  controller: oneOf(
    ['mpc', 'off'],
    'mpc',
    'off = no control: W pinned at P, line rate (the thesis\' "CWND = BDP" plant of Fig. 3.4; the no-CC arm of AC1c/AC5)',
  ),
  packetWireBytes: bytes(
    0,
    "S_wire in Δt = S_wire·D/W: bytes of a full data packet on the wire; 0 = this flow's MTU frame with the 32-B INT block (1094 B at MTU 1000; thesis 1080)",
  ),
  intervalBytes: oneOf(
    ['inflight', 'window'],
    'inflight',
    "W of Δt = S_wire·D/W (eq. A.1): inflight = max(W, payload bytes still in flight after this ACK), the thesis' " +
      '"CWND (in-flight bytes)", which differs from W only after a cut; window = W alone (as in our implementation spec; docs/algorithms/mpcc.md "Deviations")',
  ),
  tauMaxSteps: intIn(4096, 1, 1 << 20, 'τ_max: history ring of past inputs (steps)'),
  baseRttNs: durationNs(
    0,
    "D_base override; 0 = 2·Σ link delay + Σ MTU·8/R_link of this flow's path (the thesis' eq. 2.2 in the HPCC-simulator convention)",
  ),
  bdpBytes: bytes(0, "P = P_BD,max override; 0 = R_in,max·D_base/8 of this flow's path"),
  flowTimeoutNs: durationNs(
    0,
    "T_flow: the switches' active-flow window (MPCC turns the counter on); 0 = flowTimeoutRtts × the largest D_base of the run",
  ),
  flowTimeoutRtts: real(
    8,
    0.01,
    1e6,
    'T_flow in units of the largest D_base when flowTimeoutNs is 0 ([OURS] 8)',
  ),
  flowCountMinBytes: bytes(
    0,
    "[OURS] the switches count a flow in N only once more than this many bytes of it entered the port's queue " +
      '(mice never count); 0 = every flow from its first packet (thesis App. A.1). For mouse-heavy mixes, see docs/algorithms/mpcc.md',
  ),
  flowCountForgetAtEnd: bool(
    false,
    "[OURS] the switches drop a flow from N when its message's last packet (BTH LAST/ONLY) enters the queue, not T_flow later",
  ),
});

export type MpccParams = z.output<typeof mpccParams>;

export const mpccProfiles: Record<string, Partial<MpccParams>> = {
  // The defaults of docs/algorithms/mpcc.md "Parameters".
  default: {},
  // The thesis text taken literally: window held on an all-zero INT, no pacing (thesis §3.4 Algorithm 1).
  thesis: { zeroQueuePolicy: 'hold', pacing: 'none' },
};

export const mpccAliases: Record<string, string> = {
  Hp: 'horizon',
  WQ: 'weightQ',
  WR: 'weightR',
  wFloor: 'windowFloorBytes',
  zero: 'zeroQueuePolicy',
  T: 'baseRttNs',
  P: 'bdpBytes',
  Tflow: 'flowTimeoutNs',
};
