/**
 * NSCC reaction point (UET 1.0 CMS "NSCC"; the reference simulator's UecSrc, uec.cpp): a window
 * of payload bytes, updated on every ACK from its ECN echo and its RTT sample (four cases,
 * machine.ts `quadrant`), with quick adapt once per base_RTT + target, at most one
 * multiplicative decrease per base RTT, and NACKs of trimmed packets. Increases accumulate and
 * reach the window every 8 MTU acknowledged or once per network RTT (fulfill_adjustment).
 * docs/algorithms/nscc.md.
 */
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import {
  boundWindow,
  fairIncrement,
  fulfilledWindow,
  maxWindowBytes,
  mdFactor,
  type NsccConstants,
  nextAvgDelay,
  nsccConstants,
  proportionalIncrement,
  quadrant,
  quickAdaptGate,
} from './machine.js';
import type { NsccParams } from './params.js';

export interface NsccState {
  k: NsccConstants;
  lineRateBps: number;
  mtuBytes: number;
  /** Receiver credits (RCCC) pace the flow: last-hop trims do not shrink the window. */
  receiverCredits: boolean;
  cwnd: number;
  /** maxwnd: 1.5 × BDP of the smallest RTT seen (update_base_rtt). */
  maxWnd: number;
  baseRttNs: number;
  /** Averaged queueing delay (update_delay), ns. */
  avgDelayNs: number;
  /** Accumulated increase, bytes² (applied as inc / cwnd). */
  inc: number;
  /** Bytes acknowledged since the last adjustment. */
  receivedBytes: number;
  /** Bytes acknowledged in the current quick-adapt window. */
  achievedBytes: number;
  /** After a quick adapt, ECN-marked feedback is ignored until this many bytes were acknowledged. */
  bytesToIgnore: number;
  bytesIgnored: number;
  /** A NACK asked for a quick-adapt check at the end of the current window. */
  triggerQa: boolean;
  /** End of the current quick-adapt window (0: none yet). */
  qaEndNs: number;
  /** Bytes acknowledged while the delay stayed below the fast-increase threshold. */
  fastBytes: number;
  fastIncreasing: boolean;
  lastDecreaseNs: number;
  lastAdjustNs: number;
  /** Window last handed to the NIC. */
  appliedWindow: number;
  stats: {
    fair: number;
    proportional: number;
    fast: number;
    eta: number;
    md: number;
    quickAdapt: number;
    nack: number;
  };
}

export function initNscc(flow: FlowInfo, p: NsccParams): NsccState {
  const mss = Math.max(1, flow.mtuBytes);
  const k = nsccConstants(p, flow.lineRateBps, mss, flow.baseRttNs);
  const baseRttNs = p.baseRttNs > 0 ? p.baseRttNs : k.networkRttNs;
  const maxWnd = Math.max(k.minWindowBytes, maxWindowBytes(baseRttNs, flow.lineRateBps, p.maxWindowBdp));
  const cwnd = boundWindow(
    p.initialWindowBytes > 0 ? p.initialWindowBytes : maxWnd,
    k.minWindowBytes,
    maxWnd,
  );
  return {
    k,
    lineRateBps: flow.lineRateBps,
    mtuBytes: mss,
    receiverCredits: flow.receiverCredits === true,
    cwnd,
    maxWnd,
    baseRttNs,
    avgDelayNs: 0,
    inc: 0,
    receivedBytes: 0,
    achievedBytes: 0,
    bytesToIgnore: 0,
    bytesIgnored: 0,
    triggerQa: false,
    qaEndNs: 0,
    fastBytes: 0,
    fastIncreasing: false,
    lastDecreaseNs: 0,
    lastAdjustNs: 0,
    appliedWindow: 0,
    stats: { fair: 0, proportional: 0, fast: 0, eta: 0, md: 0, quickAdapt: 0, nack: 0 },
  };
}

function applyWindow(s: NsccState, io: RpIo, why: string): void {
  const w = Math.max(1, Math.floor(s.cwnd));
  if (w === s.appliedWindow) return;
  s.appliedWindow = w;
  io.setWindow(w, why);
}

function bound(s: NsccState): void {
  s.cwnd = boundWindow(s.cwnd, s.k.minWindowBytes, s.maxWnd);
}

/**
 * quick_adapt: once per window of base_RTT + target, if a NACK arrived (or was asked for) or the
 * delay exceeded 4 × target, and the flow got less than maxwnd / 8 through in that window, the
 * window becomes what it achieved; then the next in-flight worth of ECN-marked feedback is
 * ignored (it was caused by the old window). Returns true when it acted or ignored the feedback.
 */
export function quickAdapt(
  s: NsccState,
  isLoss: boolean,
  ecn: boolean,
  delayNs: number,
  p: NsccParams,
  io: RpIo,
): boolean {
  if (!p.quickAdapt) return false;
  const now = io.now();
  let acted = false;
  if (s.bytesIgnored < s.bytesToIgnore && ecn) {
    acted = true;
  } else if (now > s.qaEndNs) {
    if (
      s.qaEndNs !== 0 &&
      (s.triggerQa || isLoss || delayNs > s.k.qaThresholdNs) &&
      quickAdaptGate(s.achievedBytes, s.maxWnd, p.qaGate)
    ) {
      const before = s.cwnd;
      s.cwnd = Math.max(s.achievedBytes, s.k.minWindowBytes);
      s.stats.quickAdapt += before - s.cwnd;
      s.bytesToIgnore = io.inflightBytes();
      s.bytesIgnored = 0;
      s.triggerQa = false;
      acted = true;
      io.count('nscc.quickAdapt');
    }
    s.achievedBytes = 0;
    s.qaEndNs = now + s.baseRttNs + s.k.targetNs;
  }
  if (acted) {
    s.inc = 0;
    s.receivedBytes = 0;
  }
  return acted;
}

/** fast_increase: after a whole window below ~1 µs of delay, grow by fi_scale per acked byte. */
function fastIncrease(s: NsccState, ackedBytes: number, delayNs: number, p: NsccParams): boolean {
  if (delayNs < p.fastIncreaseDelayNs) {
    s.fastBytes += ackedBytes;
    if (s.fastBytes > s.cwnd || s.fastIncreasing) {
      const add = ackedBytes * s.k.fiScale;
      s.cwnd += add;
      s.stats.fast += add;
      s.fastIncreasing = true;
      return true;
    }
  } else {
    s.fastBytes = 0;
  }
  s.fastIncreasing = false;
  return false;
}

/** multiplicative_decrease: at most once per base RTT, while the averaged delay exceeds target. */
function multiplicativeDecrease(s: NsccState, p: NsccParams, io: RpIo): void {
  s.fastIncreasing = false;
  s.fastBytes = 0;
  const now = io.now();
  if (s.avgDelayNs > s.k.targetNs && now - s.lastDecreaseNs > s.baseRttNs) {
    const before = s.cwnd;
    s.cwnd = Math.max(s.cwnd * mdFactor(s.avgDelayNs, s.k.targetNs, p.gamma, p.mdFloor), s.k.minWindowBytes);
    s.stats.md += before - s.cwnd;
    s.lastDecreaseNs = now;
    io.count('nscc.decrease');
  }
}

/** fulfill_adjustment: the accumulated increase reaches the window, plus η once per period. */
function fulfill(s: NsccState, now: number): void {
  s.cwnd = fulfilledWindow(s.cwnd, s.inc);
  if (now - s.lastAdjustNs >= s.k.adjustPeriodNs) {
    s.cwnd += s.k.eta;
    s.stats.eta += s.k.eta;
    s.lastAdjustNs = now;
  }
  s.inc = 0;
  s.receivedBytes = 0;
}

/** A valid RTT sample: finite and positive; anything else is no sample. */
function rttSample(rttNs: number | null): number | null {
  return rttNs !== null && Number.isFinite(rttNs) && rttNs > 0 ? rttNs : null;
}

function byteCount(n: number | undefined, fallback: number): number {
  return n !== undefined && Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** processAck + updateCwndOnAck_NSCC. */
export function nsccOnAck(
  s: NsccState,
  ackedBytesIn: number,
  rttIn: number | null,
  ecn: boolean,
  p: NsccParams,
  io: RpIo,
): void {
  const acked = byteCount(ackedBytesIn, 0);
  s.achievedBytes += acked;
  s.receivedBytes += acked;
  s.bytesIgnored += acked;
  const rtt = rttSample(rttIn);
  let delayNs: number;
  if (rtt === null) {
    delayNs = s.avgDelayNs;
  } else {
    if (rtt < s.baseRttNs) {
      s.baseRttNs = rtt;
      s.maxWnd = Math.max(s.k.minWindowBytes, maxWindowBytes(rtt, s.lineRateBps, p.maxWindowBdp));
    }
    delayNs = rtt - s.baseRttNs;
    s.avgDelayNs = nextAvgDelay(s.avgDelayNs, delayNs, ecn, s.k.targetNs, s.baseRttNs, p.delayEwma);
  }
  if (!quickAdapt(s, false, ecn, delayNs, p, io)) {
    switch (quadrant(ecn, delayNs, s.k.targetNs)) {
      case 'fair': {
        const d = fairIncrement(s.k.fi, acked);
        s.inc += d;
        s.stats.fair += d;
        break;
      }
      case 'proportional':
        if (!fastIncrease(s, acked, delayNs, p)) {
          const d = proportionalIncrement(s.k.alpha, acked, s.k.targetNs, delayNs);
          s.inc += d;
          s.stats.proportional += d;
        }
        break;
      case 'decrease':
        multiplicativeDecrease(s, p, io);
        break;
      case 'hold':
        break;
    }
    bound(s);
    const now = io.now();
    if (s.receivedBytes > s.k.adjustBytes || now - s.lastAdjustNs > s.k.adjustPeriodNs) fulfill(s, now);
    bound(s);
  }
  applyWindow(s, io, ecn ? 'ack:ecn' : 'ack');
}

/** processNack + updateCwndOnNack_NSCC, for a trimmed packet of `bytes`. */
export function nsccOnNack(s: NsccState, bytesIn: number, lastHop: boolean, p: NsccParams, io: RpIo): void {
  const bytes = byteCount(bytesIn, s.mtuBytes);
  s.bytesIgnored += bytes;
  s.stats.nack += bytes;
  // The trim threshold is about one network RTT of queue: feed that as the delay sample.
  s.avgDelayNs = nextAvgDelay(s.avgDelayNs, s.k.networkRttNs, true, s.k.targetNs, s.baseRttNs, p.delayEwma);
  s.triggerQa = true;
  if (!quickAdapt(s, true, true, 0, p, io) && !(s.receiverCredits && lastHop)) {
    s.cwnd -= bytes;
    bound(s);
  }
  applyWindow(s, io, 'nack');
}

/** rtxTimerExpired → mark_packet_for_retransmission: one packet less, not below one MTU. */
export function nsccOnTimeout(s: NsccState, io: RpIo): void {
  s.cwnd = Math.max(s.cwnd - s.mtuBytes, s.mtuBytes);
  applyWindow(s, io, 'timeout');
}

export const nsccRp: RpAlgorithm<NsccParams, NsccState> = {
  features: { int: null, txTimestamp: true },
  init(flow, p, io) {
    const s = initNscc(flow, p);
    io.setRate(flow.lineRateBps, 'init');
    applyWindow(s, io, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'ack':
        nsccOnAck(s, ev.ackedBytes, ev.rttNs, ev.ecnEcho, p, io);
        break;
      case 'nack':
        // A trimmed packet that was already resent or acknowledged (nackedBytes 0) tells
        // nothing new: the reference drops such NACKs before its window update (processNack).
        if (ev.subtype === 'trim' && ev.nackedBytes === 0) break;
        nsccOnNack(s, ev.nackedBytes ?? s.mtuBytes, ev.lastHop === true, p, io);
        break;
      case 'timeout':
        nsccOnTimeout(s, io);
        break;
      default:
        break;
    }
  },
  inspect(s) {
    return {
      cwndBytes: s.cwnd,
      maxWndBytes: s.maxWnd,
      baseRttNs: s.baseRttNs,
      avgDelayNs: s.avgDelayNs,
      targetNs: s.k.targetNs,
    };
  },
};
