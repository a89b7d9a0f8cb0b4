/**
 * Drives an algorithm's RP hooks by hand: a settable clock, the rate/window the NIC would
 * enforce, and builders for TX / ACK / NAK events (test-only).
 */
import { getAlgorithm, resolveParams } from '../../../src/cc/registry.js';
import type { FlowInfo, RpEvent, RpIo } from '../../../src/cc/types.js';
import { createRng } from '../../../src/env/rng.js';
import { FrameKind, type IntHop } from '../../../src/wire/packet.js';
import { createExt, createPacket } from '../../../src/wire/packet-factory.js';

export const G = 1e9;
export const M = 1e6;

export function expectClose(actual: number, expected: number, rel = 1e-9): void {
  const tol = rel * Math.max(1, Math.abs(expected));
  if (!(Math.abs(actual - expected) <= tol))
    throw new Error(`expected ${expected}, got ${actual} (|Δ| = ${Math.abs(actual - expected)} > ${tol})`);
}

export function flowInfo(over: Partial<FlowInfo> = {}): FlowInfo {
  return {
    qpn: 1,
    remoteQpn: 2,
    lineRateBps: 100 * G,
    mtuBytes: 1000,
    baseRttNs: 10_000,
    bottleneckRateBps: 100 * G,
    hops: 1,
    ...over,
  };
}

export interface Change {
  t: number;
  kind: 'rate' | 'window';
  value: number | null;
  why: string;
}

export function rig(name: string, overrides: Record<string, unknown> = {}, flowOver: Partial<FlowInfo> = {}) {
  const flow = flowInfo(flowOver);
  // biome-ignore lint/suspicious/noExplicitAny: each test casts the state to its algorithm's type
  const params = resolveParams(name, overrides) as any;
  const alg = getAlgorithm(name);
  let now = 0;
  let rate = flow.lineRateBps;
  let window: number | null = null;
  const log: Change[] = [];
  const counters = new Map<string, number>();
  const io: RpIo = {
    now: () => now,
    rng: createRng(1),
    setRate: (r, why) => {
      rate = Math.min(r, flow.lineRateBps);
      log.push({ t: now, kind: 'rate', value: rate, why });
    },
    setWindow: (w, why) => {
      window = w;
      log.push({ t: now, kind: 'window', value: w, why });
    },
    setTimer: () => {},
    cancelTimer: () => {},
    rateBps: () => rate,
    windowBytes: () => window,
    inflightBytes: () => 0,
    paused: () => false,
    count: (n, d = 1) => void counters.set(n, (counters.get(n) ?? 0) + d),
  };
  // biome-ignore lint/suspicious/noExplicitAny: algorithm-private state
  const state: any = alg.rp.init(flow, params, io);
  return {
    flow,
    params,
    state,
    io,
    log,
    rate: () => rate,
    window: () => window,
    at(t: number) {
      now = t;
    },
    ev(e: RpEvent) {
      alg.rp.onEvent(state, e, params, io);
    },
    inspect: () => alg.rp.inspect?.(state, params, now) ?? {},
  };
}

export function tx(psn: number, bytes = 1000, sizeBytes = bytes + 66): RpEvent {
  const pkt = createPacket();
  pkt.psn = psn & 0xffffff;
  pkt.payloadLen = bytes;
  pkt.sizeBytes = sizeBytes;
  return { type: 'tx', pkt, bytes, retransmit: false };
}

export function hop(timeNs: number, txBytes: number, qlenBytes: number, lineRateBps = 100 * G): IntHop {
  return { lineRateBps, timeNs, txBytes, qlenBytes, activeFlows: 0 };
}

export interface AckOpts {
  hops?: IntHop[];
  rttNs?: number | null;
  ecn?: boolean;
  ackedBytes?: number;
  fields?: Record<string, number>;
}

/** ACK of PSN `psn` (BTH.PSN = newest PSN acknowledged). */
export function ack(psn: number, o: AckOpts = {}): RpEvent {
  const pkt = createPacket();
  pkt.kind = FrameKind.Ack;
  pkt.psn = psn & 0xffffff;
  pkt.becn = o.ecn ?? false;
  if (o.hops !== undefined) pkt.int = { layout: 'hpcc', nhop: o.hops.length, hops: o.hops };
  if (o.fields !== undefined) {
    pkt.ext = createExt();
    pkt.ext.fields = o.fields;
  }
  return {
    type: 'ack',
    pkt,
    ackedBytes: o.ackedBytes ?? 1000,
    rttNs: o.rttNs ?? null,
    ecnEcho: o.ecn ?? false,
  };
}

/** NAK: BTH.PSN = the PSN the responder expects. */
export function nack(psn: number, hops?: IntHop[]): RpEvent {
  const pkt = createPacket();
  pkt.kind = FrameKind.Nak;
  pkt.psn = psn & 0xffffff;
  if (hops !== undefined) pkt.int = { layout: 'hpcc', nhop: hops.length, hops };
  return { type: 'nack', pkt, subtype: 'oos' };
}
