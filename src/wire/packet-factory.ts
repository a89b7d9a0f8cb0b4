/** Factories that give every Packet the same hidden class, and the emulated size rule. */
import { Ecn, FrameKind, type Packet, type PacketExt } from './packet.js';

/** A blank frame with every field present; callers overwrite what they need. */
export function createPacket(): Packet {
  return {
    id: 0,
    kind: FrameKind.Data,
    prio: 0,
    sizeBytes: 0,
    dstMac: 0,
    srcMac: 0,
    srcIp: 0,
    dstIp: 0,
    dscp: 0,
    ecn: Ecn.NotEct,
    ttl: 64,
    ipId: 0,
    srcPort: 0,
    opcode: 0,
    solicitedEvent: false,
    migReq: false,
    pkey: 0xffff,
    fecn: false,
    becn: false,
    destQp: 0,
    ackReq: false,
    psn: 0,
    bthResv7: 0,
    reth: null,
    aeth: null,
    immDt: null,
    payloadLen: 0,
    payload: null,
    int: null,
    cnm: null,
    pfc: null,
    ext: null,
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
