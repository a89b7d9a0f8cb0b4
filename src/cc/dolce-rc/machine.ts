/**
 * The DCQCN rate machine Dolce-RC keeps (docs/algorithms/dolce-rc.md "Rate machine"), in the form of the
 * public ns-3 DCQCN code the paper used for its baseline (bobzhuyb/ns3-rdma `qbb-net-device.cc`, paper ref
 * [22]): a cut on every CNP, then fast recovery, additive and hyper increase driven by a rate timer T and a
 * byte counter B. Dolce-RC's two changes are the cut (Eq. 1: R_T = β·R_C instead of R_T = R_C) and a constant
 * α taken from the bandit's arm instead of DCQCN's α dynamics.
 *
 * Pure functions over a small mutable record, unit-tested against AC3's trajectories. Rates in
 * bit/s.
 */

/** Increase stage: NONE before the first CNP (no timer, no byte counter), then FR, AI, HAI. */
export const Stage = { None: 0, Fr: 1, Ai: 2, Hai: 3 } as const;
export type Stage = (typeof Stage)[keyof typeof Stage];
export const STAGE_NAMES = ['none', 'fr', 'ai', 'hai'] as const;

export interface RateMachine {
  rcBps: number;
  /** Target rate; like [22], never capped (only R_C is). */
  rtBps: number;
  stage: Stage;
  /** Rate-timer and byte-counter events since the last cut. */
  tCount: number;
  bcCount: number;
  /** Bytes until the next byte-counter event. */
  bytesLeft: number;
}

export interface MachineParams {
  lineRateBps: number;
  minRateBps: number;
  rateAiBps: number;
  rateHaiBps: number;
  /** F: fast-recovery steps. */
  fastRecoveryTimes: number;
  /** B: bytes per byte-counter event (0 = no byte counter). */
  byteCounterBytes: number;
  /** T: rate-increase timer period, ns. */
  rateIncreasePeriodNs: number;
}

export function initMachine(lineRateBps: number): RateMachine {
  return { rcBps: lineRateBps, rtBps: lineRateBps, stage: Stage.None, tCount: 0, bcCount: 0, bytesLeft: 0 };
}

/** Eq. (1)-(2): R_T = β·R_C, R_C = max(R_min, (1 − α/2)·R_C); counters restart in FR. */
export function cut(m: RateMachine, alpha: number, beta: number, p: MachineParams): void {
  m.rtBps = beta * m.rcBps;
  m.rcBps = Math.max(p.minRateBps, (1 - alpha / 2) * m.rcBps);
  m.tCount = 0;
  m.bcCount = 0;
  m.bytesLeft = p.byteCounterBytes;
  m.stage = Stage.Fr;
}

function fastRecovery(m: RateMachine, p: MachineParams): void {
  m.rcBps = Math.min(p.lineRateBps, (m.rcBps + m.rtBps) / 2);
}

function additiveIncrease(m: RateMachine, p: MachineParams): void {
  m.rtBps += p.rateAiBps;
  m.rcBps = Math.min(p.lineRateBps, (m.rcBps + m.rtBps) / 2);
  m.stage = Stage.Ai;
}

function hyperIncrease(m: RateMachine, p: MachineParams): void {
  // [22]'s step index min(BC, T) − F + 1 (1 at the first HAI step, not 0).
  m.rtBps += p.rateHaiBps * (Math.min(m.bcCount, m.tCount) - p.fastRecoveryTimes + 1);
  m.rcBps = Math.min(p.lineRateBps, (m.rcBps + m.rtBps) / 2);
  m.stage = Stage.Hai;
}

function activeSelect(m: RateMachine, p: MachineParams): void {
  const f = p.fastRecoveryTimes;
  if (m.bcCount < f || m.tCount < f) additiveIncrease(m, p);
  else hyperIncrease(m, p);
}

/**
 * One rate-timer expiry. Returns the period until the next one: T, or T/2 in hyper increase
 * ([22] halves the timer there).
 */
export function timerEvent(m: RateMachine, p: MachineParams): number {
  m.tCount++;
  switch (m.stage) {
    case Stage.Fr:
      if (m.tCount < p.fastRecoveryTimes) fastRecovery(m, p);
      else activeSelect(m, p);
      return p.rateIncreasePeriodNs;
    case Stage.Ai:
      activeSelect(m, p);
      return p.rateIncreasePeriodNs;
    case Stage.Hai:
      hyperIncrease(m, p);
      return p.rateIncreasePeriodNs / 2;
    default:
      return p.rateIncreasePeriodNs;
  }
}

/** One byte-counter event ([22]: in AI the byte path always does AI; HAI halves B). */
export function byteCounterEvent(m: RateMachine, p: MachineParams): void {
  m.bcCount++;
  switch (m.stage) {
    case Stage.Fr:
      m.bytesLeft = p.byteCounterBytes;
      if (m.bcCount < p.fastRecoveryTimes) fastRecovery(m, p);
      else activeSelect(m, p);
      break;
    case Stage.Ai:
      m.bytesLeft = p.byteCounterBytes;
      additiveIncrease(m, p);
      break;
    case Stage.Hai:
      m.bytesLeft = p.byteCounterBytes / 2;
      hyperIncrease(m, p);
      break;
    default:
      break;
  }
}

/**
 * `bytes` left the NIC on this QP: counts down the byte counter (only once a CNP has started the
 * machine, as in [22]). Returns the number of byte-counter events it triggered.
 */
export function onBytesSent(m: RateMachine, bytes: number, p: MachineParams): number {
  if (m.stage === Stage.None || p.byteCounterBytes <= 0) return 0;
  m.bytesLeft -= bytes;
  let events = 0;
  // One event per crossing, as [22] checks after every packet; a huge packet cannot fire twice.
  if (m.bytesLeft < 0) {
    byteCounterEvent(m, p);
    events++;
  }
  return events;
}
