/**
 * Builders of the frames the NIC originates. Every field the wire codecs need for a bit-exact
 * frame is filled here (docs/wire.md, "The standard frame"); `id`, `ipId` and `sizeBytes` are
 * set when the frame starts serialising (nic.ts), since telemetry may still be added before that.
 */

import type { RpFeatures } from '../src/cc/types.js';
import { PSN_MASK } from '../src/wire/bth.js';
import type { CnpPayload } from '../src/wire/cnp.js';
import { Opcode, Syndrome } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type IntStack, type Packet } from '../src/wire/packet.js';
import { createExt, createPacket } from '../src/wire/packet-factory.js';
import {
  HPCC_INT_BYTES,
  MPCC_INT_BYTES,
  PULL_TARGET_BYTES,
  padBytes,
  ROCE_FIXED_BYTES,
} from '../src/wire/size.js';

/** DSCP of data and ACK/NAK frames (AF31) and of CNPs (CS6), as in the golden vectors. */
export const DATA_DSCP = 26;
export const CNP_DSCP = 48;
export const IP_TTL = 64;
export const DEFAULT_PKEY = 0xffff;

/** Addressing shared by every frame of one QP. */
export interface FrameAddr {
  srcMac: number;
  dstMac: number;
  srcIp: number;
  dstIp: number;
  srcPort: number;
  destQp: number;
}

function addressed(a: FrameAddr, kind: Packet['kind'], prio: number, dscp: number): Packet {
  const pkt = createPacket();
  pkt.kind = kind;
  pkt.prio = prio;
  pkt.srcMac = a.srcMac;
  pkt.dstMac = a.dstMac;
  pkt.srcIp = a.srcIp;
  pkt.dstIp = a.dstIp;
  pkt.srcPort = a.srcPort;
  pkt.destQp = a.destQp;
  pkt.dscp = dscp;
  pkt.ecn = Ecn.Ect0;
  pkt.ttl = IP_TTL;
  pkt.pkey = DEFAULT_PKEY;
  return pkt;
}

/** Opcode of packet `index` of an `count`-packet SEND or WRITE message. */
export function dataOpcode(verb: 'send' | 'write', index: number, count: number): number {
  if (verb === 'send') {
    if (count === 1) return Opcode.SendOnly;
    return index === 0 ? Opcode.SendFirst : index === count - 1 ? Opcode.SendLast : Opcode.SendMiddle;
  }
  if (count === 1) return Opcode.WriteOnly;
  return index === 0 ? Opcode.WriteFirst : index === count - 1 ? Opcode.WriteLast : Opcode.WriteMiddle;
}

export function dataFrame(
  a: FrameAddr,
  prio: number,
  opcode: number,
  psn: number,
  payloadLen: number,
  ackReq: boolean,
): Packet {
  const pkt = addressed(a, FrameKind.Data, prio, DATA_DSCP);
  pkt.opcode = opcode;
  pkt.psn = psn & PSN_MASK;
  pkt.ackReq = ackReq;
  pkt.payloadLen = payloadLen;
  return pkt;
}

/**
 * Emulated bytes of a full-`mtu` data frame (docs/wire.md §4) carrying what `features` asks for
 * and, with receiver credits, a pull target: FlowInfo.frameBytes, RCCC's wire MTU.
 */
export function dataFrameSizeBytes(mtu: number, features: RpFeatures | null, pullTarget: boolean): number {
  let n = ROCE_FIXED_BYTES + mtu + padBytes(mtu);
  if (features !== null) {
    if (features.txTimestamp) n += 8;
    if (features.int === 'hpcc') n += HPCC_INT_BYTES;
    else if (features.int === 'mpcc') n += MPCC_INT_BYTES;
  }
  if (pullTarget) n += PULL_TARGET_BYTES;
  return n;
}

/** ACK (syndrome 0x1f) or NAK (0x60) for the newest PSN acknowledged / the expected PSN. */
export function ackFrame(a: FrameAddr, prio: number, nak: boolean, psn: number, msn: number): Packet {
  const pkt = addressed(a, nak ? FrameKind.Nak : FrameKind.Ack, prio, DATA_DSCP);
  pkt.opcode = Opcode.Acknowledge;
  pkt.psn = psn & PSN_MASK;
  pkt.aeth = { syndrome: nak ? Syndrome.NakPsnSeqErr : Syndrome.AckNoCredit, msn: msn & PSN_MASK };
  return pkt;
}

/** Echo of a data packet's INT stack (hops copied so later hops on the ACK's path cannot alias it). */
export function copyInt(int: IntStack): IntStack {
  return { layout: int.layout, nhop: int.nhop, hops: int.hops.map((h) => ({ ...h })) };
}

/** RoCEv2 CNP (docs/wire.md, "CNP body"): BECN set, DestQP = the sender's QPN, PSN 0, 16 zero bytes. */
export function cnpFrame(a: FrameAddr, prio: number, fields: CnpPayload | undefined): Packet {
  const pkt = addressed(a, FrameKind.Cnp, prio, CNP_DSCP);
  pkt.opcode = Opcode.Cnp;
  pkt.becn = true;
  if (fields !== undefined) {
    if (fields.bthResv7 !== undefined) pkt.bthResv7 = Math.max(0, Math.min(127, fields.bthResv7 | 0));
    if (fields.cnpPeriodNs !== undefined || fields.ecnCount !== undefined) {
      pkt.ext = createExt();
      if (fields.cnpPeriodNs !== undefined) pkt.ext.cnpPeriodNs = fields.cnpPeriodNs;
      if (fields.ecnCount !== undefined) pkt.ext.ecnCount = fields.ecnCount;
    }
  }
  return pkt;
}
