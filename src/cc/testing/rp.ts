/**
 * Drives one algorithm's RP hooks by hand, for unit tests and unit-level paper checks: a clock,
 * timers fired in (time, arming order) like the engine, the rate and window the NIC would
 * enforce (clamped to line rate as nic/cc-host.ts does through the NIC), a settable PFC pause
 * state and in-flight byte count, the change log and the algorithm counters, plus builders for
 * every RpEvent kind. By default the rng throws, so a test also proves the hooks draw no
 * randomness; pass one when the algorithm is randomised.
 */

import type { Rng } from '../../env/rng.js';
import { PSN_MASK } from '../../wire/bth.js';
import { CnmFlag } from '../../wire/cnm.js';
import { type CnmBody, FrameKind, type IntHop, type Packet } from '../../wire/packet.js';
import { createExt, createPacket } from '../../wire/packet-factory.js';
import { ROCE_UDP_PORT } from '../srcc/flow-id.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { HandTimers } from './timers.js';

export const noRng: Rng = {
  next: () => {
    throw new Error('the hook drew randomness');
  },
  nextU32: () => {
    throw new Error('the hook drew randomness');
  },
  int: () => {
    throw new Error('the hook drew randomness');
  },
  fork: () => noRng,
};

/** A one-hop flow at 100 Gbps, 1000-byte MTU, 10 µs base RTT, with `over` applied. */
export function flowInfo(over: Partial<FlowInfo> = {}): FlowInfo {
  return {
    qpn: 1,
    remoteQpn: 2,
    lineRateBps: 100e9,
    mtuBytes: 1000,
    baseRttNs: 10_000,
    bottleneckRateBps: 100e9,
    hops: 1,
    ...over,
  };
}

export interface RpDriveOptions {
  /** The hooks' randomness (default: one that throws on use). */
  rng?: Rng;
  /** Rate before init sets one (default: line rate, as the NIC starts a QP). */
  initialRateBps?: number;
}

/** One rate or window change, as the NIC would trace it. */
export interface RpChange {
  t: number;
  kind: 'rate' | 'window';
  value: number | null;
  why: string;
}

export type RpDrive<S> = ReturnType<typeof driveRp<unknown, S>>;

export function driveRp<P, S>(rp: RpAlgorithm<P, S>, p: P, flow: FlowInfo, opts: RpDriveOptions = {}) {
  const timers = new HandTimers<number>();
  let rate = opts.initialRateBps ?? flow.lineRateBps;
  let window: number | null = null;
  let paused = false;
  let inflight = 0;
  /** Rate changes only (t, rateBps, why). */
  const log: { t: number; rateBps: number; why: string }[] = [];
  /** Rate and window changes in order. */
  const changes: RpChange[] = [];
  const counts = new Map<string, number>();
  let s: S;
  const ev = (e: RpEvent) => rp.onEvent(s, e, p, io);
  const io: RpIo = {
    now: () => timers.nowNs,
    rng: opts.rng ?? noRng,
    setRate: (r, why) => {
      rate = Math.min(r, flow.lineRateBps);
      log.push({ t: timers.nowNs, rateBps: rate, why });
      changes.push({ t: timers.nowNs, kind: 'rate', value: rate, why });
    },
    setWindow: (w, why) => {
      window = w;
      changes.push({ t: timers.nowNs, kind: 'window', value: w, why });
    },
    setTimer: (slot, at) => timers.set(slot, at, () => ev({ type: 'timer', slot })),
    cancelTimer: (slot) => timers.cancel(slot),
    rateBps: () => rate,
    windowBytes: () => window,
    inflightBytes: () => inflight,
    paused: () => paused,
    count: (name, d = 1) => void counts.set(name, (counts.get(name) ?? 0) + d),
  };
  s = rp.init(flow, p, io);
  const features = typeof rp.features === 'function' ? rp.features(p) : rp.features;
  return {
    s,
    io,
    flow,
    features,
    /** Armed timer slots → their time. */
    timers: {
      has: (slot: number) => timers.has(slot),
      get: (slot: number) => {
        const at = timers.atNs(slot);
        return at === undefined ? undefined : { at };
      },
      get size() {
        return timers.size;
      },
    },
    log,
    changes,
    counts,
    rate: () => rate,
    window: () => window,
    now: () => timers.nowNs,
    ev,
    /** The data priority's PFC state as the RP sees it (io.paused). */
    setPaused(v: boolean) {
      paused = v;
    },
    setInflight(bytes: number) {
      inflight = bytes;
    },
    inspect: () => rp.inspect?.(s, p, timers.nowNs) ?? {},
    /** Fire every timer due up to `t` in order, then move the clock to `t`. */
    at(t: number) {
      timers.advance(t);
    },
    /** Fire the next timer; returns its slot (the clock is then at its time). */
    fire(): number {
      return timers.fireNext();
    },
    /** Let the RP decorate an outgoing data packet (what the NIC does before `tx`). */
    decorate(pkt: Packet) {
      rp.decorateData?.(s, pkt, p, io);
    },
    cnp(fill?: (pkt: Packet) => void) {
      const pkt = createPacket();
      pkt.kind = FrameKind.Cnp;
      fill?.(pkt);
      ev({ type: 'cnp', pkt });
    },
    tx(sizeBytes = 1062, fill?: (pkt: Packet) => void) {
      const pkt = createPacket();
      pkt.sizeBytes = sizeBytes;
      fill?.(pkt);
      ev({ type: 'tx', pkt, bytes: sizeBytes, retransmit: false });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Event builders (a fresh packet each; hooks must not keep events, docs/cc-api.md).

/** Data packet `psn` leaving with `bytes` of payload and `sizeBytes` on the link. */
export function txEvent(psn: number, bytes = 1000, sizeBytes = bytes + 66, retransmit = false): RpEvent {
  const pkt = createPacket();
  pkt.psn = psn & PSN_MASK;
  pkt.payloadLen = bytes;
  pkt.sizeBytes = sizeBytes;
  return { type: 'tx', pkt, bytes, retransmit };
}

/** One HPCC-layout INT hop record. */
export function intHop(timeNs: number, txBytes: number, qlenBytes: number, lineRateBps = 100e9): IntHop {
  return { lineRateBps, timeNs, txBytes, qlenBytes, activeFlows: 0 };
}

export interface AckOptions {
  hops?: IntHop[];
  layout?: 'hpcc' | 'mpcc';
  rttNs?: number | null;
  ecn?: boolean;
  ackedBytes?: number;
  /** Algorithm fields of the ACK's extension (pkt.ext.fields). */
  fields?: Record<string, number>;
  windowBytes?: number;
}

/** ACK of PSN `psn` (BTH.PSN = newest PSN acknowledged). */
export function ackEvent(psn: number, o: AckOptions = {}): RpEvent {
  const pkt = createPacket();
  pkt.kind = FrameKind.Ack;
  pkt.psn = psn & PSN_MASK;
  pkt.becn = o.ecn ?? false;
  if (o.hops !== undefined) pkt.int = { layout: o.layout ?? 'hpcc', nhop: o.hops.length, hops: o.hops };
  if (o.fields !== undefined || o.windowBytes !== undefined) {
    pkt.ext = createExt();
    if (o.fields !== undefined) pkt.ext.fields = o.fields;
    if (o.windowBytes !== undefined) pkt.ext.windowBytes = o.windowBytes;
  }
  return {
    type: 'ack',
    pkt,
    ackedBytes: o.ackedBytes ?? 1000,
    rttNs: o.rttNs ?? null,
    ecnEcho: o.ecn ?? false,
  };
}

/**
 * NAK: BTH.PSN = the PSN the responder expects. `trim`: the selective-repeat transports' NACK of
 * a trimmed packet, with its last-hop flag and the bytes the NIC resends (docs/cc-api.md).
 */
export function nackEvent(
  psn: number,
  hops?: IntHop[],
  subtype: 'oos' | 'rnr' | 'trim' = 'oos',
  trim: { lastHop?: boolean; nackedBytes?: number } = {},
): RpEvent {
  const pkt = createPacket();
  pkt.kind = FrameKind.Nak;
  pkt.psn = psn & PSN_MASK;
  if (hops !== undefined) pkt.int = { layout: 'hpcc', nhop: hops.length, hops };
  if (subtype !== 'trim') return { type: 'nack', pkt, subtype };
  return { type: 'nack', pkt, subtype, lastHop: trim.lastHop ?? false, nackedBytes: trim.nackedBytes ?? 0 };
}

/** A CNP; `fill` sets its payload (pkt.ext / pkt.bthResv7). */
export function cnpEvent(fill?: (pkt: Packet) => void): RpEvent {
  const pkt = createPacket();
  pkt.kind = FrameKind.Cnp;
  fill?.(pkt);
  return { type: 'cnp', pkt };
}

/** A switch congestion notification; `fill` sets pkt.cnm (none: an empty CNM). */
export function cnmEvent(fill?: (pkt: Packet) => void): RpEvent {
  const pkt = createPacket();
  pkt.kind = FrameKind.Cnm;
  fill?.(pkt);
  return { type: 'cnm', pkt };
}

/** A CNM body keyed by the full flow key from a one-hop CP; every field not given is 0. */
export function cnmBody(o: Partial<CnmBody> = {}): CnmBody {
  return {
    flags: CnmFlag.FullFlowKey,
    flowId: 0,
    targetRateKbps: 0,
    cpId: 1,
    nHops: 1,
    hopsTraversed: 0,
    mActive: 1,
    MActive: 1,
    cpEgressPort: 0,
    qLenBytes: 0,
    qCthRaw: 0,
    flowSrcIp: 0,
    flowDstIp: 0,
    flowSrcPort: 0,
    flowDstPort: ROCE_UDP_PORT,
    destQpn: 0,
    triggerPsn: 0,
    cpTimestampNs: 0,
    ...o,
  };
}

export function timeoutEvent(): RpEvent {
  return { type: 'timeout' };
}

export function messageCompleteEvent(id: number, bytes: number, postNs: number, completeNs: number): RpEvent {
  return { type: 'messageComplete', id, bytes, postNs, completeNs };
}
