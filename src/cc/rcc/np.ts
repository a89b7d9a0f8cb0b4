/**
 * RCC's receiver (notification point): it does all of the control (RCC paper Algorithm 1). Per receiver NIC
 * it counts the active messages N from BTH first/last opcodes and estimates the last-hop RX rate;
 * per connection it measures the one-way delay from the sender's timestamp, classifies
 * congestion (Alg. 1) and assigns the window every ACK carries (PacketExt.windowBytes).
 */
import { isMessageEnd, isMessageStart } from '../../wire/opcodes.js';
import type { Packet } from '../../wire/packet.js';
import { createExt } from '../../wire/packet-factory.js';
import { padBytes, ROCE_FIXED_BYTES } from '../../wire/size.js';
import type { FlowInfo, NpAlgorithm, NpIo } from '../types.js';
import {
  CongestionClass,
  type DecideConfig,
  decideWindow,
  type FlowCtl,
  fairShareBytes,
  newFlowCtl,
  pidUpdate,
  recordSample,
  resetFlowCtl,
} from './control.js';
import type { RccParams } from './params.js';
import { RxRateEstimator } from './rx-rate.js';

export const PID_TIMER = 0;
export const IDLE_TIMER = 1;

/** The ACK frame the path RTT of QpPathInfo charges per link (topology/path.ts). */
const RTT_ACK_BYTES = 66;
/** The RCC-TS extension every RCC data packet carries (docs/wire.md §3 Geneve options, type 0x10). */
const TS_EXT_BYTES = 8;

/** Bytes on the link of a full-size RCC data frame (headers, ICRC, FCS, timestamp). */
export function dataFrameBytes(mtuBytes: number): number {
  return mtuBytes + ROCE_FIXED_BYTES + padBytes(mtuBytes) + TS_EXT_BYTES;
}

/**
 * Payload share of a full-size data frame. Windows count payload bytes while C counts frames on
 * the link, so a window that moves rate C/N in time T is C·T·eff/N payload bytes, and a window
 * W is paced at W/(T·eff) on the wire [OURS; without it every window overshoots by the headers
 * (7 % at 1000 B) and a queue, once formed, never drains].
 */
export function payloadEfficiency(mtuBytes: number): number {
  return mtuBytes / dataFrameBytes(mtuBytes);
}

/** Per receiver NIC (one per parameter set): N and the RX-rate estimator (paper Table I). */
export interface RccNicState {
  n: number;
  /** Created with the first QP, which tells the NIC speed C. */
  rx: RxRateEstimator | null;
  lineRateBps: number;
  messages: number;
  pidMessages: number;
}

export interface RccQpState {
  ctl: FlowCtl;
  cfg: DecideConfig;
  lineRateBps: number;
  mtuBytes: number;
  tFairNs: number;
  floorBytes: number;
  /** Multiplier of C·T/N: the payload efficiency, times η under fair_share_eta. */
  fairShare: number;
  eff: number;
  /** Base OWD from the topology (NaN: not known, min-track). */
  configuredBaseNs: number;
  active: boolean;
  lastRxNs: number;
  idleArmed: boolean;
  msgStartNs: number;
  // The latest message that ended, for inspection after the fact.
  lastMsgClass: CongestionClass;
  lastMsgPidEntryNs: number;
  lastMsgStartNs: number;
  lastMsgEndNs: number;
  messages: number;
  pidMessages: number;
  samples: number;
}

export function decideConfig(p: RccParams): DecideConfig {
  return {
    delta: p.delta,
    delayRef: p.delayRef,
    consecutiveSamples: Math.max(1, p.consecutiveSamples),
    control: p.control,
    pidStep: p.pidStep,
    pidEntryEprev: p.pidEntryEprev,
    antiWindupMode: p.antiWindupMode,
    pidLastHop: p.pidLastHop,
    pid: {
      kpPerS: p.kpPerS,
      kdPerS: p.kdPerS,
      uMode: p.uMode,
      antiWindup: p.antiWindup,
      scaleFunction: p.scaleFunction,
    },
  };
}

/** T_base: the configured global base RTT, else the flow's own. */
export function baseRttOf(flow: FlowInfo, p: RccParams): number {
  return p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs;
}

/**
 * T_fair ([OURS] P11 in docs/algorithms/rcc.md "Parameters"): the connection's base RTT capped at T_base (or
 * T_base itself under fair_time global). Also the PID step period and the sender's pacing time.
 */
export function fairTimeNs(flow: FlowInfo, p: RccParams): number {
  const own = flow.baseRttNs > 0 ? flow.baseRttNs : p.baseRttNs;
  if (p.fairTime === 'global' && p.baseRttNs > 0) return p.baseRttNs;
  return Math.max(1, p.baseRttNs > 0 ? Math.min(own, p.baseRttNs) : own);
}

/**
 * One-way delay of a full-size RCC data packet on the unloaded path: propagation plus its
 * serialisation (data frame + timestamp) on every link. Runtimes that give only the path RTT
 * (RTT = 2·prop + Σ (data + ACK frame)·8/rate) get the equal-link-rate reading of it, a slight
 * over-estimate on paths with faster fabric links (under 0.1 µs at 100/400 G).
 */
export function configuredBaseOwdNs(flow: FlowInfo): number {
  const frameBytes = dataFrameBytes(flow.mtuBytes);
  const rates = flow.linkRatesBps;
  if (rates !== undefined && rates.length > 0 && flow.propDelayNs !== undefined) {
    let serNs = 0;
    for (const r of rates) serNs += (frameBytes * 8e9) / r;
    return flow.propDelayNs + serNs;
  }
  if (!(flow.baseRttNs > 0) || !(flow.lineRateBps > 0)) return Number.NaN;
  const links = flow.hops + 1;
  const nsPerByte = 8e9 / flow.lineRateBps;
  const rttDataBytes = frameBytes - TS_EXT_BYTES;
  const propNs = (flow.baseRttNs - links * (rttDataBytes + RTT_ACK_BYTES) * nsPerByte) / 2;
  if (!(propNs >= 0)) return Number.NaN;
  return propNs + links * frameBytes * nsPerByte;
}

export function floorBytesOf(flow: FlowInfo, p: RccParams): number {
  return p.minWindowBytes > 0 ? p.minWindowBytes : flow.mtuBytes;
}

/**
 * The clock error an "async" run adds to a delay sample (docs/algorithms/rcc.md "Parameters": offset, drift,
 * jitter).
 */
export function clockErrorNs(p: RccParams, nowNs: number, io: { rng: { next(): number } }): number {
  let e = p.clockOffsetNs;
  if (p.clockDriftPpm !== 0) e += p.clockDriftPpm * 1e-6 * nowNs;
  if (p.owdJitterNs > 0) e += (2 * io.rng.next() - 1) * p.owdJitterNs;
  return e;
}

function isBaseEligible(pkt: Packet, mtuBytes: number): boolean {
  return pkt.payloadLen >= mtuBytes;
}

function ensureRx(nic: RccNicState, flow: FlowInfo, p: RccParams): void {
  const sampleNs = p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs;
  if (nic.rx !== null && (p.baseRttNs > 0 || nic.rx.sampleNs <= sampleNs)) return;
  // T_s = min over connections of the base RTT (§III-C) unless T_base is configured.
  nic.lineRateBps = flow.lineRateBps;
  nic.rx = new RxRateEstimator(Math.max(1, sampleNs), (p.eta * flow.lineRateBps) / 8e9, p.rxEstimator);
}

/**
 * idle_timeout: `idleTimeoutRtts` round trips, where a round trip is T_fair plus the queueing
 * delay the flow's latest packet met. A flow behind a deep last-hop queue (an incast's first
 * windows) legitimately sends nothing for as long as the queue takes to drain; a fixed 10·T
 * would drop it from N meanwhile and inflate everybody else's share.
 */
export function idleTimeoutNs(q: RccQpState, p: RccParams): number {
  const c = q.ctl;
  const queueingNs = Number.isFinite(c.baseNs) && c.lastDelayNs > c.baseNs ? c.lastDelayNs - c.baseNs : 0;
  return p.idleTimeoutRtts * (q.tFairNs + queueingNs);
}

function armIdle(q: RccQpState, p: RccParams, io: NpIo): void {
  if (q.idleArmed || !(p.idleTimeoutRtts > 0)) return;
  q.idleArmed = true;
  io.setTimer(IDLE_TIMER, q.lastRxNs + idleTimeoutNs(q, p));
}

function endMessage(q: RccQpState, nic: RccNicState, nowNs: number, io: NpIo): void {
  q.active = false;
  nic.n = Math.max(0, nic.n - 1);
  const c = q.ctl;
  q.lastMsgClass = c.cls;
  q.lastMsgPidEntryNs = c.pidEntryNs;
  q.lastMsgStartNs = q.msgStartNs;
  q.lastMsgEndNs = nowNs;
  q.messages++;
  nic.messages++;
  if (c.cls === CongestionClass.InNetwork) {
    q.pidMessages++;
    nic.pidMessages++;
  }
  resetFlowCtl(c);
  io.cancelTimer(PID_TIMER);
}

export const rccNp: NpAlgorithm<RccParams, RccNicState, RccQpState> = {
  initNic: () => ({ n: 0, rx: null, lineRateBps: 0, messages: 0, pidMessages: 0 }),

  initQp(flow, p, nic) {
    ensureRx(nic, flow, p);
    const configured = p.baseMode === 'min' ? Number.NaN : configuredBaseOwdNs(flow);
    const tFairNs = fairTimeNs(flow, p);
    const share = (p.fairShareEta ? p.eta : 1) * payloadEfficiency(flow.mtuBytes);
    const init = fairShareBytes(flow.lineRateBps, baseRttOf(flow, p), 1, payloadEfficiency(flow.mtuBytes));
    return {
      ctl: newFlowCtl(init, Number.isNaN(configured) ? Number.POSITIVE_INFINITY : configured),
      cfg: decideConfig(p),
      lineRateBps: flow.lineRateBps,
      mtuBytes: flow.mtuBytes,
      tFairNs,
      floorBytes: floorBytesOf(flow, p),
      fairShare: share,
      eff: payloadEfficiency(flow.mtuBytes),
      configuredBaseNs: p.baseMode === 'min' ? Number.NaN : configured,
      active: false,
      lastRxNs: Number.NEGATIVE_INFINITY,
      idleArmed: false,
      msgStartNs: Number.NaN,
      lastMsgClass: CongestionClass.None,
      lastMsgPidEntryNs: Number.NaN,
      lastMsgStartNs: Number.NaN,
      lastMsgEndNs: Number.NaN,
      messages: 0,
      pidMessages: 0,
      samples: 0,
    };
  },

  onData(q, nic, pkt, p, io) {
    const now = io.now();
    const c = q.ctl;
    const cfg = q.cfg;
    const rx = nic.rx!;
    rx.onBytes(now, pkt.sizeBytes, pkt.destQp);
    q.lastRxNs = now;
    const op = pkt.opcode;
    const start = isMessageStart(op);
    const end = isMessageEnd(op);
    // UPDATEFLOWNUMBER before the eq. (1) counter, so a new message starts clean. Single-packet
    // (ONLY) messages would add and remove themselves at once: they leave N alone.
    if (!q.active && !end) {
      q.active = true;
      nic.n++;
      if (start) {
        resetFlowCtl(c);
        q.msgStartNs = now;
      } else {
        io.count('rccResumed');
      }
      armIdle(q, p, io);
    }
    const tsNs = pkt.ext?.txTsNs ?? null;
    if (tsNs !== null) {
      const owdNs = now - tsNs + clockErrorNs(p, now, io);
      q.samples++;
      if (Number.isNaN(q.configuredBaseNs) && isBaseEligible(pkt, q.mtuBytes) && owdNs < c.baseNs)
        c.baseNs = owdNs;
      recordSample(c, owdNs, q.tFairNs, cfg);
    }
    const fair = fairShareBytes(q.lineRateBps, q.tFairNs, nic.n, q.fairShare);
    const bdp = fairShareBytes(q.lineRateBps, q.tFairNs, 1, q.eff);
    const full = rx.lastHopFull(now, cfg.consecutiveSamples);
    const shared = full && rx.lastHopShared(now, cfg.consecutiveSamples);
    const entered = decideWindow(c, now, fair, bdp, q.floorBytes, full, q.tFairNs, cfg, shared);
    if (entered) {
      io.count('rccPidEntries');
      if (p.pidStep === 'rtt') io.setTimer(PID_TIMER, now + q.tFairNs);
    }
    if (end && q.active) endMessage(q, nic, now, io);
  },

  decorateAck(q, _nic, ack) {
    ack.ext ??= createExt();
    ack.ext.windowBytes = Math.max(1, Math.round(q.ctl.cwndBytes));
    // RCC's ACK carries the window only (docs/algorithms/rcc.md "Signals and wire"): the sender needs no
    // echo.
    ack.ext.tsEchoNs = null;
  },

  onTimer(q, nic, slot, p, io) {
    const now = io.now();
    if (slot === PID_TIMER) {
      const c = q.ctl;
      if (!c.inPid || !q.active) return;
      io.setTimer(PID_TIMER, now + q.tFairNs);
      const cap =
        p.control === 'pid'
          ? fairShareBytes(q.lineRateBps, q.tFairNs, 1, q.eff)
          : fairShareBytes(q.lineRateBps, q.tFairNs, nic.n, q.fairShare);
      pidUpdate(c, cap, q.floorBytes, q.tFairNs, q.cfg);
      return;
    }
    q.idleArmed = false;
    if (!q.active) return;
    if (now - q.lastRxNs >= idleTimeoutNs(q, p)) {
      io.count('rccIdleTimeouts');
      endMessage(q, nic, now, io);
    } else {
      armIdle(q, p, io);
    }
  },

  inspect(q, nic) {
    const c = q.ctl;
    const orNone = (v: number) => (Number.isFinite(v) ? v : -1);
    return {
      rccActive: q.active ? 1 : 0,
      rccN: nic.n,
      rccInPid: c.inPid ? 1 : 0,
      rccPidEntryNs: orNone(c.pidEntryNs),
      rccClass: c.cls,
      rccCwndBytes: c.cwndBytes,
      rccU: c.u,
      rccBaseOwdNs: orNone(c.baseNs),
      rccLastOwdNs: orNone(c.lastDelayNs),
      rccPidSteps: c.pidSteps,
      rccUnwinds: c.unwinds,
      rccPidHolds: c.holds,
      rccSamples: q.samples,
      rccMessages: q.messages,
      rccPidMessages: q.pidMessages,
      rccLastMsgClass: q.lastMsgClass,
      rccLastMsgPidEntryNs: orNone(q.lastMsgPidEntryNs),
      rccLastMsgStartNs: orNone(q.lastMsgStartNs),
      rccLastMsgEndNs: orNone(q.lastMsgEndNs),
    };
  },
};
