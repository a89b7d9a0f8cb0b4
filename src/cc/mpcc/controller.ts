/**
 * One MPCC control step per ACK as pure functions over a per-flow state (thesis §3.2-§4.5,
 * eqs. 3.3-4.17; docs/algorithms/mpcc.md "Model and controller"):
 * Algorithm 1 (the hop with the largest INT queue) with the zero-queue policy, the model
 * parameters of that step (D, Δt, B, W_fair, τ), the delay-compensated state Q̄ (eq. 3.7, a
 * ring of past B·(W − W_fair)), the constrained MPC (mpc.ts) and the applied window and pacing
 * rate. No I/O and no clock: the RP (rp.ts) feeds it INT and applies the result, and the
 * reproduction suite replays recorded INT through the same function to time it.
 */
import { type MpcPath, type MpcScratch, mpcScratch, solveMpc } from './mpc.js';
import type { MpccParams } from './params.js';

/** Slots written by a switch in the INT block (docs/wire.md §2.2 MPCC block). */
export const MPCC_INT_SLOTS = 5;

/** Static facts of the flow's path the model needs (from topology; docs/algorithms/mpcc.md "Signals"). */
export interface MpccPath {
  /** R_in,max: the sender NIC's line rate, bit/s. */
  nicRateBps: number;
  /** Egress link rate of switch hop h (path order, hop 0 = first switch), bit/s. */
  hopRatesBps: readonly number[];
  /** D_base, ns. */
  baseRttNs: number;
  /** P = P_BD,max, payload bytes. */
  bdpBytes: number;
  /** S_wire of Δt, bytes. */
  packetWireBytes: number;
}

/** The INT fields MPCC reads from one hop. */
export interface MpccHop {
  qlenBytes: number;
  activeFlows: number;
}

/** What one step computed (kept in the state for inspect/trace, and returned). */
export interface StepRecord {
  /** 'hold': no control (all-zero INT under `hold`, or no INT hop at all). */
  path: MpcPath | 'hold';
  /** Selected hop, its queue (bytes) and flow count. */
  hop: number;
  qBytes: number;
  flows: number;
  /** Model of this step. */
  B: number;
  wFairBytes: number;
  tauSteps: number;
  /** Payload bytes in flight after the ACK that triggered the step (input of Δt). */
  inflightBytes: number;
  /** Q̄: predicted queue (eq. 3.7, clamped at 0). */
  qBarBytes: number;
  /** u(0) of the MPC and the window applied after the clamp. */
  u0Bytes: number;
  windowBytes: number;
  rateBps: number;
  iterations: number;
}

export interface MpccState {
  windowBytes: number;
  rateBps: number;
  /** Ring of c_i = B_i·(W_i − W_fair,i), newest at head − 1. */
  hist: Float64Array;
  histHead: number;
  histCount: number;
  ackCount: number;
  scratch: MpcScratch;
  steps: number;
  fastSteps: number;
  denseSteps: number;
  relaxedSteps: number;
  holdSteps: number;
  denseIterations: number;
  intOverflows: number;
  last: StepRecord;
}

const NO_STEP: StepRecord = {
  path: 'hold',
  hop: -1,
  qBytes: 0,
  flows: 0,
  B: 0,
  wFairBytes: 0,
  tauSteps: 0,
  inflightBytes: 0,
  qBarBytes: 0,
  u0Bytes: 0,
  windowBytes: 0,
  rateBps: 0,
  iterations: 0,
};

/** A new flow: W = P at line rate, empty history (thesis §2.7, §4.3.2). */
export function initMpccState(path: MpccPath, p: MpccParams): MpccState {
  return {
    windowBytes: path.bdpBytes,
    rateBps: path.nicRateBps,
    hist: new Float64Array(p.tauMaxSteps),
    histHead: 0,
    histCount: 0,
    ackCount: 0,
    scratch: mpcScratch(p.horizon),
    steps: 0,
    fastSteps: 0,
    denseSteps: 0,
    relaxedSteps: 0,
    holdSteps: 0,
    denseIterations: 0,
    intOverflows: 0,
    last: { ...NO_STEP, windowBytes: path.bdpBytes, rateBps: path.nicRateBps },
  };
}

function pushHistory(s: MpccState, c: number): void {
  s.hist[s.histHead] = c;
  s.histHead = (s.histHead + 1) % s.hist.length;
  if (s.histCount < s.hist.length) s.histCount++;
}

/** Σ of the newest `tau` history entries (eq. 3.7's Σ_{i=0}^{τ−1} B·W̄(k−1−i)). */
export function historySum(s: MpccState, tau: number): number {
  const n = Math.min(tau, s.histCount);
  const len = s.hist.length;
  let sum = 0;
  let i = s.histHead;
  for (let k = 0; k < n; k++) {
    i = i === 0 ? len - 1 : i - 1;
    sum += s.hist[i];
  }
  return sum;
}

/** Rate of hop h's egress (the bottleneck rate when the path table is shorter than the INT). */
function hopRate(path: MpccPath, h: number): number {
  const r = path.hopRatesBps[h];
  return r !== undefined && r > 0 ? r : path.nicRateBps;
}

/**
 * Pacing rate of the model ([OURS], docs/algorithms/mpcc.md "Parameters"): R_in,max·W/P within
 * [R_in,max·W_floor/P, R_in,max].
 */
export function modelRateBps(windowBytes: number, path: MpccPath, p: MpccParams): number {
  const r = path.nicRateBps;
  const lo = (r * p.windowFloorBytes) / path.bdpBytes;
  return Math.min(r, Math.max(lo, (r * windowBytes) / path.bdpBytes));
}

/**
 * Algorithm 1 (thesis §3.4): the first hop with the strictly largest queue. Returns -1 when every
 * recorded queue is 0.
 */
export function selectHop(hops: readonly MpccHop[], n: number): number {
  let q = 0;
  let idx = -1;
  for (let i = 0; i < n; i++) {
    if (hops[i].qlenBytes > q) {
      q = hops[i].qlenBytes;
      idx = i;
    }
  }
  return idx;
}

/** `fairShare` policy: the hop with the smallest R_h/N_h (first on ties). */
export function smallestFairShareHop(hops: readonly MpccHop[], n: number, path: MpccPath): number {
  let best = 0;
  let bestShare = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const share = hopRate(path, i) / Math.max(1, hops[i].activeFlows);
    if (share < bestShare) {
      bestShare = share;
      best = i;
    }
  }
  return best;
}

/**
 * Bytes W of eq. (A.1), Δt = S_wire·D/W, "the average interval for the current batch of
 * in-flight bytes" with W the "CWND (in-flight bytes)" (thesis App. A.2). In steady state the
 * two are the same; right after a cut the old, larger batch is still in flight and its ACKs keep
 * arriving D·S_wire/inflight apart, so `intervalBytes: inflight` takes the larger of the two.
 * Guarded below by S_wire (thesis App. A.2).
 */
export function intervalBytes(s: MpccState, path: MpccPath, p: MpccParams, inflightBytes: number): number {
  const w = p.intervalBytes === 'inflight' ? Math.max(s.windowBytes, inflightBytes) : s.windowBytes;
  return Math.max(w, path.packetWireBytes);
}

/**
 * One control step on an ACK's INT (`nhop` switches stamped, `hops` the recorded slots) with
 * `inflightBytes` payload bytes still unacknowledged after that ACK. Updates `s` (window, rate,
 * history, counters) and returns the step's record (`s.last`). Returns null when
 * `controlEveryNAcks` skips this ACK.
 */
export function controlStep(
  s: MpccState,
  path: MpccPath,
  hops: readonly MpccHop[],
  nhop: number,
  p: MpccParams,
  inflightBytes = 0,
): StepRecord | null {
  if (p.controlEveryNAcks > 1 && ++s.ackCount % p.controlEveryNAcks !== 0) return null;
  s.steps++;
  const n = Math.min(nhop, hops.length, MPCC_INT_SLOTS);
  if (nhop > MPCC_INT_SLOTS) s.intOverflows++;
  let idx = selectHop(hops, n);
  let q = 0;
  let flows = 1;
  if (idx >= 0) {
    q = hops[idx].qlenBytes;
    flows = hops[idx].activeFlows;
  } else if (n === 0 || p.zeroQueuePolicy === 'hold') {
    return hold(s);
  } else if (p.zeroQueuePolicy === 'fairShare') {
    idx = smallestFairShareHop(hops, n, path);
    flows = hops[idx].activeFlows;
  } else {
    idx = 0; // algo1Defaults: Q = 0, N = 1, hop 0
  }
  flows = Math.max(1, flows);

  // Model of this step (eqs. 2.2, 2.3, 3.4, 3.5, A.1); times in s as in the thesis.
  const rIn = path.nicRateBps;
  const P = path.bdpBytes;
  const rOut = hopRate(path, idx); // Table 3.1: R_out = R_link whenever Q > 0
  let dNs = path.baseRttNs;
  for (let h = 0; h < n; h++) dNs += (hops[h].qlenBytes * 8e9) / hopRate(path, h);
  const dtNs = (path.packetWireBytes * dNs) / intervalBytes(s, path, p, inflightBytes);
  const B = (dtNs * 1e-9 * flows * rIn) / (8 * P);
  const wFair = (rOut * P) / (rIn * flows);
  const tau = Math.min(p.tauMaxSteps, Math.max(0, Math.round(dNs / dtNs)));
  const qBar = Math.max(0, q + historySum(s, tau));

  const sol = solveMpc(
    {
      B,
      x: qBar,
      lb: p.windowFloorBytes - wFair,
      ub: P - wFair,
      qMax: (flows - 1) * P,
      horizon: p.horizon,
      weightQ: p.weightQ,
      weightR: p.weightR,
    },
    s.scratch,
  );
  if (sol.path === 'fast') s.fastSteps++;
  else {
    if (sol.path === 'dense') s.denseSteps++;
    else s.relaxedSteps++;
    s.denseIterations += sol.iterations;
  }
  const u0 = sol.u[0];
  const w = Math.min(P, Math.max(p.windowFloorBytes, u0 + wFair));
  pushHistory(s, B * (w - wFair));
  s.windowBytes = w;
  if (p.pacing === 'model') s.rateBps = modelRateBps(w, path, p);
  const rec = s.last;
  rec.path = sol.path;
  rec.hop = idx;
  rec.qBytes = q;
  rec.flows = flows;
  rec.B = B;
  rec.wFairBytes = wFair;
  rec.tauSteps = tau;
  rec.inflightBytes = inflightBytes;
  rec.qBarBytes = qBar;
  rec.u0Bytes = u0;
  rec.windowBytes = w;
  rec.rateBps = s.rateBps;
  rec.iterations = sol.iterations;
  return rec;
}

function hold(s: MpccState): StepRecord {
  s.holdSteps++;
  pushHistory(s, 0);
  const rec = s.last;
  rec.path = 'hold';
  rec.hop = -1;
  rec.qBytes = 0;
  rec.u0Bytes = 0;
  rec.windowBytes = s.windowBytes;
  rec.rateBps = s.rateBps;
  rec.iterations = 0;
  return rec;
}
