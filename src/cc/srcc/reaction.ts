/**
 * SRCC's reaction-point rules as pure functions on DCQCN's state (SRCC §III-E, §IV;
 * docs/algorithms/srcc.md "NIC side"): the absolute rate reset on a CNM, the "hold while notified"
 * restart of the increase machinery, and the α-only update of a CNP that arrives shortly after a
 * CNM.
 */
import { alphaOnCnp } from '../dcqcn/machine.js';
import type { DcqcnParams } from '../dcqcn/params.js';
import { type DcqcnState, hpccSimAlphaAt, paperAlphaAt } from '../dcqcn/rp.js';

export interface CnmStep {
  rcBps: number;
  rtBps: number;
  /** True when the CNM lowered RC. */
  applied: boolean;
}

/**
 * A CNM only ever lowers the rate (P8: "reset" as min, which is also the multi-switch min rule),
 * never below `minRateBps`. RT becomes the pre-cut rate (fast recovery back to it) or the target.
 */
export function cnmStep(
  rcBps: number,
  rtBps: number,
  targetBps: number,
  minRateBps: number,
  rtOnCnm: 'preCut' | 'target',
): CnmStep {
  const r = Math.max(minRateBps, targetBps);
  if (!(r < rcBps)) return { rcBps, rtBps, applied: false };
  return { rcBps: r, rtBps: rtOnCnm === 'preCut' ? rcBps : r, applied: true };
}

/**
 * Restart DCQCN's increase machinery from zero (SRCC §III-E, "hold while notified"): the next increase
 * event is one timer period from now, byte and stage counters start over. Returns when the
 * rate-increase timer must fire. A pending hpcc-sim decrease check is dropped too: its CNP came
 * from the congestion this CNM already answered.
 */
export function restartIncrease(s: DcqcnState, p: DcqcnParams, nowNs: number): number {
  if (s.machine === 'paper') {
    s.timerCount = 0;
    s.byteCount = 0;
    s.bytesAcc = 0;
    s.ccActive = true;
    s.rateTimerArmed = true;
  } else {
    s.stage = 0;
    s.decreaseCnpArrived = false;
    s.increaseArmed = true;
  }
  return nowNs + p.rateIncreasePeriodNs;
}

/** A CNP inside the hold window: α moves exactly as DCQCN would move it, RC and RT do not. */
export function alphaOnlyCnp(s: DcqcnState, p: DcqcnParams, nowNs: number): void {
  if (s.machine === 'paper') {
    s.alpha = alphaOnCnp(paperAlphaAt(s, p, nowNs), p.alphaGain);
    s.alphaAnchorNs = nowNs;
    return;
  }
  if (s.firstCnp) {
    // As hpcc-sim's first CNP: α starts at alpha0 and the update grid starts here.
    s.firstCnp = false;
    s.alpha = p.alpha0;
    s.alphaCnpArrived = false;
    s.originNs = nowNs;
    s.alphaTicksDone = 0;
    return;
  }
  if (p.alphaPeriodNs > 0) {
    const due = Math.floor((nowNs - s.originNs) / p.alphaPeriodNs) - s.alphaTicksDone;
    if (due > 0) {
      s.alpha = hpccSimAlphaAt(s, p, nowNs);
      s.alphaTicksDone += due;
      s.alphaCnpArrived = false;
    }
  }
  s.alphaCnpArrived = true;
}
