/** Factories that give every Packet the same hidden class, and the emulated size rule. */
import { Ecn, FrameKind, type Packet, type PacketExt } from './packet.js';

/** A blank frame with every field present; callers overwrite what they need. */
export function createPacket(): Packet {
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
  };
}

/**
 * `p` made blank again, every field as createPacket() writes it (and in its order, so the hidden
 * class stays the same): a real-runtime switch decodes frames into Packets it sent on, instead of
 * allocating one per frame (src/runtime/real/node-env.ts). test/wire/packet-factory.test.ts holds
 * the two equal.
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
  };
}
