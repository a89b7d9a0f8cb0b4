/**
 * HPCC's arithmetic as pure functions (Li et al. SIGCOMM'19 Algorithm 1 in
 * the rate form of the ns-3 simulator). Rates in bit/s, times in ns, sizes in bytes.
 */
import type { IntHop } from '../../wire/packet.js';

/** The INT fields HPCC reads (an IntHop without MPCC's activeFlows). */
export type HpccHop = Pick<IntHop, 'lineRateBps' | 'timeNs' | 'txBytes' | 'qlenBytes'>;

/** The INT timestamp wraps every 2^24 ns (24-bit field, docs/wire.md §2.1 HPCC layout). */
export const INT_TIME_MODULO = 2 ** 24;
/** txBytes is carried in 20 bits of 128·multi-byte units. */
export function intBytesModulo(intMulti: number): number {
  return 2 ** 20 * 128 * Math.max(1, intMulti);
}

/** newer − older modulo `modulus`, in [0, modulus): the wrap-aware difference of two counters. */
export function wrapDelta(newer: number, older: number, modulus: number): number {
  const d = (newer - older) % modulus;
  return d < 0 ? d + modulus : d;
}

export interface HopSample {
  /** Normalised load of the hop: txRate/B + min(qlen, qlen')·lineRate/(B·W). */
  u: number;
  /** Time between the two samples (the hop's dequeue times), ns. */
  tauNs: number;
  txRateBps: number;
}

/**
 * One hop's utilisation estimate from two INT records of the same egress port (the current ACK's
 * and the previous one this flow saw). `nicRateBps`·`winBytes`: the queue term is
 * qlen·nicRate/(B·W), which is qlen·8/(B·T) when W = nicRate·T/8 (the simulator's form).
 * Returns null when no time passed between the samples (no rate can be measured).
 */
export function hopUtilisation(
  cur: HpccHop,
  prev: HpccHop,
  nicRateBps: number,
  winBytes: number,
  intMulti = 1,
): HopSample | null {
  const tauNs = wrapDelta(cur.timeNs, prev.timeNs, INT_TIME_MODULO);
  if (!(tauNs > 0) || !(cur.lineRateBps > 0)) return null;
  const sentBytes = wrapDelta(cur.txBytes, prev.txBytes, intBytesModulo(intMulti));
  const txRateBps = (sentBytes * 8 * 1e9) / tauNs;
  const qlenBytes = Math.min(cur.qlenBytes, prev.qlenBytes);
  const u = txRateBps / cur.lineRateBps + (qlenBytes * nicRateBps) / cur.lineRateBps / winBytes;
  return { u, tauNs, txRateBps };
}

/** Time-weighted EWMA of U: τ' = min(τ, T); U = (U·(T − τ') + u·τ')/T. */
export function ewmaUtilisation(uPrev: number, uSample: number, tauNs: number, baseRttNs: number): number {
  const t = Math.min(tauNs, baseRttNs);
  return (uPrev * (baseRttNs - t) + uSample * t) / baseRttNs;
}

export interface RateDecision {
  rateBps: number;
  /** incStage after this step (becomes the reference stage on a full update). */
  stage: number;
  /** mi = multiplicative step toward η (+AI); ai = additive only. */
  kind: 'mi' | 'ai';
}

/**
 * ComputeWind in rate form: k = U/η; if k ≥ 1 or incStage ≥ maxStage: R = Rc/k + R_AI, stage 0
 * (MI/MD toward η), else R = Rc + R_AI, stage + 1 (AI); clamped to [minRate, lineRate].
 */
export function computeRate(
  rcBps: number,
  incStage: number,
  u: number,
  eta: number,
  maxStage: number,
  rateAiBps: number,
  minRateBps: number,
  lineRateBps: number,
): RateDecision {
  const k = u / eta;
  let rate: number;
  let stage: number;
  let kind: 'mi' | 'ai';
  if (k >= 1 || incStage >= maxStage) {
    rate = rcBps / k + rateAiBps;
    stage = 0;
    kind = 'mi';
  } else {
    rate = rcBps + rateAiBps;
    stage = incStage + 1;
    kind = 'ai';
  }
  if (!(rate >= minRateBps)) rate = minRateBps; // also U = 0 → rate = ∞ → clamped below
  if (rate > lineRateBps) rate = lineRateBps;
  return { rateBps: rate, stage, kind };
}

/** The window that goes with a rate (VAR_WIN): W = W_init·R/lineRate, at least 1 byte. */
export function windowForRate(rateBps: number, bdpBytes: number, lineRateBps: number): number {
  return Math.max(1, (bdpBytes * rateBps) / lineRateBps);
}
