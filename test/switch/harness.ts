/**
 * A tiny deterministic world for switch tests: the virtual runtime's scheduler, a FirmwareEnv
 * that records every frame the switch puts on a wire, and packet builders.
 */
import type { FirmwareEnv } from '../../src/env/env.js';
import { nullLogger } from '../../src/env/env.js';
import { createRng } from '../../src/env/rng.js';
import { EngineScheduler } from '../../src/runtime/virtual/engine-scheduler.js';
import { Ecn, FrameKind, type IntStack, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import type { SwitchConfig, SwitchPortConfig } from '../../switch/api.js';

export interface Sent {
  tNs: number;
  port: number;
  pkt: Packet;
}

export interface World {
  sched: EngineScheduler;
  env: FirmwareEnv;
  sent: Sent[];
  /** Called synchronously for every frame the switch sends (upstream/downstream models). */
  onSend: ((port: number, pkt: Packet) => void) | null;
}

export function makeWorld(seed = 1): World {
  const sched = new EngineScheduler();
  let nextId = 1;
  const world: World = {
    sched,
    sent: [],
    onSend: null,
    env: {
      now: () => sched.now(),
      setTimer: (at, fn) => sched.setTimer(at, fn),
      cancelTimer: (id) => sched.cancelTimer(id),
      send(port, pkt) {
        world.sent.push({ tNs: sched.now(), port, pkt });
        world.onSend?.(port, pkt);
      },
      rng: createRng(seed),
      log: nullLogger,
      nextPacketId: () => nextId++,
    },
  };
  return world;
}

export const G = 1e9;

/** Port i: MAC 0x02000000_0000 + i, peer MAC 0x0400000_0000 + i. */
export function portCfg(rateBps: number, i: number): SwitchPortConfig {
  return { rateBps, mac: 0x020000000000 + i, peerMac: 0x040000000000 + i };
}

/** Host IP of index i (198.18.0.i). */
export function hostIp(i: number): number {
  return ((198 << 24) | (18 << 16) | i) >>> 0;
}

export function baseConfig(over: Partial<SwitchConfig> = {}): SwitchConfig {
  const rates = [100 * G, 100 * G];
  return {
    name: 'sw0',
    id: 0,
    ports: rates.map((r, i) => portCfg(r, i)),
    routes: new Map([
      [hostIp(0), [0]],
      [hostIp(1), [1]],
    ]),
    bufferBytes: 32 * 1024 * 1024,
    ecn: { kminBytes: 1e12, kmaxBytes: 2e12, pmax: 0 },
    pfc: { enabled: false, thresholdBytes: 1e12, dynamicAlpha: null, headroomBytes: 0, resumeOffsetBytes: 0 },
    controlPrio: 7,
    ecmpSeed: 0,
    ...over,
  };
}

export interface DataOpts {
  srcIp?: number;
  dstIp?: number;
  srcPort?: number;
  destQp?: number;
  prio?: number;
  sizeBytes?: number;
  ecn?: Ecn;
  int?: IntStack | null;
  ttl?: number;
  psn?: number;
}

/** A data frame; `sizeBytes` is set directly so tests control the on-link size exactly. */
export function dataPkt(o: DataOpts = {}): Packet {
  const p = createPacket();
  p.kind = FrameKind.Data;
  p.srcIp = o.srcIp ?? hostIp(0);
  p.dstIp = o.dstIp ?? hostIp(1);
  p.srcPort = o.srcPort ?? 0xc000;
  // A test that names a flow by its UDP source port alone means one QP per port, as the NIC
  // assigns them (the active-flow counter keys a QP by destQp, docs/switch.md "INT").
  p.destQp = o.destQp ?? (o.srcPort !== undefined ? 0x10000 + o.srcPort : 17);
  p.prio = o.prio ?? 3;
  p.sizeBytes = o.sizeBytes ?? 1000;
  p.ecn = o.ecn ?? Ecn.Ect0;
  p.int = o.int ?? null;
  p.ttl = o.ttl ?? 64;
  p.psn = o.psn ?? 0;
  p.opcode = 0x04;
  p.payloadLen = p.sizeBytes - 66;
  return p;
}

/** An ACK; by default at priority 7, the control class of `baseConfig` (NIC ackPrio = controlPrio). */
export function ackPkt(o: DataOpts = {}): Packet {
  const p = dataPkt({ ...o, sizeBytes: o.sizeBytes ?? 66, prio: o.prio ?? 7 });
  p.kind = FrameKind.Ack;
  p.opcode = 0x11;
  p.ecn = Ecn.NotEct;
  p.aeth = { syndrome: 0x1f, msn: 0 };
  return p;
}

export function pfcPkt(classEnable: number, quanta: number[]): Packet {
  const p = createPacket();
  p.kind = FrameKind.Pfc;
  p.prio = 7;
  p.dstMac = 0x0180c2000001;
  p.sizeBytes = 64;
  p.pfc = { classEnable, quanta };
  return p;
}

/** Serialisation time of `bytes` at `rateBps`, ns. */
export function serNs(bytes: number, rateBps: number): number {
  return (bytes * 8e9) / rateBps;
}
