/**
 * RCC's control law as small pure functions (RCC paper eqs. (1)-(5) and Algorithm 1; docs/algorithms/rcc.md
 * "Equations"), shared by the receiver-side NP (np.ts) and the RCC-sender variant (sender.ts). Times are
 * integer ns in the event loop and seconds only inside eqs. (3)-(5) (docs/algorithms/rcc.md "Equations");
 * windows are payload bytes.
 */

export type ScaleFunction = 'S0' | 'S1' | 'S2';
export type DelayRef = 'owd' | 'rtt_equiv';

/** Congestion class of a message, as our logs name it (docs/algorithms/rcc.md "Logging"). */
export const CongestionClass = { None: 0, LastHop: 1, InNetwork: 2 } as const;
export type CongestionClass = (typeof CongestionClass)[keyof typeof CongestionClass];

/** Eq. (1) threshold: base·(1+δ) (delay_ref owd) or base + δ·T (rtt_equiv, P1). */
export function congestionThresholdNs(baseNs: number, delta: number, ref: DelayRef, tFairNs: number): number {
  return ref === 'owd' ? baseNs * (1 + delta) : baseNs + delta * tFairNs;
}

/** Eq. (2) target: base·(1+δ/2) (owd) or base + δ/2·T (rtt_equiv). */
export function targetDelayNs(baseNs: number, delta: number, ref: DelayRef, tFairNs: number): number {
  return congestionThresholdNs(baseNs, delta / 2, ref, tFairNs);
}

/**
 * EWA (§III-D): the window that moves rate C/N in time T, bytes. `share` is 1, or η when the
 * fair share is η-scaled (P10).
 */
export function fairShareBytes(lineRateBps: number, timeNs: number, n: number, share = 1): number {
  return (lineRateBps * timeNs * share) / 8e9 / Math.max(n, 1);
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** Eq. (5)'s multiplier S(U): S0 = 1 − tanh U (paper), S1 = 1 − σ(U), S2 = 2 − 2σ(U) (§V-D-3). */
export function windowScale(u: number, fn: ScaleFunction): number {
  if (fn === 'S0') return 1 - Math.tanh(u);
  if (fn === 'S1') return 1 - sigmoid(u);
  return 2 - 2 * sigmoid(u);
}

export interface PidConfig {
  kpPerS: number;
  kdPerS: number;
  uMode: 'eq4' | 'pd';
  antiWindup: boolean;
  scaleFunction: ScaleFunction;
}

export interface PidStepResult {
  /** U after the step (0 if anti-windup reset it). */
  u: number;
  /** E(t), seconds. */
  errorS: number;
  windowBytes: number;
  /** Which clamp bound, if any. */
  clamp: 'cap' | 'floor' | null;
  /** Anti-windup reset U this step. */
  unwound: boolean;
}

/**
 * One step of eqs. (3)-(5): E = delay − target; U = [U(t−1)] + Kp·E + Kd·(E − E(t−1));
 * W = W(t−1)·S(U), clamped to [floor, cap]. With anti-windup U is reset to 0 when the clamp
 * binds in the direction U pushes (P4 in docs/algorithms/rcc.md).
 */
export function pidStep(
  uPrev: number,
  errorPrevS: number,
  windowPrevBytes: number,
  delayNs: number,
  targetNs: number,
  capBytes: number,
  floorBytes: number,
  c: PidConfig,
): PidStepResult {
  const errorS = (delayNs - targetNs) * 1e-9;
  let u = (c.uMode === 'eq4' ? uPrev : 0) + c.kpPerS * errorS + c.kdPerS * (errorS - errorPrevS);
  const raw = windowPrevBytes * windowScale(u, c.scaleFunction);
  const hi = Math.max(capBytes, floorBytes);
  let windowBytes = raw;
  let clamp: PidStepResult['clamp'] = null;
  if (!(windowBytes < hi)) {
    windowBytes = hi;
    clamp = 'cap';
  }
  if (!(windowBytes > floorBytes)) {
    windowBytes = floorBytes;
    clamp = 'floor';
  }
  let unwound = false;
  if (c.antiWindup && ((clamp === 'cap' && u < 0) || (clamp === 'floor' && u > 0))) {
    u = 0;
    unwound = true;
  }
  return { u, errorS, windowBytes, clamp, unwound };
}

/** Per-flow (per-message) controller state: the paper's Table I receiver fields plus ours. */
export interface FlowCtl {
  /** Base delay (OWD, or RTT for RCC-sender), ns; +∞ until known. */
  baseNs: number;
  lastDelayNs: number;
  /** A delay sample arrived since the last PID step. */
  newSample: boolean;
  /** Consecutive samples above the eq. (1) threshold. */
  consec: number;
  inPid: boolean;
  u: number;
  errorPrevS: number;
  wPidBytes: number;
  /** Window assigned by the latest sample (what ACKs carry). */
  cwndBytes: number;
  /** When the current message entered PID, ns (NaN: it did not). */
  pidEntryNs: number;
  cls: CongestionClass;
  pidSteps: number;
  unwinds: number;
  /** The latest sample arrived while the receiver's last hop was full (Alg. 1 line 10 held). */
  lastHopSample: boolean;
  /** PID steps held because their sample was a last-hop one (pidLastHop hold). */
  holds: number;
}

export function newFlowCtl(initialWindowBytes: number, baseNs: number): FlowCtl {
  return {
    baseNs,
    lastDelayNs: Number.NaN,
    newSample: false,
    consec: 0,
    inPid: false,
    u: 0,
    errorPrevS: 0,
    wPidBytes: initialWindowBytes,
    cwndBytes: initialWindowBytes,
    pidEntryNs: Number.NaN,
    cls: CongestionClass.None,
    pidSteps: 0,
    unwinds: 0,
    lastHopSample: false,
    holds: 0,
  };
}

/** Back to the non-PID state (a new message starts clean). */
export function resetFlowCtl(f: FlowCtl): void {
  f.inPid = false;
  f.u = 0;
  f.errorPrevS = 0;
  f.consec = 0;
  f.newSample = false;
  f.pidEntryNs = Number.NaN;
  f.cls = CongestionClass.None;
}

export interface DecideConfig {
  delta: number;
  delayRef: DelayRef;
  consecutiveSamples: number;
  control: 'full' | 'pid' | 'ewa';
  pidStep: 'rtt' | 'packet';
  pidEntryEprev: 'zero' | 'current';
  antiWindupMode: 'u' | 'restart';
  /**
   * A flow in PID whose latest sample arrived while its receiver's last hop was full: `step` =
   * Alg. 1 literal (sticky PID steps on it); `hold` [OURS] = no eq. (4)/(5) step on that sample
   * (the delay is last-hop queueing, which the EWA cap resolves), E(t−1) keeps the last
   * in-network sample. Only under control `full`: RCC-PID has no EWA to divide with.
   */
  pidLastHop: 'hold' | 'step';
  pid: PidConfig;
}

/** Record one delay sample: update the eq. (1) counter (every sample, Algorithm 1). */
export function recordSample(f: FlowCtl, delayNs: number, tFairNs: number, c: DecideConfig): void {
  f.lastDelayNs = delayNs;
  f.newSample = true;
  if (!Number.isFinite(f.baseNs)) {
    f.consec = 0;
    return;
  }
  f.consec = delayNs > congestionThresholdNs(f.baseNs, c.delta, c.delayRef, tFairNs) ? f.consec + 1 : 0;
}

/**
 * Alg. 1 lines 5-17 after the sample was recorded: the window this packet's ACK carries.
 * `fairBytes` is the EWA share C·T/N; `bdpBytes` the RCC-PID ablation's cap C·T.
 * `lastHopFull` classifies (Alg. 1 line 10); `lastHopRound` (RxRateEstimator.lastHopShared: B_R
 * over the last round, or line-rate arrivals of several flows, not a burst of one flow's own
 * packets) marks the sample for pidLastHop hold.
 * Returns true when the flow entered PID on this packet (the caller arms the step timer).
 */
export function decideWindow(
  f: FlowCtl,
  nowNs: number,
  fairBytes: number,
  bdpBytes: number,
  floorBytes: number,
  lastHopFull: boolean,
  tFairNs: number,
  c: DecideConfig,
  lastHopRound = lastHopFull,
): boolean {
  const cap = c.control === 'pid' ? bdpBytes : fairBytes;
  f.lastHopSample = lastHopRound;
  let entered = false;
  let cw: number;
  if (c.control === 'ewa') {
    cw = fairBytes;
    if (lastHopFull && f.consec >= c.consecutiveSamples) f.cls = CongestionClass.LastHop;
  } else if (f.inPid) {
    if (c.pidStep === 'packet') pidUpdate(f, cap, floorBytes, tFairNs, c);
    cw = Math.min(f.wPidBytes, cap);
  } else if (c.control === 'full' && lastHopFull) {
    cw = fairBytes;
    if (f.consec >= c.consecutiveSamples) f.cls = CongestionClass.LastHop;
  } else if (f.consec >= c.consecutiveSamples) {
    enterPid(f, nowNs, cap, tFairNs, c);
    if (c.pidStep === 'packet') pidUpdate(f, cap, floorBytes, tFairNs, c);
    entered = true;
    cw = Math.min(f.wPidBytes, cap);
  } else {
    cw = cap;
  }
  f.cwndBytes = Math.max(cw, floorBytes);
  return entered;
}

export function enterPid(
  f: FlowCtl,
  nowNs: number,
  capBytes: number,
  tFairNs: number,
  c: DecideConfig,
): void {
  f.inPid = true;
  f.pidEntryNs = nowNs;
  f.cls = CongestionClass.InNetwork;
  f.u = 0;
  f.errorPrevS =
    c.pidEntryEprev === 'current' && Number.isFinite(f.baseNs)
      ? (f.lastDelayNs - targetDelayNs(f.baseNs, c.delta, c.delayRef, tFairNs)) * 1e-9
      : 0;
  f.wPidBytes = Math.min(f.cwndBytes, capBytes);
  // The sample that triggered entry is the PID's first input only in per-packet mode.
  f.newSample = c.pidStep === 'packet';
}

/** One eq. (4)/(5) step from the latest sample (timer or per-packet); no-op without a fresh sample. */
export function pidUpdate(
  f: FlowCtl,
  capBytes: number,
  floorBytes: number,
  tFairNs: number,
  c: DecideConfig,
): void {
  if (!f.newSample || !Number.isFinite(f.baseNs)) return;
  f.newSample = false;
  const target = targetDelayNs(f.baseNs, c.delta, c.delayRef, tFairNs);
  const r = pidStep(f.u, f.errorPrevS, f.wPidBytes, f.lastDelayNs, target, capBytes, floorBytes, c.pid);
  if (c.pidLastHop === 'hold' && c.control === 'full' && f.lastHopSample && r.windowBytes < f.wPidBytes) {
    // A sample taken while the last hop is full cannot tell last-hop from in-network queueing,
    // so it is no evidence for a decrease: EWA's cap is what resolves the last hop.
    f.holds++;
    return;
  }
  f.u = r.u;
  f.errorPrevS = r.errorS;
  f.wPidBytes = r.windowBytes;
  f.pidSteps++;
  if (r.unwound) {
    f.unwinds++;
    // 'restart': as at PID entry, so the derivative of the stale error that drove the window
    // into the clamp does not kick U the other way on the next step.
    if (c.antiWindupMode === 'restart') f.errorPrevS = 0;
  }
}
