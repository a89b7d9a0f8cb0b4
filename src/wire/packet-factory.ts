/**
 * Factories that give every Packet the same hidden class, and a free list the runtimes feed with
 * frames nobody can reach any more (virtual time: after the receiving NIC; a real switch node:
 * once it has sent them).
 *
 * Why a free list: in virtual time a frame lives for its whole path (microseconds of emulated
 * time, but a million events and about a second of wall time on a large network), so nearly
 * every frame survives two young-generation collections, is copied into the old generation and
 * dies there. On the 320-host fat tree that promoted garbage, not live state, set the process's
 * peak memory (V8 sizes the old generation as a multiple of what it promotes per collection),
 * and copying it cost time. A frame handed back here after its last reader (the receiving NIC)
 * returned is reset and given out again instead.
 */
import { Ecn, FrameKind, type Packet, type PacketExt } from './packet.js';

/**
 * Frames handed back with recyclePacket, reused last-in first-out (the latest is still in the
 * cache). Bounded, so a run that drains its queues leaves little behind.
 */
const freeFrames: Packet[] = [];
const FREE_FRAMES_MAX = 1 << 15;

/**
 * Give a frame back for reuse. Only for a frame that nothing references any more, nor will:
 * the caller guarantees it (the virtual runtime, after the receiving NIC returned, when no
 * tracer, tap or test double could have kept it; a real switch node, once the frame is sent). Sub-objects (INT stack, extensions, PFC and
 * CNM bodies, AETH) are dropped, not reused, since readers may have kept those.
 */
export function recyclePacket(pkt: Packet): void {
  if (freeFrames.length >= FREE_FRAMES_MAX) return;
  if (poisoning) poisonPacket(pkt);
  else resetPacket(pkt);
  freeFrames.push(pkt);
}

/**
 * Poisoning, a test mode (setFramePoisoning; a real node's POISON_FRAMES=1): a recycled frame
 * waits on the free list with every number NaN and its kind invalid, and is made blank only when
 * createPacket hands it out again. Code that read a frame after it was given back (the recycling
 * rule broken) then computes with NaN, and a run's results differ from the same run without it
 * (test/runtime/frame-poisoning.test.ts), where a blank frame could pass for a real one.
 */
let poisoning = false;

/** Turn poisoning on or off (tests); turned off, the frames waiting on the free list are made blank. */
export function setFramePoisoning(on: boolean): void {
  if (poisoning && !on) for (const f of freeFrames) resetPacket(f);
  poisoning = on;
}

function poisonPacket(p: Packet): void {
  resetPacket(p);
  p.kind = -1 as FrameKind;
  p.sizeBytes = Number.NaN;
  p.prio = Number.NaN;
  p.ttl = Number.NaN;
  p.dstIp = Number.NaN;
  p.srcIp = Number.NaN;
  p.srcPort = Number.NaN;
  p.ecn = Number.NaN as Ecn;
  p.srcMac = Number.NaN;
  p.dstMac = Number.NaN;
  p.destQp = Number.NaN;
  p.opcode = Number.NaN;
  p.psn = Number.NaN;
  p.payloadLen = Number.NaN;
  p.id = Number.NaN;
  p.ipId = Number.NaN;
  p.dscp = Number.NaN;
  p.pkey = Number.NaN;
  p.bthResv7 = Number.NaN;
  p.trimHop = Number.NaN;
}

/** Frames waiting for reuse (tests and diagnostics). */
export function recycledFrameCount(): number {
  return freeFrames.length;
}

/** A blank frame with every field present; callers overwrite what they need. */
export function createPacket(): Packet {
  const reused = freeFrames.pop();
  if (reused !== undefined) return poisoning ? resetPacket(reused) : reused;
  // Field order is memory order: what every switch hop reads (validation, routing, ECN, MAC
  // rewrite) comes first, then what the NIC reads on receive, so a frame that has gone cold on a
  // link (a large network touches megabytes between its send and its arrival) costs two cache
  // lines, not five.
  return {
    kind: FrameKind.Data,
    sizeBytes: 0,
    prio: 0,
    ttl: 64,
    dstIp: 0,
    srcIp: 0,
    srcPort: 0,
    int: null,
    ecn: Ecn.NotEct,
    srcMac: 0,
    dstMac: 0,
    destQp: 0,
    opcode: 0,
    psn: 0,
    payloadLen: 0,
    ackReq: false,
    aeth: null,
    ext: null,
    becn: false,
    id: 0,
    ipId: 0,
    dscp: 0,
    solicitedEvent: false,
    migReq: false,
    pkey: 0xffff,
    fecn: false,
    bthResv7: 0,
    reth: null,
    immDt: null,
    payload: null,
    cnm: null,
    pfc: null,
    wire: null,
    trimHop: 0,
    trimLastHop: false,
  };
}

/**
 * `p` made blank again, every field as createPacket() writes it (and in its order, so the hidden
 * class stays the same), for the free list above. test/wire/packet-factory.test.ts holds the two
 * equal.
 */
export function resetPacket(p: Packet): Packet {
  p.kind = FrameKind.Data;
  p.sizeBytes = 0;
  p.prio = 0;
  p.ttl = 64;
  p.dstIp = 0;
  p.srcIp = 0;
  p.srcPort = 0;
  p.int = null;
  p.ecn = Ecn.NotEct;
  p.srcMac = 0;
  p.dstMac = 0;
  p.destQp = 0;
  p.opcode = 0;
  p.psn = 0;
  p.payloadLen = 0;
  p.ackReq = false;
  p.aeth = null;
  p.ext = null;
  p.becn = false;
  p.id = 0;
  p.ipId = 0;
  p.dscp = 0;
  p.solicitedEvent = false;
  p.migReq = false;
  p.pkey = 0xffff;
  p.fecn = false;
  p.bthResv7 = 0;
  p.reth = null;
  p.immDt = null;
  p.payload = null;
  p.cnm = null;
  p.pfc = null;
  p.wire = null;
  p.trimHop = 0;
  p.trimLastHop = false;
  return p;
}

export function createExt(): PacketExt {
  return {
    txTsNs: null,
    tsEchoNs: null,
    windowBytes: null,
    cnpPeriodNs: null,
    ecnCount: null,
    fields: null,
    sack: null,
    pullTarget: null,
    pull: null,
  };
}
