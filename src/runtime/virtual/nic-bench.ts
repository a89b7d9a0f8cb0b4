/**
 * The NIC test bench, used by the NIC unit tests and SRCC's AC5 check: two NICs back to back
 * through a fake wire on the virtual engine's scheduler (EngineScheduler), frames carried in its
 * delay-class FIFO as the engine's links carry them, so events at one instant run in the engine's
 * order (docs/realtime.md "Equal-time order"). The wire adds a propagation delay, can drop frames
 * at random (seeded) or by a predicate, can rewrite frames in flight (e.g. CE-mark them as a
 * switch would) and records every frame with the time its last bit left the sender.
 */

import type {
  CcSpec,
  MessageCompletion,
  Nic,
  NicConfig,
  PathConfig,
  QpSetup,
  RateChange,
  SelectiveRepeatConfig,
  TransportName,
} from '../../../nic/api.js';
import { createNic } from '../../../nic/api.js';
import type { RcccNicConfig } from '../../../nic/rccc/settings.js';
import { resolveCc } from '../../cc/registry.js';
import { type FirmwareEnv, nullLogger } from '../../env/env.js';
import { createRng, type Rng } from '../../env/rng.js';
import type { Packet } from '../../wire/packet.js';
import { EngineScheduler } from './engine-scheduler.js';

export type Side = 'a' | 'b';

export interface WireRecord {
  /** When the frame's last bit left the sender's port (env.send time), ns. */
  sentNs: number;
  from: Side;
  pkt: Packet;
  dropped: boolean;
}

export interface BenchOptions {
  rateBps?: number;
  delayNs?: number;
  mtuBytes?: number;
  ackEveryPackets?: number;
  rtoNs?: number;
  lossRate?: number;
  seed?: number;
  cc?: CcSpec;
  ccB?: CcSpec;
  cnpMinIntervalNs?: number;
  ackPrio?: number;
  /** NicConfig.rateTraceCapacity of both NICs; default 4096 (tests read `rateTrace()`). */
  rateTraceCapacity?: number;
  /** Drop this frame (in addition to random loss). */
  drop?: (pkt: Packet, from: Side, nowNs: number) => boolean;
  /** Change a frame in flight (after the drop decision). */
  mutate?: (pkt: Packet, from: Side, nowNs: number) => void;
  /** Keep every frame in `wire` (default true). */
  record?: boolean;
  /** Extra propagation delay of this frame, ns (reordering, as paths of different lengths make). */
  extraDelayNs?: (pkt: Packet, from: Side) => number;
  transport?: TransportName;
  sr?: SelectiveRepeatConfig;
  /** Path policy of both NICs. */
  paths?: PathConfig;
  /** Receiver credits (RCCC) of B: it pulls what it receives (A's QPs need `receiverCredits`). */
  rcccB?: RcccNicConfig;
}

export const IP_A = 0x0a000001;
export const IP_B = 0x0a000002;
export const MAC_A = 0x02000000000a;
export const MAC_B = 0x02000000000b;
export const DATA_PRIO = 3;
export const CONTROL_PRIO = 6;

export interface Bench {
  sched: EngineScheduler;
  a: Nic;
  b: Nic;
  wire: WireRecord[];
  done: Record<Side, MessageCompletion[]>;
  rates: Record<Side, RateChange[]>;
  dropped: number;
  /** Create QP `qpn` on A and `qpn + 1000` on B (mirrored), return [qpnA, qpnB]. */
  connect(qpn: number, extra?: Partial<QpSetup>): [number, number];
  /** Post on A (and announce to B) a message of QP `qpnA`. */
  send(qpnA: number, id: number, bytes: number, verb?: 'send' | 'write'): void;
  /** Deliver a frame to a NIC at time `atNs` (as if it came off the wire). */
  inject(to: Side, atNs: number, pkt: Packet): void;
}

function makeEnv(sched: EngineScheduler, name: string, rng: Rng, out: (pkt: Packet) => void): FirmwareEnv {
  let nextId = 1;
  return {
    now: () => sched.now(),
    setTimer: (at, fn) => sched.setTimer(at, fn),
    cancelTimer: (id) => sched.cancelTimer(id),
    send: (_port, pkt) => out(pkt),
    rng: rng.fork(name),
    log: nullLogger,
    nextPacketId: () => nextId++,
  };
}

export function bench(o: BenchOptions = {}): Bench {
  const sched = new EngineScheduler();
  const rng = createRng(o.seed ?? 1);
  const lossRng = rng.fork('wire');
  const rateBps = o.rateBps ?? 100e9;
  const delayNs = o.delayNs ?? 1000;
  const record = o.record ?? true;
  const wire: WireRecord[] = [];
  const done: Record<Side, MessageCompletion[]> = { a: [], b: [] };
  const rates: Record<Side, RateChange[]> = { a: [], b: [] };
  const nics: Partial<Record<Side, Nic>> = {};
  const state = { dropped: 0 };
  const wireDelay = sched.delayClass(delayNs);
  const extraDelays = new Map<number, typeof wireDelay>();
  const sinks = {
    a: { arrive: (pkt: Packet | null) => nics.a!.receive(0, pkt!) },
    b: { arrive: (pkt: Packet | null) => nics.b!.receive(0, pkt!) },
  };

  const carry = (from: Side) => (pkt: Packet) => {
    const now = sched.now();
    let drop = (o.lossRate ?? 0) > 0 && lossRng.next() < (o.lossRate ?? 0);
    if (!drop && o.drop?.(pkt, from, now)) drop = true;
    if (record) wire.push({ sentNs: now, from, pkt, dropped: drop });
    if (drop) {
      state.dropped++;
      return;
    }
    o.mutate?.(pkt, from, now);
    const extra = o.extraDelayNs?.(pkt, from) ?? 0;
    let cls = wireDelay;
    if (extra > 0) {
      cls = extraDelays.get(extra) ?? sched.delayClass(delayNs + extra);
      extraDelays.set(extra, cls);
    }
    // Equal-time key: A's port first, then B's, as the engine orders its links.
    cls.push(sinks[from === 'a' ? 'b' : 'a'], now + delayNs + extra, pkt, from === 'a' ? 0 : 1);
  };

  const config = (side: Side): NicConfig => ({
    name: side,
    ip: side === 'a' ? IP_A : IP_B,
    port: { rateBps, mac: side === 'a' ? MAC_A : MAC_B, peerMac: side === 'a' ? MAC_B : MAC_A },
    mtuBytes: o.mtuBytes ?? 1000,
    ackEveryPackets: o.ackEveryPackets ?? 1,
    rtoNs: o.rtoNs ?? 100_000,
    dataPrio: DATA_PRIO,
    controlPrio: CONTROL_PRIO,
    cc: (side === 'b' ? o.ccB : undefined) ?? o.cc ?? resolveCc('none'),
    cnpMinIntervalNs: o.cnpMinIntervalNs,
    ackPrio: o.ackPrio,
    rateTraceCapacity: o.rateTraceCapacity ?? 4096,
    ...(o.transport !== undefined ? { transport: o.transport } : {}),
    ...(o.sr !== undefined ? { sr: o.sr } : {}),
    ...(o.paths !== undefined ? { paths: o.paths } : {}),
    ...(side === 'b' && o.rcccB !== undefined ? { rccc: o.rcccB } : {}),
    observer: {
      onMessageComplete: (c) => done[side].push(c),
      onRateChange: (c) => rates[side].push(c),
    },
  });
  nics.a = createNic(makeEnv(sched, 'a', rng, carry('a')), config('a'));
  nics.b = createNic(makeEnv(sched, 'b', rng, carry('b')), config('b'));

  const path = { baseRttNs: 2 * delayNs + 200, bottleneckRateBps: rateBps, hops: 0 };
  return {
    sched,
    a: nics.a,
    b: nics.b,
    wire,
    done,
    rates,
    get dropped() {
      return state.dropped;
    },
    connect(qpn, extra = {}) {
      const qpnB = qpn + 1000;
      nics.a!.createQp({ qpn, remoteQpn: qpnB, remoteIp: IP_B, srcPort: 0xc000 + qpn, path, ...extra });
      nics.b!.createQp({
        qpn: qpnB,
        remoteQpn: qpn,
        remoteIp: IP_A,
        srcPort: 0xc000 + qpn,
        path,
        ...extra,
        cc: extra.cc === undefined ? undefined : extra.cc,
      });
      return [qpn, qpnB];
    },
    send(qpnA, id, bytes, verb = 'send') {
      nics.b!.expect({ qpn: qpnA + 1000, id, bytes, verb });
      nics.a!.post({ qpn: qpnA, id, bytes, verb });
    },
    inject(to, atNs, pkt) {
      sched.setTimer(atNs, () => nics[to]!.receive(0, pkt));
    },
  };
}

/** Serialisation time of `bytes` at `rateBps`, ns (fractional). */
export function serNs(bytes: number, rateBps: number): number {
  return (bytes * 8 * 1e9) / rateBps;
}
