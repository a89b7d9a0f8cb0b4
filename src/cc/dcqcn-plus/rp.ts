/**
 * DCQCN+ reaction point (sender NIC, per QP; DCQCN+ §IV-B-3): the DCQCN cut on a CNP, then
 * timer-only recovery driven by one state counter S, with both timer periods derived from the CNP
 * period τ carried by the CNP and the flow's own rate (Eqs. 16-17).
 *
 * Timers stop once R_C = R_T = line rate, where every further increase is a no-op until the next
 * CNP resets S. The α timer stops with them; its period is then constant (R_C and τ cannot change
 * without a CNP), so the decays it would have applied are counted on the next read instead.
 */
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { alphaDecay, computeTimers, cutOnCnp, increaseOnTimer } from './machine.js';
import type { DcqcnPlusParams } from './params.js';

const RATE_TIMER = 0;
const ALPHA_TIMER = 1;

export interface DcqcnPlusRpState {
  lineRateBps: number;
  minRateBps: number;
  rcBps: number;
  rtBps: number;
  alpha: number;
  /** State counter: unpaused rate-timer expiries since the last CNP. */
  s: number;
  /** Last CNP period received, ns (0 = none yet). */
  tauNs: number;
  rateTimerNs: number;
  alphaTimerNs: number;
  rateArmed: boolean;
  /** Next α-timer expiry: pending while the timer runs, virtual once it has stopped (null: never armed). */
  alphaDueNs: number | null;
  alphaArmed: boolean;
  cnps: number;
}

export function initDcqcnPlus(flow: FlowInfo, p: DcqcnPlusParams): DcqcnPlusRpState {
  return {
    lineRateBps: flow.lineRateBps,
    minRateBps: Math.max(p.minRateBps, p.minRateFraction * flow.lineRateBps),
    rcBps: flow.lineRateBps,
    rtBps: flow.lineRateBps,
    alpha: p.alpha0,
    s: 0,
    tauNs: 0,
    rateTimerNs: p.rateTimerDefaultNs,
    alphaTimerNs: p.alphaTimerDefaultNs,
    rateArmed: false,
    alphaDueNs: null,
    alphaArmed: false,
    cnps: 0,
  };
}

/** α as of `nowNs`, including the decays of a stopped α timer. */
export function alphaAt(s: DcqcnPlusRpState, p: DcqcnPlusParams, nowNs: number): number {
  if (s.alphaArmed || s.alphaDueNs === null || nowNs < s.alphaDueNs) return s.alpha;
  return alphaDecay(s.alpha, p.alphaGain, Math.floor((nowNs - s.alphaDueNs) / s.alphaTimerNs) + 1);
}

function recompute(s: DcqcnPlusRpState, p: DcqcnPlusParams): void {
  const t = computeTimers(s.tauNs, s.rcBps, p);
  s.rateTimerNs = t.rateTimerNs;
  s.alphaTimerNs = t.alphaTimerNs;
}

function armAlpha(s: DcqcnPlusRpState, io: RpIo, atNs: number): void {
  s.alphaDueNs = atNs;
  s.alphaArmed = true;
  io.setTimer(ALPHA_TIMER, atNs);
}

function atLineRate(s: DcqcnPlusRpState): boolean {
  return s.rcBps >= s.lineRateBps && s.rtBps >= s.lineRateBps;
}

export function onCnp(s: DcqcnPlusRpState, p: DcqcnPlusParams, io: RpIo, cnpPeriodNs: number): void {
  const now = io.now();
  s.alpha = alphaAt(s, p, now);
  const cut = cutOnCnp(s.rcBps, s.alpha, p.beta, p.alphaGain, s.minRateBps);
  s.rtBps = cut.rtBps;
  s.rcBps = cut.rcBps;
  s.alpha = cut.alpha;
  s.s = 0;
  // 0 = the CNP carries no period (e.g. from a plain DCQCN receiver): keep the last one.
  if (cnpPeriodNs > 0) s.tauNs = cnpPeriodNs;
  // On a CNP the formula sees the post-cut R_C (spec A9).
  recompute(s, p);
  s.cnps++;
  s.rateArmed = true;
  io.setTimer(RATE_TIMER, now + s.rateTimerNs);
  armAlpha(s, io, now + s.alphaTimerNs);
  io.setRate(s.rcBps, 'cnp');
}

export function onRateTimer(s: DcqcnPlusRpState, p: DcqcnPlusParams, io: RpIo): void {
  const now = io.now();
  if (p.pauseCheck && io.paused()) {
    // §VI-E: no recovery and no state increase while paused; the timer still re-arms (P13 in
    // docs/algorithms/dcqcn-plus.md).
    io.count('dcqcnPlusPausedExpiries');
  } else {
    s.s++;
    const step = increaseOnTimer(s.s, s.rcBps, s.rtBps, s.alpha, s.lineRateBps, p);
    s.rtBps = step.rtBps;
    if (step.rcBps !== s.rcBps) {
      s.rcBps = step.rcBps;
      io.setRate(s.rcBps, `timer:${step.phase}`);
    }
  }
  if (p.recomputeTimers === 'rearm') recompute(s, p);
  if (atLineRate(s)) {
    s.rateArmed = false;
    s.alphaArmed = false;
    io.cancelTimer(ALPHA_TIMER);
    // From here both periods are fixed: the stopped α timer would fire at alphaDueNs + k·K_α.
    // Its pending expiry was armed with the period computed before this increase.
    return;
  }
  io.setTimer(RATE_TIMER, now + s.rateTimerNs);
}

export function onAlphaTimer(s: DcqcnPlusRpState, p: DcqcnPlusParams, io: RpIo): void {
  s.alpha = alphaDecay(s.alpha, p.alphaGain, 1);
  if (p.recomputeTimers === 'rearm') recompute(s, p);
  armAlpha(s, io, io.now() + s.alphaTimerNs);
}

export const dcqcnPlusRp: RpAlgorithm<DcqcnPlusParams, DcqcnPlusRpState> = {
  features: { int: null, txTimestamp: false },
  init(flow, p, io) {
    const s = initDcqcnPlus(flow, p);
    io.setRate(s.rcBps, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'cnp':
        onCnp(s, p, io, ev.pkt.ext?.cnpPeriodNs ?? 0);
        break;
      case 'timer':
        if (ev.slot === RATE_TIMER) onRateTimer(s, p, io);
        else if (ev.slot === ALPHA_TIMER) onAlphaTimer(s, p, io);
        break;
      default:
        // ACKs, NACKs, timeouts, CNMs, completions and transmissions (no byte counter, §IV-B-3)
        // do not move DCQCN+'s rate.
        break;
    }
  },
  inspect(s, p, nowNs): Record<string, number> {
    return {
      rcBps: s.rcBps,
      rtBps: s.rtBps,
      alpha: alphaAt(s, p, nowNs),
      stateCounter: s.s,
      tauNs: s.tauNs,
      rateTimerNs: s.rateTimerNs,
      alphaTimerNs: s.alphaTimerNs,
      cnps: s.cnps,
    };
  },
};
