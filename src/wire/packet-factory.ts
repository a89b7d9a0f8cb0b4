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
