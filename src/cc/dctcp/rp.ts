/**
 * DCTCP reaction point ("Data Center TCP (DCTCP)", SIGCOMM'10) in the hardware form the HPCC
 * simulator runs on RoCE NICs (docs/algorithms/dctcp.md): starts at line
 * rate, per-ACK ECN echo (BTH.BECN), α updated once per window of data (when an ACK passes
 * the snd_nxt recorded at the previous update), at most one cut per window (CWR), +R_AI per
 * window otherwise. Sequence positions are PSNs (wrap-aware).
 */
import { PSN_MASK, psnDiff } from '../../wire/bth.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { dctcpAlpha, dctcpCut } from './machine.js';
import type { DctcpParams } from './params.js';

export interface DctcpState {
  lineRateBps: number;
  minRateBps: number;
  bdpBytes: number;
  rateBps: number;
  alpha: number;
  started: boolean;
  sent: boolean;
  firstPsn: number;
  sndNxtPsn: number;
  lastUpdatePsn: number;
  /** ACKs with an ECN echo in the current window, and its size in packets. */
  ecnCount: number;
  batchPackets: number;
  inCwr: boolean;
  highPsn: number;
  cuts: number;
}

export function initDctcp(flow: FlowInfo, p: DctcpParams): DctcpState {
  const baseRttNs = Math.max(1, p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs);
  return {
    lineRateBps: flow.lineRateBps,
    minRateBps: Math.min(p.minRateBps, flow.lineRateBps),
    bdpBytes: p.bdpBytes > 0 ? p.bdpBytes : (flow.lineRateBps * baseRttNs) / 8e9,
    rateBps: flow.lineRateBps,
    alpha: p.alpha0,
    started: false,
    sent: false,
    firstPsn: 0,
    sndNxtPsn: 0,
    lastUpdatePsn: 0,
    ecnCount: 0,
    batchPackets: 0,
    inCwr: false,
    highPsn: 0,
    cuts: 0,
  };
}

function apply(s: DctcpState, p: DctcpParams, io: RpIo, why: string): void {
  io.setRate(s.rateBps, why);
  if (p.window) io.setWindow(Math.max(1, (s.bdpBytes * s.rateBps) / s.lineRateBps), why);
}

/** An ACK; `nextPsn` is the first PSN it does not acknowledge. */
export function dctcpOnAck(s: DctcpState, nextPsn: number, ecnEcho: boolean, p: DctcpParams, io: RpIo): void {
  if (ecnEcho) s.ecnCount++;
  const newBatch = !s.started || psnDiff(nextPsn, s.lastUpdatePsn) > 0;
  if (newBatch) {
    if (!s.started) {
      s.started = true;
      s.batchPackets = psnDiff(s.sndNxtPsn, s.firstPsn) + 1;
    } else {
      s.alpha = dctcpAlpha(s.alpha, p.g, s.ecnCount, s.batchPackets);
      s.ecnCount = 0;
      s.batchPackets = psnDiff(s.sndNxtPsn, nextPsn) + 1;
    }
    s.lastUpdatePsn = s.sndNxtPsn;
  }
  if (s.inCwr && psnDiff(nextPsn, s.highPsn) > 0) s.inCwr = false;
  if (ecnEcho && !s.inCwr) {
    s.rateBps = dctcpCut(s.rateBps, s.alpha, s.minRateBps);
    s.inCwr = true;
    s.highPsn = s.sndNxtPsn;
    s.cuts++;
    apply(s, p, io, 'ecn:cut');
  } else if (!s.inCwr && newBatch && s.rateBps < s.lineRateBps) {
    s.rateBps = Math.min(s.lineRateBps, s.rateBps + p.rateAiBps);
    apply(s, p, io, 'window:ai');
  }
}

export const dctcpRp: RpAlgorithm<DctcpParams, DctcpState> = {
  features: { int: null, txTimestamp: false },
  init(flow, p, io) {
    const s = initDctcp(flow, p);
    apply(s, p, io, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'tx':
        if (!s.sent) {
          s.sent = true;
          s.firstPsn = ev.pkt.psn;
        }
        s.sndNxtPsn = (ev.pkt.psn + 1) & PSN_MASK;
        break;
      case 'ack':
        dctcpOnAck(s, (ev.pkt.psn + 1) & PSN_MASK, ev.ecnEcho, p, io);
        break;
      case 'nack':
        s.sndNxtPsn = ev.pkt.psn;
        break;
      default:
        break;
    }
  },
  inspect(s) {
    return { dctcpRateBps: s.rateBps, alpha: s.alpha, inCwr: s.inCwr ? 1 : 0, cuts: s.cuts };
  },
};
