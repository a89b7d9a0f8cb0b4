/**
 * RCC's sender (reaction point; Zhang et al., IEEE/ACM ToN 31(1) 2023, docs/algorithms/rcc.md):
 * it starts at line rate with one BDP of window,
 * stamps every data packet with its send time (RCC-TS, taken when the packet leaves the pacer),
 * adopts the window each ACK carries and paces at cwnd/T_fair. All the control is at the
 * receiver (np.ts).
 */
import { PSN_MASK, psnDiff } from '../../wire/bth.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { baseRttOf, fairTimeNs, payloadEfficiency } from './np.js';
import type { RccParams } from './params.js';

export interface RccRpState {
  lineRateBps: number;
  tFairNs: number;
  /** Payload share of a full data frame (np.ts payloadEfficiency). */
  eff: number;
  windowBytes: number;
  /** Newest PSN an ACK/NAK told us about, so a late one cannot undo a newer assignment. */
  lastFeedbackPsn: number;
  seenFeedback: boolean;
  assignments: number;
}

/** Window (payload bytes) → wire pacing rate W/(T·eff) (HPCC-style W/T), never above line rate. */
export function pacingRateBps(
  windowBytes: number,
  tFairNs: number,
  eff: number,
  lineRateBps: number,
): number {
  return Math.min(lineRateBps, (windowBytes * 8e9) / (tFairNs * eff));
}

export function initRccRp(flow: FlowInfo, p: RccParams, io: RpIo): RccRpState {
  const eff = payloadEfficiency(flow.mtuBytes);
  const s: RccRpState = {
    lineRateBps: flow.lineRateBps,
    tFairNs: fairTimeNs(flow, p),
    eff,
    // W_init: one BDP of frames ("each flow starts at line rate", §III-B).
    windowBytes: (flow.lineRateBps * baseRttOf(flow, p) * eff) / 8e9,
    lastFeedbackPsn: 0,
    seenFeedback: false,
    assignments: 0,
  };
  io.setRate(flow.lineRateBps, 'init');
  io.setWindow(s.windowBytes, 'init');
  return s;
}

/** Adopt a receiver-assigned window (absolute assignment, every ACK). */
export function adoptWindow(s: RccRpState, windowBytes: number, p: RccParams, io: RpIo, why: string): void {
  s.windowBytes = windowBytes;
  s.assignments++;
  io.setWindow(windowBytes, why);
  if (p.pacing) io.setRate(pacingRateBps(windowBytes, s.tFairNs, s.eff, s.lineRateBps), why);
}

function feedback(s: RccRpState, psn: number): boolean {
  if (s.seenFeedback && psnDiff(psn, s.lastFeedbackPsn) < 0) return false;
  s.seenFeedback = true;
  s.lastFeedbackPsn = psn & PSN_MASK;
  return true;
}

export const rccRp: RpAlgorithm<RccParams, RccRpState> = {
  features: { int: null, txTimestamp: true },
  init: initRccRp,
  onEvent(s, ev: RpEvent, p, io) {
    if (ev.type !== 'ack' && ev.type !== 'nack') return;
    const w = ev.pkt.ext?.windowBytes ?? null;
    if (w === null) return;
    // An ACK names the newest PSN it covers, a NAK the one expected next.
    const psn = ev.type === 'ack' ? ev.pkt.psn : (ev.pkt.psn - 1) & PSN_MASK;
    if (!feedback(s, psn)) return;
    adoptWindow(s, w, p, io, ev.type === 'ack' ? 'ack:window' : 'nak:window');
  },
  inspect(s) {
    return { rccAssignedWindowBytes: s.windowBytes, rccAssignments: s.assignments, rccTFairNs: s.tFairNs };
  },
};
