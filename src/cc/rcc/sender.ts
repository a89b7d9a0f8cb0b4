/**
 * RCC-sender (RCC paper §III-G; docs/algorithms/rcc.md "RCC-sender"): the variant for unsynchronised clocks.
 * The receiver keeps only N and the RX-rate estimator and feeds them back on every ACK (ext.fields rccN,
 * rccRxFull, next to the NIC's timestamp echo); the sender runs the same Alg. 1 decisions on each ACK with
 * the measured RTT in place of the one-way delay, and the PID step on its own timer.
 */
import { isMessageEnd, isMessageStart } from '../../wire/opcodes.js';
import { createExt } from '../../wire/packet-factory.js';
import type { FlowInfo, NpAlgorithm, RpAlgorithm, RpEvent } from '../types.js';
import {
  type DecideConfig,
  decideWindow,
  type FlowCtl,
  fairShareBytes,
  newFlowCtl,
  pidUpdate,
  recordSample,
  resetFlowCtl,
} from './control.js';
import { clockErrorNs, decideConfig, floorBytesOf, PID_TIMER } from './np.js';
import type { RccParams } from './params.js';
import { adoptWindow, initRccRp, type RccRpState } from './rp.js';
import { RxRateEstimator } from './rx-rate.js';

/** Bytes per link the RCC-sender frames add to the path RTT's MTU frame and ACK (TS, echo, 2 fields). */
const SENDER_EXT_BYTES = 8 + 8 + 2 * 4;

export const FIELD_N = 'rccN';
export const FIELD_RX_FULL = 'rccRxFull';

/** The `rccRxFull` value: 0 not full, 1 full (Alg. 1 line 10), 2 also by RxRateEstimator.lastHopShared. */
export function rxFullValue(rx: RxRateEstimator, nowNs: number, p: RccParams): number {
  const k = Math.max(1, p.consecutiveSamples);
  if (!rx.lastHopFull(nowNs, k)) return 0;
  return rx.lastHopShared(nowNs, k) ? 2 : 1;
}

interface SenderNicState {
  n: number;
  rx: RxRateEstimator | null;
}

interface SenderNpQp {
  active: boolean;
}

/** Receiver side of RCC-sender: N and B_R only (paper §III-G). */
export const rccSenderNp: NpAlgorithm<RccParams, SenderNicState, SenderNpQp> = {
  initNic: () => ({ n: 0, rx: null }),
  initQp(flow, p, nic) {
    const sampleNs = Math.max(1, p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs);
    if (nic.rx === null || (p.baseRttNs === 0 && sampleNs < nic.rx.sampleNs))
      nic.rx = new RxRateEstimator(sampleNs, (p.eta * flow.lineRateBps) / 8e9, p.rxEstimator);
    return { active: false };
  },
  onData(q, nic, pkt, _p, io) {
    nic.rx!.onBytes(io.now(), pkt.sizeBytes, pkt.destQp);
    const end = isMessageEnd(pkt.opcode);
    if (!q.active && !end && isMessageStart(pkt.opcode)) {
      q.active = true;
      nic.n++;
    }
    if (end && q.active) {
      q.active = false;
      nic.n = Math.max(0, nic.n - 1);
    }
  },
  decorateAck(_q, nic, ack, p, io) {
    ack.ext ??= createExt();
    ack.ext.fields = {
      [FIELD_N]: nic.n,
      // 1: the last hop is full (Alg. 1 line 10's test, classification); 2: full in the sense of
      // lastHopShared too (marks the sample for pidLastHop hold; see control.ts decideWindow).
      [FIELD_RX_FULL]: rxFullValue(nic.rx!, io.now(), p),
    };
  },
  inspect(q, nic) {
    return { rccActive: q.active ? 1 : 0, rccN: nic.n };
  },
};

export interface RccSenderState extends RccRpState {
  ctl: FlowCtl;
  cfg: DecideConfig;
  configuredBaseNs: number;
  floorBytes: number;
  lastN: number;
  fairShare: number;
}

/** Unloaded RTT of an RCC-sender data frame and its ACK (the path RTT plus the extensions). */
export function configuredBaseRttNs(flow: FlowInfo): number {
  if (!(flow.baseRttNs > 0) || !(flow.lineRateBps > 0)) return Number.NaN;
  return flow.baseRttNs + ((flow.hops + 1) * SENDER_EXT_BYTES * 8e9) / flow.lineRateBps;
}

export const rccSenderRp: RpAlgorithm<RccParams, RccSenderState> = {
  features: { int: null, txTimestamp: true },
  init(flow, p, io) {
    const base = initRccRp(flow, p, io);
    const configured = p.baseMode === 'min' ? Number.NaN : configuredBaseRttNs(flow);
    return {
      ...base,
      ctl: newFlowCtl(base.windowBytes, Number.isNaN(configured) ? Number.POSITIVE_INFINITY : configured),
      cfg: decideConfig(p),
      configuredBaseNs: configured,
      floorBytes: floorBytesOf(flow, p),
      lastN: 1,
      fairShare: (p.fairShareEta ? p.eta : 1) * base.eff,
    };
  },
  onEvent(s, ev: RpEvent, p, io) {
    const c = s.ctl;
    if (ev.type === 'tx') {
      if (isMessageStart(ev.pkt.opcode) && !ev.retransmit) {
        resetFlowCtl(c);
        io.cancelTimer(PID_TIMER);
      }
      return;
    }
    if (ev.type === 'timer') {
      if (ev.slot !== PID_TIMER || !c.inPid) return;
      io.setTimer(PID_TIMER, io.now() + s.tFairNs);
      const cap =
        p.control === 'pid'
          ? fairShareBytes(s.lineRateBps, s.tFairNs, 1, s.eff)
          : fairShareBytes(s.lineRateBps, s.tFairNs, s.lastN, s.fairShare);
      pidUpdate(c, cap, s.floorBytes, s.tFairNs, s.cfg);
      return;
    }
    if (ev.type !== 'ack') return;
    const f = ev.pkt.ext?.fields ?? null;
    const now = io.now();
    if (ev.rttNs !== null) {
      const rttNs = ev.rttNs + clockErrorNs(p, now, io);
      if (Number.isNaN(s.configuredBaseNs) && rttNs < c.baseNs) c.baseNs = rttNs;
      recordSample(c, rttNs, s.tFairNs, s.cfg);
    }
    // The sender's line rate stands in for the receiver's NIC speed C ([OURS], docs/algorithms/rcc.md
    // "RCC-sender").
    s.lastN = Math.max(1, f?.[FIELD_N] ?? s.lastN);
    const fullValue = f?.[FIELD_RX_FULL] ?? 0;
    const full = fullValue >= 1;
    const fair = fairShareBytes(s.lineRateBps, s.tFairNs, s.lastN, s.fairShare);
    const bdp = fairShareBytes(s.lineRateBps, s.tFairNs, 1, s.eff);
    if (decideWindow(c, now, fair, bdp, s.floorBytes, full, s.tFairNs, s.cfg, fullValue === 2)) {
      io.count('rccPidEntries');
      if (p.pidStep === 'rtt') io.setTimer(PID_TIMER, now + s.tFairNs);
    }
    if (Math.round(c.cwndBytes) !== Math.round(s.windowBytes))
      adoptWindow(s, Math.round(c.cwndBytes), p, io, 'ack:window');
  },
  inspect(s) {
    const c = s.ctl;
    return {
      rccInPid: c.inPid ? 1 : 0,
      rccPidEntryNs: Number.isFinite(c.pidEntryNs) ? c.pidEntryNs : -1,
      rccClass: c.cls,
      rccCwndBytes: c.cwndBytes,
      rccU: c.u,
      rccBaseRttNs: Number.isFinite(c.baseNs) ? c.baseNs : -1,
      rccAckN: s.lastN,
    };
  },
};
