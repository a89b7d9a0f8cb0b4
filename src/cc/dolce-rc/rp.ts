/**
 * Dolce-RC reaction point (paper Alg. 2; docs/algorithms/dolce-rc.md "Rate machine"): the ns3-rdma DCQCN
 * machine with Eq. (1)-(2) on every CNP, α and β taken from the arm DR-UCB chose, and the bandit advanced at
 * every *qualified* CNP (≥ Q_MIN after the previous qualified one) with the reward of Eq. (4), 1 −
 * marked/sent over the window that CNP closes.
 *
 * All state is per QP and lives as long as the QP, so learning carries across its messages and
 * flows. The rate timer stops once R_C is at line rate: R_T keeps growing in [22] but nothing
 * reads it before the next CNP overwrites it with β·R_C, so the stop is unobservable.
 */
import type { Packet } from '../../wire/packet.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { DrUcb } from './dr-ucb.js';
import {
  cut,
  initMachine,
  type MachineParams,
  onBytesSent,
  type RateMachine,
  STAGE_NAMES,
  Stage,
  timerEvent,
} from './machine.js';
import type { DolceRcParams } from './params.js';

export const RATE_TIMER = 0;

export interface DolceRcState {
  mp: MachineParams;
  m: RateMachine;
  timerArmed: boolean;
  mab: DrUcb;
  /** Arm in use and its constants (arm 0's until the first CNP, when they start to matter). */
  arm: number;
  alpha: number;
  beta: number;
  /** Reward window (Alg. 2): opened by the first CNP, closed and reopened by qualified CNPs. */
  winOpen: boolean;
  lastQualifiedNs: number;
  winSentPkts: number;
  winMarked: number;
  winTxSlots: number;
  lastTxSlot: number;
  lastCutNs: number;
  ideal: boolean;
  cnps: number;
  qualified: number;
  /** Reward of the latest bandit update (−1 before the first). */
  lastReward: number;
}

export function machineParams(flow: FlowInfo, p: DolceRcParams): MachineParams {
  return {
    lineRateBps: flow.lineRateBps,
    minRateBps: Math.min(p.minRateBps, flow.lineRateBps),
    rateAiBps: p.rateAiBps,
    rateHaiBps: p.rateHaiBps,
    fastRecoveryTimes: p.fastRecoveryTimes,
    byteCounterBytes: p.byteCounterBytes,
    rateIncreasePeriodNs: p.rateIncreasePeriodNs,
  };
}

export function initDolceRc(flow: FlowInfo, p: DolceRcParams): DolceRcState {
  const [alpha, beta] = p.arms[0];
  return {
    mp: machineParams(flow, p),
    m: initMachine(flow.lineRateBps),
    timerArmed: false,
    mab: new DrUcb(p.arms.length, p.epsilon, p.gamma, p.xi),
    arm: 0,
    alpha,
    beta,
    winOpen: false,
    lastQualifiedNs: Number.NEGATIVE_INFINITY,
    winSentPkts: 0,
    winMarked: 0,
    winTxSlots: 0,
    lastTxSlot: -1,
    lastCutNs: Number.NEGATIVE_INFINITY,
    ideal: p.ecnEstimator === 'ideal',
    cnps: 0,
    qualified: 0,
    lastReward: -1,
  };
}

/**
 * Marks a CNP reports (ideal mode). A CNP always stands for at least one mark, so a CNP without
 * a count (e.g. from a receiver running another algorithm's NP) counts as one.
 */
export function cnpMarks(pkt: Packet, p: DolceRcParams): number {
  const exact = p.cnpCount === 'exact' ? (pkt.ext?.ecnCount ?? null) : null;
  const m = exact ?? pkt.bthResv7;
  return m > 0 ? m : 1;
}

function selectArm(s: DolceRcState, p: DolceRcParams, io: RpIo): void {
  s.arm = s.mab.select();
  [s.alpha, s.beta] = p.arms[s.arm];
  io.count(`dolceRcArm${s.arm}`);
}

function resetWindow(s: DolceRcState): void {
  s.winSentPkts = 0;
  s.winMarked = 0;
  s.winTxSlots = 0;
  s.lastTxSlot = -1;
}

/** Eq. (4) over the closing window; null when nothing was sent in it (no update, [ours]). */
export function windowReward(s: DolceRcState): number | null {
  const denom = s.ideal ? s.winSentPkts : s.winTxSlots;
  if (denom <= 0) return null;
  return Math.min(1, Math.max(0, 1 - s.winMarked / denom));
}

export function onCnp(s: DolceRcState, pkt: Packet, p: DolceRcParams, io: RpIo): void {
  const now = io.now();
  s.cnps++;
  let why = 'cnp';
  if (!s.winOpen) {
    // The first CNP only anchors the window: before it α and β have no effect (docs/algorithms/dolce-rc.md
    // "Choices", item 6).
    s.winOpen = true;
    s.lastQualifiedNs = now;
    selectArm(s, p, io);
    resetWindow(s);
  } else {
    s.winMarked += s.ideal ? cnpMarks(pkt, p) : 1;
    if (now - s.lastQualifiedNs >= p.qualifiedMinNs) {
      const x = windowReward(s);
      if (x === null) {
        io.count('dolceRcEmptyWindows');
      } else {
        s.mab.update(s.arm, x);
        s.lastReward = x;
        io.count('dolceRcUpdates');
        // Totals over the closed windows: their ratio is the estimator's long-run ECN ratio.
        io.count('dolceRcWindowMarks', s.winMarked);
        io.count('dolceRcWindowDenom', s.ideal ? s.winSentPkts : s.winTxSlots);
      }
      // Alg. 2: the new arm is set (line 6) before the revised DCQCN runs on this CNP (line 7).
      selectArm(s, p, io);
      s.lastQualifiedNs = now;
      s.qualified++;
      resetWindow(s);
      why = 'cnp:q';
    }
  }
  if (!p.rateCuts) return;
  if (!s.ideal && now - s.lastCutNs < p.rateCutMinIntervalNs) {
    io.count('dolceRcCnpNoCut');
    return;
  }
  s.lastCutNs = now;
  cut(s.m, s.alpha, s.beta, s.mp);
  s.timerArmed = true;
  io.setTimer(RATE_TIMER, now + s.mp.rateIncreasePeriodNs);
  io.setRate(s.m.rcBps, `${why}:arm${s.arm}`);
}

function onRateTimer(s: DolceRcState, io: RpIo): void {
  const before = s.m.rcBps;
  const periodNs = timerEvent(s.m, s.mp);
  if (s.m.rcBps !== before) io.setRate(s.m.rcBps, `timer:${STAGE_NAMES[s.m.stage]}`);
  if (s.m.rcBps >= s.mp.lineRateBps) {
    s.timerArmed = false;
    return;
  }
  io.setTimer(RATE_TIMER, io.now() + periodNs);
}

function onTx(s: DolceRcState, pkt: Packet, p: DolceRcParams, io: RpIo): void {
  if (s.m.stage !== Stage.None && s.timerArmed) {
    const before = s.m.rcBps;
    if (onBytesSent(s.m, pkt.sizeBytes, s.mp) > 0 && s.m.rcBps !== before)
      io.setRate(s.m.rcBps, `bytes:${STAGE_NAMES[s.m.stage]}`);
  }
  if (!s.winOpen) return;
  s.winSentPkts++;
  if (!s.ideal) {
    const slot = Math.floor(io.now() / p.txSlotNs);
    if (slot !== s.lastTxSlot) {
      s.winTxSlots++;
      s.lastTxSlot = slot;
    }
  }
}

export const dolceRcRp: RpAlgorithm<DolceRcParams, DolceRcState> = {
  features: { int: null, txTimestamp: false },
  init(flow, p, io) {
    const s = initDolceRc(flow, p);
    io.setRate(s.m.rcBps, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'cnp':
        onCnp(s, ev.pkt, p, io);
        break;
      case 'tx':
        onTx(s, ev.pkt, p, io);
        break;
      case 'timer':
        if (ev.slot === RATE_TIMER) onRateTimer(s, io);
        break;
      default:
        // ACKs, NAKs, timeouts and completions do not move the rate (as in DCQCN).
        break;
    }
  },
  inspect(s): Record<string, number> {
    return {
      rcBps: s.m.rcBps,
      rtBps: s.m.rtBps,
      arm: s.arm,
      alpha: s.alpha,
      beta: s.beta,
      stage: s.m.stage,
      mabIter: s.mab.t,
      cnps: s.cnps,
      qualifiedCnps: s.qualified,
      lastReward: s.lastReward,
      windowSentPkts: s.winSentPkts,
      windowMarked: s.winMarked,
    };
  },
};
