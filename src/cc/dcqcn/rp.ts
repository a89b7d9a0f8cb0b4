/**
 * DCQCN reaction point (sender NIC, per QP): the two rate machines behind the RP hooks.
 *
 * Periodic α updates are computed lazily from the time of the last CNP (paper) or of the first
 * CNP (hpcc-sim) instead of a timer per period: the result is identical at every instant α is
 * read, and thousands of idle QPs cost no events. Rate-increase timers stop once Rc = Rt = line
 * rate, where every further increase would be a no-op.
 */
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { alphaDecay, alphaOnCnp, cutRate, hpccSimIncrease, paperIncrease } from './machine.js';
import type { DcqcnParams } from './params.js';

export const RATE_TIMER = 0;
const DECREASE_TIMER = 1;

interface Common {
  lineRateBps: number;
  minRateBps: number;
  rateAiBps: number;
  rateHaiBps: number;
  rcBps: number;
  rtBps: number;
  cnps: number;
}

/** Paper machine (docs/algorithms/dcqcn.md "Paper machine"). */
export interface PaperState extends Common {
  machine: 'paper';
  /** α as of `alphaAnchorNs` (the last CNP); it decays one step per alphaPeriodNs after that. */
  alpha: number;
  alphaAnchorNs: number | null;
  timerCount: number;
  byteCount: number;
  bytesAcc: number;
  ccActive: boolean;
  lastCutNs: number;
  rateTimerArmed: boolean;
}

/** HPCC simulator machine (docs/algorithms/dcqcn.md "HPCC-simulator machine"). */
export interface HpccSimState extends Common {
  machine: 'hpcc-sim';
  alpha: number;
  firstCnp: boolean;
  /** Origin of the α-update and decrease-check grids (time of the first CNP). */
  originNs: number;
  alphaTicksDone: number;
  alphaCnpArrived: boolean;
  decreaseCnpArrived: boolean;
  decreaseArmed: boolean;
  stage: number;
  increaseArmed: boolean;
}

export type DcqcnState = PaperState | HpccSimState;

function common(flow: FlowInfo, p: DcqcnParams): Common {
  const scale = p.stepScaleRefBps > 0 ? flow.lineRateBps / p.stepScaleRefBps : 1;
  return {
    lineRateBps: flow.lineRateBps,
    minRateBps: Math.max(p.minRateBps, p.minRateFraction * flow.lineRateBps),
    rateAiBps: p.rateAiBps * scale,
    rateHaiBps: p.rateHaiBps * scale,
    rcBps: flow.lineRateBps,
    rtBps: flow.lineRateBps,
    cnps: 0,
  };
}

export function initDcqcn(flow: FlowInfo, p: DcqcnParams): DcqcnState {
  if (p.machine === 'paper') {
    return {
      ...common(flow, p),
      machine: 'paper',
      alpha: p.alpha0,
      alphaAnchorNs: null,
      timerCount: 0,
      byteCount: 0,
      bytesAcc: 0,
      ccActive: false,
      lastCutNs: Number.NEGATIVE_INFINITY,
      rateTimerArmed: false,
    };
  }
  return {
    ...common(flow, p),
    machine: 'hpcc-sim',
    alpha: p.alpha0,
    firstCnp: true,
    originNs: 0,
    alphaTicksDone: 0,
    alphaCnpArrived: false,
    decreaseCnpArrived: false,
    decreaseArmed: false,
    stage: 0,
    increaseArmed: false,
  };
}

// ---------------------------------------------------------------------------------------------
// paper machine

export function paperAlphaAt(s: PaperState, p: DcqcnParams, nowNs: number): number {
  if (s.alphaAnchorNs === null || p.alphaPeriodNs <= 0) return s.alpha;
  return alphaDecay(s.alpha, p.alphaGain, Math.floor((nowNs - s.alphaAnchorNs) / p.alphaPeriodNs));
}

function atLineRate(s: Common): boolean {
  return s.rcBps >= s.lineRateBps && s.rtBps >= s.lineRateBps;
}

export function paperOnCnp(s: PaperState, p: DcqcnParams, io: RpIo): void {
  const now = io.now();
  if (p.rateReduceMonitorPeriodNs > 0 && now - s.lastCutNs < p.rateReduceMonitorPeriodNs) {
    io.count('dcqcnCnpIgnored');
    return;
  }
  let alpha = paperAlphaAt(s, p, now);
  s.rtBps = s.rcBps;
  if (p.cutWithUpdatedAlpha) {
    alpha = alphaOnCnp(alpha, p.alphaGain);
    s.rcBps = cutRate(s.rcBps, alpha, s.minRateBps);
  } else {
    s.rcBps = cutRate(s.rcBps, alpha, s.minRateBps);
    alpha = alphaOnCnp(alpha, p.alphaGain);
  }
  s.alpha = alpha;
  s.alphaAnchorNs = now;
  s.timerCount = 0;
  s.byteCount = 0;
  s.bytesAcc = 0;
  s.ccActive = true;
  s.lastCutNs = now;
  s.cnps++;
  s.rateTimerArmed = true;
  io.setTimer(RATE_TIMER, now + p.rateIncreasePeriodNs);
  io.setRate(s.rcBps, 'cnp');
}

function paperIncreaseEvent(s: PaperState, p: DcqcnParams, io: RpIo, source: string): void {
  const step = paperIncrease(
    s.rcBps,
    s.rtBps,
    s.timerCount,
    s.byteCount,
    p.fastRecoveryTimes,
    s.rateAiBps,
    s.rateHaiBps,
    s.lineRateBps,
  );
  s.rtBps = step.rtBps;
  if (step.rcBps !== s.rcBps) {
    s.rcBps = step.rcBps;
    io.setRate(s.rcBps, `${source}:${step.phase}`);
  }
}

export function paperOnRateTimer(s: PaperState, p: DcqcnParams, io: RpIo): void {
  s.timerCount++;
  paperIncreaseEvent(s, p, io, 'timer');
  if (atLineRate(s)) {
    s.rateTimerArmed = false;
  } else {
    io.setTimer(RATE_TIMER, io.now() + p.rateIncreasePeriodNs);
  }
}

/**
 * Byte counter (docs/algorithms/dcqcn.md "Paper machine"): `wireBytes` of a data packet that left the NIC.
 */
export function paperOnTx(s: PaperState, p: DcqcnParams, io: RpIo, wireBytes: number): void {
  // At line rate every increase is a no-op and the next CNP resets the counters anyway.
  if (!s.ccActive || p.byteCounterBytes <= 0 || atLineRate(s)) return;
  s.bytesAcc += wireBytes;
  while (s.bytesAcc >= p.byteCounterBytes) {
    s.bytesAcc -= p.byteCounterBytes;
    s.byteCount++;
    paperIncreaseEvent(s, p, io, 'bytes');
  }
}

// ---------------------------------------------------------------------------------------------
// hpcc-sim machine

/** Apply the α-update ticks at originNs + k·alphaPeriodNs (k ≥ 1) that are ≤ now. */
function hpccSimAlphaCatchUp(s: HpccSimState, p: DcqcnParams, nowNs: number): void {
  if (s.firstCnp || p.alphaPeriodNs <= 0) return;
  let n = Math.floor((nowNs - s.originNs) / p.alphaPeriodNs) - s.alphaTicksDone;
  if (n <= 0) return;
  s.alphaTicksDone += n;
  if (s.alphaCnpArrived) {
    s.alpha = alphaOnCnp(s.alpha, p.alphaGain);
    s.alphaCnpArrived = false;
    n--;
  }
  s.alpha = alphaDecay(s.alpha, p.alphaGain, n);
}

export function hpccSimAlphaAt(s: HpccSimState, p: DcqcnParams, nowNs: number): number {
  if (s.firstCnp || p.alphaPeriodNs <= 0) return s.alpha;
  let n = Math.floor((nowNs - s.originNs) / p.alphaPeriodNs) - s.alphaTicksDone;
  let alpha = s.alpha;
  if (n > 0 && s.alphaCnpArrived) {
    alpha = alphaOnCnp(alpha, p.alphaGain);
    n--;
  }
  return alphaDecay(alpha, p.alphaGain, n);
}

export function hpccSimOnCnp(s: HpccSimState, p: DcqcnParams, io: RpIo): void {
  const now = io.now();
  hpccSimAlphaCatchUp(s, p, now);
  s.cnps++;
  s.alphaCnpArrived = true;
  s.decreaseCnpArrived = true;
  if (s.firstCnp) {
    s.firstCnp = false;
    s.alpha = p.alpha0;
    s.alphaCnpArrived = false;
    s.originNs = now;
    s.alphaTicksDone = 0;
    const rate = p.rateOnFirstCnp * s.rcBps;
    s.rtBps = rate;
    if (rate !== s.rcBps) {
      s.rcBps = Math.max(rate, s.minRateBps);
      io.setRate(s.rcBps, 'cnp:first');
    }
  }
  if (!s.decreaseArmed) {
    // Decrease checks run on the grid origin + (k+1)·period + 1 ns (after the α update due at
    // the same instant, as the simulator orders them); the first one after now serves this CNP.
    const first = s.originNs + p.rateDecreasePeriodNs + 1;
    const period = Math.max(p.rateDecreasePeriodNs, 1);
    const k = now < first ? 0 : Math.floor((now - first) / period) + 1;
    s.decreaseArmed = true;
    io.setTimer(DECREASE_TIMER, first + k * period);
  }
}

export function hpccSimOnDecreaseTimer(s: HpccSimState, p: DcqcnParams, io: RpIo): void {
  s.decreaseArmed = false;
  if (!s.decreaseCnpArrived) return;
  const now = io.now();
  hpccSimAlphaCatchUp(s, p, now);
  if (p.clampTargetRate || s.stage !== 0) s.rtBps = s.rcBps;
  s.rcBps = cutRate(s.rcBps, s.alpha, s.minRateBps);
  s.stage = 0;
  s.decreaseCnpArrived = false;
  io.setRate(s.rcBps, 'cnp:decrease');
  s.increaseArmed = true;
  io.setTimer(RATE_TIMER, now + p.rateIncreasePeriodNs);
}

export function hpccSimOnIncreaseTimer(s: HpccSimState, p: DcqcnParams, io: RpIo): void {
  const step = hpccSimIncrease(
    s.rcBps,
    s.rtBps,
    s.stage,
    p.fastRecoveryTimes,
    s.rateAiBps,
    s.rateHaiBps,
    s.lineRateBps,
  );
  s.stage++;
  s.rtBps = step.rtBps;
  if (step.rcBps !== s.rcBps) {
    s.rcBps = step.rcBps;
    io.setRate(s.rcBps, `timer:${step.phase}`);
  }
  if (atLineRate(s)) {
    s.increaseArmed = false;
  } else {
    io.setTimer(RATE_TIMER, io.now() + p.rateIncreasePeriodNs);
  }
}

// ---------------------------------------------------------------------------------------------

function onCongestion(s: DcqcnState, p: DcqcnParams, io: RpIo): void {
  if (s.machine === 'paper') paperOnCnp(s, p, io);
  else hpccSimOnCnp(s, p, io);
}

export const dcqcnRp: RpAlgorithm<DcqcnParams, DcqcnState> = {
  features: { int: null, txTimestamp: false },
  init(flow, params, io) {
    const s = initDcqcn(flow, params);
    io.setRate(s.rcBps, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'cnp':
        onCongestion(s, p, io);
        break;
      case 'ack':
        if (ev.ecnEcho && p.cnpTransport === 'ack-flag') onCongestion(s, p, io);
        break;
      case 'tx':
        if (s.machine === 'paper') paperOnTx(s, p, io, ev.pkt.sizeBytes);
        break;
      case 'timer':
        if (s.machine === 'paper') {
          if (ev.slot === RATE_TIMER) paperOnRateTimer(s, p, io);
        } else if (ev.slot === RATE_TIMER) {
          hpccSimOnIncreaseTimer(s, p, io);
        } else if (ev.slot === DECREASE_TIMER) {
          hpccSimOnDecreaseTimer(s, p, io);
        }
        break;
      default:
        // NACKs, timeouts, CNMs and completions do not move DCQCN's rate.
        break;
    }
  },
  inspect(s, p, nowNs): Record<string, number> {
    if (s.machine === 'paper') {
      return {
        rcBps: s.rcBps,
        rtBps: s.rtBps,
        alpha: paperAlphaAt(s, p, nowNs),
        timerCount: s.timerCount,
        byteCount: s.byteCount,
        cnps: s.cnps,
      };
    }
    return {
      rcBps: s.rcBps,
      rtBps: s.rtBps,
      alpha: hpccSimAlphaAt(s, p, nowNs),
      stage: s.stage,
      cnps: s.cnps,
    };
  },
};
