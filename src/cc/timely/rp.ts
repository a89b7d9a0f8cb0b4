/**
 * TIMELY reaction point ("TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM'15,
 * as the HPCC ns-3 simulator implements it; docs/algorithms/timely.md): one update per RTT, taken on the first ACK that
 * covers data sent after the previous update; RTT = now − the data packet's send timestamp
 * (echoed by the receiver). The simulator writes the rate directly (no window unless
 * `window`, the timely_vwin preset).
 */
import { PSN_MASK, psnDiff } from '../../wire/bth.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { rttGradient, type TimelyConfig, timelyUpdate } from './machine.js';
import type { TimelyParams } from './params.js';

export interface TimelyState {
  cfg: TimelyConfig;
  bdpBytes: number;
  rcBps: number;
  stage: number;
  /** The first qualifying ACK has been seen (the simulator's lastUpdateSeq ≠ 0). */
  started: boolean;
  lastUpdatePsn: number;
  sndNxtPsn: number;
  prevRttNs: number;
  rttDiffNs: number;
  gradient: number;
  updates: number;
}

export function initTimely(flow: FlowInfo, p: TimelyParams): TimelyState {
  const scale = p.stepScaleRefBps > 0 ? flow.lineRateBps / p.stepScaleRefBps : 1;
  const baseRttNs = Math.max(1, p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs);
  return {
    cfg: {
      beta: p.beta,
      tLowNs: p.tLowNs,
      tHighNs: p.tHighNs,
      rateAiBps: p.rateAiBps * scale,
      rateHaiBps: p.rateHaiBps * scale,
      haiThreshold: p.haiThreshold,
      haiMode: p.haiMode,
      minRateBps: Math.min(p.minRateBps, flow.lineRateBps),
      lineRateBps: flow.lineRateBps,
    },
    bdpBytes: p.bdpBytes > 0 ? p.bdpBytes : (flow.lineRateBps * baseRttNs) / 8e9,
    rcBps: flow.lineRateBps,
    stage: 0,
    started: false,
    lastUpdatePsn: 0,
    sndNxtPsn: 0,
    prevRttNs: 0,
    rttDiffNs: 0,
    gradient: 0,
    updates: 0,
  };
}

/** An ACK with an RTT sample; `nextPsn` is the first PSN it does not acknowledge. */
export function timelyOnAck(s: TimelyState, nextPsn: number, rttNs: number, p: TimelyParams, io: RpIo): void {
  if (s.started && psnDiff(nextPsn, s.lastUpdatePsn) <= 0) return;
  if (s.started) {
    const g = rttGradient(s.rttDiffNs, rttNs, s.prevRttNs, p.alpha, p.minRttNs);
    const step = timelyUpdate(s.rcBps, s.stage, rttNs, g.gradient, s.cfg);
    s.rttDiffNs = g.rttDiffNs;
    s.gradient = g.gradient;
    s.rcBps = step.rateBps;
    s.stage = step.stage;
    s.updates++;
    io.setRate(s.rcBps, `rtt:${step.branch}`);
    if (p.window) io.setWindow(Math.max(1, (s.bdpBytes * s.rcBps) / s.cfg.lineRateBps), `rtt:${step.branch}`);
  }
  s.started = true;
  s.lastUpdatePsn = s.sndNxtPsn;
  s.prevRttNs = rttNs;
}

export const timelyRp: RpAlgorithm<TimelyParams, TimelyState> = {
  features: { int: null, txTimestamp: true },
  init(flow, p, io) {
    const s = initTimely(flow, p);
    io.setRate(s.rcBps, 'init');
    if (p.window) io.setWindow(s.bdpBytes, 'init');
    return s;
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'tx':
        s.sndNxtPsn = (ev.pkt.psn + 1) & PSN_MASK;
        break;
      case 'ack':
        if (ev.rttNs !== null) timelyOnAck(s, (ev.pkt.psn + 1) & PSN_MASK, ev.rttNs, p, io);
        break;
      case 'nack':
        s.sndNxtPsn = ev.pkt.psn;
        break;
      default:
        break;
    }
  },
  inspect(s) {
    return { rcBps: s.rcBps, stage: s.stage, rttDiffNs: s.rttDiffNs, gradient: s.gradient };
  },
};
