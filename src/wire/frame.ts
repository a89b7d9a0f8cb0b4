/**
 * The standard frame of a Packet (no FCS, no telemetry): what tshark sees in a pcap and what the
 * overlays carry as their inner frame.
 *
 *   RoCEv2 (Data/Ack/Nak/Cnp/Pull): Ethernet · IPv4 (DF) · UDP 4791 (checksum 0) · BTH · RETH|AETH|ImmDt
 *                              · payload · pad · ICRC    (CNP: 16 reserved bytes; UET pull: its 16-byte body)
 *   PFC:  Ethernet 0x8808 · opcode 0x0101 · vector · 8 times · zero pad to 60 bytes
 *   CNM:  Ethernet 0x22E7 · 56-byte SRCC body
 *   Sync: Ethernet 0x88B5 · version, srcIp, dstIp, sequence (psn) · zero pad to 60 bytes
 *
 * Fields a standard frame has no room for (id, prio unless tagged, INT, most of PacketExt) are
 * not in it; `encapsulate` (encap.ts) carries them in Geneve options.
 */

import { readBthInto, writeBth } from './bth.js';
import { isUint, readU16, readU24, readU32, writeU16, writeU32, writeU48 } from './bytes.js';
import { decodeCnmBody, encodeCnmBody } from './cnm.js';
import { CNP_PAYLOAD_BYTES, encodeCnpBody } from './cnp.js';
import { type DecodeError, decodeError, WireEncodeError } from './errors.js';
import { EtherType } from './ethernet.js';
import { computeIcrc, computeIcrcZerosFrom } from './icrc.js';
import { IP_PROTO_UDP, IPV4_FLAGS_DF, ipv4ChecksumOk, writeIpv4, writeIpv4Checksum } from './ipv4.js';
import { opcodeHasImmDt, opcodeHasReth } from './kind.js';
import { isDataOpcode, Opcode } from './opcodes.js';
import { type Ecn, FrameKind, type Packet } from './packet.js';
import { createExt, createPacket } from './packet-factory.js';
import { decodePfcBody, encodePfcBody, PFC_BODY_BYTES } from './pfc.js';
import { decodePullBody, encodePullBody } from './pull.js';
import {
  AETH_BYTES,
  BTH_BYTES,
  CNM_BODY_BYTES,
  carriedPayloadBytes,
  ETH_HEADER_BYTES,
  ETH_MIN_FRAME_BYTES,
  emulatedSizeBytes,
  ICRC_BYTES,
  IMMDT_BYTES,
  IPV4_HEADER_BYTES,
  PULL_BODY_BYTES,
  padBytes,
  RETH_BYTES,
  UDP_HEADER_BYTES,
} from './size.js';
import { ROCEV2_UDP_PORT, udpChecksum } from './udp.js';

/** Priority of untagged control frames (PFC, CNM, Sync) on decode: the strict-priority control class. */
export const CONTROL_PRIO = 7;
/** Largest frame decodeFrame accepts by default: a 9216-byte jumbo frame plus an 802.1Q tag. */
export const MAX_FRAME_BYTES = 9216 + 4;
export const SYNC_VERSION = 1;
/** What fits in one IPv4 packet next to the largest header set (BTH + RETH + ImmDt + pad + ICRC). */
export const MAX_ROCE_PAYLOAD_BYTES = 0xffff - 20 - 8 - 12 - 16 - 4 - 3 - 4;
const VLAN_TAG_BYTES = 4;

/** DSCP → priority used when a frame has no 802.1Q tag: the class selector (dscp >> 3), so AF31 → 3, CS6 → 6. */
export function defaultPrioOfDscp(dscp: number): number {
  return dscp >>> 3;
}

export interface EncodeOptions {
  /** UDP destination port of RoCEv2 frames (default 4791). */
  udpDstPort?: number;
  /** Compute the UDP checksum instead of sending 0 as RoCEv2 NICs do. */
  udpChecksum?: boolean;
  /** Insert an 802.1Q tag with this VLAN id and PCP = pkt.prio (default: untagged). */
  vlanId?: number | null;
}

export interface DecodeOptions {
  /** Check the invariant CRC (default true). Off = header-only decoding for speed. */
  verifyIcrc?: boolean;
  /** Check the IPv4 header checksum and a non-zero UDP checksum (default true). */
  verifyChecksums?: boolean;
  /**
   * 'view' (default): pkt.payload is a view into the input buffer (no copy; do not reuse the
   * buffer while the packet lives). 'copy': a fresh array. 'drop': null, only payloadLen is kept.
   */
  payload?: 'view' | 'copy' | 'drop';
  /** UDP destination port that carries the BTH (default 4791). */
  roceUdpPort?: number;
  /** Frames longer than this are 'oversized' (default MAX_FRAME_BYTES). */
  maxFrameBytes?: number;
  /** Priority of untagged IP frames (default defaultPrioOfDscp). */
  prioOfDscp?: (dscp: number) => number;
  /**
   * Keep a RoCEv2 frame's bytes in pkt.wire (a view into the input: do not reuse the buffer while
   * the packet lives), so encoding it again copies and patches instead (a forwarding switch).
   */
  keepWire?: boolean;
}

const NO_OPTIONS: EncodeOptions & DecodeOptions = {};

// ---------------------------------------------------------------------------------------------
// Encoding

function fail(pkt: Packet, what: string): never {
  throw new WireEncodeError(
    `cannot encode packet ${pkt.id} (kind ${pkt.kind}, opcode 0x${pkt.opcode.toString(16)}): ${what}`,
  );
}

/**
 * Throws WireEncodeError when kind and opcode contradict each other. Extension headers follow the
 * opcode, as in hardware: a WRITE First/Only without pkt.reth gets a zero RETH, an ImmDt opcode
 * without pkt.immDt gets 0, and a reth/immDt the opcode does not carry is not sent.
 */
function checkRoce(pkt: Packet): void {
  const op = pkt.opcode;
  switch (pkt.kind) {
    case FrameKind.Data:
      if (!isDataOpcode(op)) fail(pkt, 'Data needs an RC/UC SEND or RDMA WRITE opcode');
      break;
    case FrameKind.Ack:
    case FrameKind.Nak: {
      if (op !== Opcode.Acknowledge) fail(pkt, 'Ack/Nak needs opcode 0x11');
      if (pkt.aeth === null) fail(pkt, 'Ack/Nak needs an AETH');
      const cls = (pkt.aeth.syndrome >>> 5) & 3;
      if (pkt.kind === FrameKind.Ack ? cls !== 0 : cls !== 1 && cls !== 3) {
        fail(pkt, `AETH syndrome 0x${pkt.aeth.syndrome.toString(16)} does not match the kind`);
      }
      if (pkt.payloadLen !== 0) fail(pkt, 'an ACK carries no payload');
      break;
    }
    case FrameKind.Cnp: {
      if (op !== Opcode.Cnp) fail(pkt, 'Cnp needs opcode 0x81');
      if (pkt.payloadLen !== 0) fail(pkt, 'a CNP carries only its 16 reserved bytes');
      const period = pkt.ext === null ? null : pkt.ext.cnpPeriodNs;
      if (period !== null && !isUint(period, 32)) fail(pkt, `cnpPeriodNs ${period} is not a u32`);
      break;
    }
    case FrameKind.Pull: {
      if (op !== Opcode.UetPull) fail(pkt, 'Pull needs opcode 0xc0');
      if (pkt.payloadLen !== 0) fail(pkt, 'a pull carries only its 16-byte body');
      const pull = pkt.ext === null ? null : pkt.ext.pull;
      if (pull === null) fail(pkt, 'Pull needs ext.pull');
      if (!isUint(pull.quanta, 32)) fail(pkt, `pull quanta ${pull.quanta} is not a u32`);
      break;
    }
  }
  if (pkt.trimHop !== 0) {
    // A trimmed frame (docs/wire.md §3 option 0x30) keeps payloadLen, the length it lost.
    if (pkt.kind !== FrameKind.Data) fail(pkt, 'only a data frame is trimmed');
    if (!isUint(pkt.trimHop, 8)) fail(pkt, `trimHop ${pkt.trimHop} is not 1..255`);
    if (pkt.payload !== null) fail(pkt, 'a trimmed frame carries no payload');
  } else if (pkt.payload !== null && pkt.payload.length !== pkt.payloadLen) {
    fail(pkt, `payload has ${pkt.payload.length} bytes but payloadLen is ${pkt.payloadLen}`);
  }
}

/** Bytes between the BTH and the payload, as the opcode defines them. */
function roceHeaderBytes(pkt: Packet): number {
  switch (pkt.kind) {
    case FrameKind.Ack:
    case FrameKind.Nak:
      return AETH_BYTES;
    case FrameKind.Cnp:
      return CNP_PAYLOAD_BYTES;
    case FrameKind.Pull:
      return PULL_BODY_BYTES;
    default:
      return (opcodeHasReth(pkt.opcode) ? RETH_BYTES : 0) + (opcodeHasImmDt(pkt.opcode) ? IMMDT_BYTES : 0);
  }
}

/** Checked before sizing a buffer, so a bogus length cannot trigger a huge allocation. */
function checkPayloadLen(pkt: Packet): void {
  const n = pkt.payloadLen;
  if (!(Number.isInteger(n) && n >= 0 && n <= MAX_ROCE_PAYLOAD_BYTES))
    fail(pkt, `payloadLen ${n} out of range`);
}

function isRoceKind(kind: FrameKind): boolean {
  return (
    kind === FrameKind.Data ||
    kind === FrameKind.Ack ||
    kind === FrameKind.Nak ||
    kind === FrameKind.Cnp ||
    kind === FrameKind.Pull
  );
}

/** Bytes encodeFrame will produce for this packet (standard frame, no FCS). */
export function encodedFrameBytes(pkt: Packet, opts: EncodeOptions = NO_OPTIONS): number {
  const tag = opts.vlanId === undefined || opts.vlanId === null ? 0 : VLAN_TAG_BYTES;
  switch (pkt.kind) {
    case FrameKind.Pfc:
    case FrameKind.Sync:
      // minimum-size frames: a tag takes room from the padding
      return ETH_MIN_FRAME_BYTES;
    case FrameKind.Cnm:
      return ETH_HEADER_BYTES + tag + CNM_BODY_BYTES;
    default: {
      const carried = carriedPayloadBytes(pkt);
      const pad = pkt.kind === FrameKind.Cnp || pkt.kind === FrameKind.Pull ? 0 : padBytes(carried);
      return (
        ETH_HEADER_BYTES +
        tag +
        IPV4_HEADER_BYTES +
        UDP_HEADER_BYTES +
        BTH_BYTES +
        roceHeaderBytes(pkt) +
        carried +
        pad +
        ICRC_BYTES
      );
    }
  }
}

function writeEth(buf: Uint8Array, off: number, pkt: Packet, etherType: number, opts: EncodeOptions): number {
  writeU48(buf, off, pkt.dstMac);
  writeU48(buf, off + 6, pkt.srcMac);
  const vid = opts.vlanId;
  if (vid === undefined || vid === null) {
    writeU16(buf, off + 12, etherType);
    return ETH_HEADER_BYTES;
  }
  writeU16(buf, off + 12, EtherType.Vlan);
  writeU16(buf, off + 14, ((pkt.prio & 7) << 13) | (vid & 0xfff));
  writeU16(buf, off + 16, etherType);
  return ETH_HEADER_BYTES + VLAN_TAG_BYTES;
}

/** Ethernet header bytes of an encoded frame (an 802.1Q tag adds 4). */
function ethBytesOf(frame: Uint8Array): number {
  return frame[12] === 0x81 && frame[13] === 0x00 ? ETH_HEADER_BYTES + VLAN_TAG_BYTES : ETH_HEADER_BYTES;
}

/** Ethernet header bytes encodeFrameInto writes under `opts`. */
function ethBytes(opts: EncodeOptions): number {
  return opts.vlanId === undefined || opts.vlanId === null
    ? ETH_HEADER_BYTES
    : ETH_HEADER_BYTES + VLAN_TAG_BYTES;
}

/**
 * A switch forwarding a frame it received: the received bytes, with the Ethernet header written
 * for this hop and the IPv4 fields a switch changes (DSCP/ECN, TTL) patched, checksum included.
 * The ICRC is not computed again: RoCEv2's ICRC masks the IP TOS, TTL and header checksum (and the
 * UDP checksum) precisely so that routers may change them, and carrying the sender's ICRC keeps
 * it end to end, as on a real fabric. Every other field must be what was received (a switch
 * changes no other); test/wire/forward-in-place.test.ts holds this against the full encoder.
 */
function forwardInPlace(
  pkt: Packet,
  wire: Uint8Array,
  buf: Uint8Array,
  off: number,
  opts: EncodeOptions,
): number {
  // The whole frame, then this hop's Ethernet header over the received one (the caller checked
  // they are the same length): copying from the IP header on needs a view of `wire` per frame.
  buf.set(wire, off);
  const ipOff = off + writeEth(buf, off, pkt, EtherType.Ipv4, opts);
  buf[ipOff + 1] = ((pkt.dscp & 0x3f) << 2) | (pkt.ecn & 3);
  buf[ipOff + 8] = pkt.ttl;
  writeIpv4Checksum(buf, ipOff);
  return wire.length;
}

/**
 * Encodes the standard frame into `buf` at `off` (which must have encodedFrameBytes(pkt) bytes
 * free) and returns the number of bytes written. Every byte in that range is written, so a
 * pooled or `allocUnsafe` buffer is fine. Throws WireEncodeError on an inconsistent Packet.
 */
export function encodeFrameInto(
  pkt: Packet,
  buf: Uint8Array,
  off: number,
  opts: EncodeOptions = NO_OPTIONS,
): number {
  checkPayloadLen(pkt);
  const need = encodedFrameBytes(pkt, opts);
  if (buf.length - off < need)
    fail(pkt, `needs ${need} bytes at offset ${off}, buffer has ${buf.length - off}`);
  switch (pkt.kind) {
    case FrameKind.Pfc: {
      if (pkt.pfc === null) fail(pkt, 'Pfc needs pkt.pfc');
      const b = off + writeEth(buf, off, pkt, EtherType.MacControl, opts);
      encodePfcBody(buf, b, pkt.pfc);
      const end = Math.max(off + ETH_MIN_FRAME_BYTES, b + PFC_BODY_BYTES);
      buf.fill(0, b + PFC_BODY_BYTES, end);
      return end - off;
    }
    case FrameKind.Cnm: {
      if (pkt.cnm === null) fail(pkt, 'Cnm needs pkt.cnm');
      const b = off + writeEth(buf, off, pkt, EtherType.Cnm, opts);
      encodeCnmBody(buf, b, pkt.cnm);
      return b + CNM_BODY_BYTES - off;
    }
    case FrameKind.Sync: {
      const b = off + writeEth(buf, off, pkt, EtherType.Sync, opts);
      buf[b] = SYNC_VERSION;
      buf[b + 1] = 0;
      writeU32(buf, b + 2, pkt.srcIp);
      writeU32(buf, b + 6, pkt.dstIp);
      writeU32(buf, b + 10, pkt.psn);
      buf.fill(0, b + 14, off + ETH_MIN_FRAME_BYTES);
      return ETH_MIN_FRAME_BYTES;
    }
  }
  if (!isRoceKind(pkt.kind)) fail(pkt, 'unknown kind');
  checkRoce(pkt);
  const wire = pkt.wire;
  if (
    wire !== null &&
    wire.length === need &&
    ethBytesOf(wire) === ethBytes(opts) &&
    opts.udpChecksum !== true
  )
    return forwardInPlace(pkt, wire, buf, off, opts);

  const ipOff = off + writeEth(buf, off, pkt, EtherType.Ipv4, opts);
  const udpOff = ipOff + IPV4_HEADER_BYTES;
  const bthOff = udpOff + UDP_HEADER_BYTES;
  const isCnp = pkt.kind === FrameKind.Cnp;
  const isPull = pkt.kind === FrameKind.Pull;
  const carried = carriedPayloadBytes(pkt);
  const pad = isCnp || isPull ? 0 : padBytes(carried);
  let p = bthOff + BTH_BYTES;
  /** From here to the ICRC every byte written is zero (a payload not carried, the padding). */
  let zerosFrom = -1;
  writeBth(buf, bthOff, pkt, pad);
  if (isCnp) {
    const period = pkt.ext !== null && pkt.ext.cnpPeriodNs !== null ? pkt.ext.cnpPeriodNs : 0;
    p += encodeCnpBody(buf, p, period);
  } else if (isPull) {
    p += encodePullBody(buf, p, pkt.ext!.pull!);
  } else if (pkt.aeth !== null && pkt.kind !== FrameKind.Data) {
    buf[p] = pkt.aeth.syndrome;
    buf[p + 1] = pkt.aeth.msn >>> 16;
    buf[p + 2] = pkt.aeth.msn >>> 8;
    buf[p + 3] = pkt.aeth.msn;
    p += AETH_BYTES;
  } else {
    if (opcodeHasReth(pkt.opcode)) {
      const r = pkt.reth;
      if (r === null) buf.fill(0, p, p + RETH_BYTES);
      else {
        writeU32(buf, p, r.vaHi);
        writeU32(buf, p + 4, r.vaLo);
        writeU32(buf, p + 8, r.rkey);
        writeU32(buf, p + 12, r.dmaLength);
      }
      p += RETH_BYTES;
    }
    if (opcodeHasImmDt(pkt.opcode)) {
      writeU32(buf, p, pkt.immDt ?? 0);
      p += IMMDT_BYTES;
    }
    if (pkt.payload !== null) buf.set(pkt.payload, p);
    else buf.fill(0, p, p + carried);
    zerosFrom = pkt.payload === null ? p : p + carried;
    p += carried;
    for (let i = 0; i < pad; i++) buf[p++] = 0;
  }
  const icrcOff = p;
  if (zerosFrom < 0) zerosFrom = icrcOff;
  const end = icrcOff + ICRC_BYTES;
  const ipTotal = end - ipOff;
  if (ipTotal > 0xffff) fail(pkt, `IPv4 total length ${ipTotal} exceeds 65535`);
  writeIpv4(
    buf,
    ipOff,
    pkt.dscp,
    pkt.ecn,
    ipTotal,
    pkt.ipId,
    IPV4_FLAGS_DF,
    pkt.ttl,
    IP_PROTO_UDP,
    pkt.srcIp,
    pkt.dstIp,
  );
  const udpLen = ipTotal - IPV4_HEADER_BYTES;
  writeU16(buf, udpOff, pkt.srcPort);
  writeU16(buf, udpOff + 2, opts.udpDstPort ?? ROCEV2_UDP_PORT);
  writeU16(buf, udpOff + 4, udpLen);
  writeU16(buf, udpOff + 6, 0);
  const icrc = computeIcrcZerosFrom(buf, ipOff, zerosFrom, icrcOff);
  buf[icrcOff] = icrc;
  buf[icrcOff + 1] = icrc >>> 8;
  buf[icrcOff + 2] = icrc >>> 16;
  buf[icrcOff + 3] = icrc >>> 24;
  // the UDP checksum covers the ICRC, and the ICRC masks the UDP checksum: ICRC first
  if (opts.udpChecksum === true) writeU16(buf, udpOff + 6, udpChecksum(buf, ipOff, udpOff));
  return end - off;
}

/** The complete standard frame of `pkt` (no FCS), in a fresh Buffer. */
export function encodeFrame(pkt: Packet, opts: EncodeOptions = NO_OPTIONS): Buffer {
  checkPayloadLen(pkt);
  const buf = Buffer.allocUnsafe(encodedFrameBytes(pkt, opts));
  encodeFrameInto(pkt, buf, 0, opts);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Decoding

function payloadOf(
  buf: Uint8Array,
  off: number,
  len: number,
  mode: DecodeOptions['payload'],
): Uint8Array | null {
  if (mode === 'drop') return null;
  if (mode === 'copy') {
    const p = new Uint8Array(len);
    p.set(buf.subarray(off, off + len));
    return p;
  }
  return new Uint8Array(buf.buffer, buf.byteOffset + off, len);
}

/**
 * Decodes IPv4 · UDP · BTH … ICRC starting at `ipOff` into `pkt`. `frameEnd` is where the bytes
 * handed to us end; `padTo` > 0 allows Ethernet minimum-frame padding up to that length.
 */
function decodeRoce(
  buf: Uint8Array,
  ipOff: number,
  frameEnd: number,
  padTo: number,
  pkt: Packet,
  opts: DecodeOptions,
): Packet | DecodeError {
  if (frameEnd - ipOff < IPV4_HEADER_BYTES)
    return decodeError('truncated', 'IPv4 header needs 20 bytes', ipOff);
  const vihl = buf[ipOff];
  if (vihl !== 0x45) {
    if (vihl >>> 4 !== 4) return decodeError('bad-version', `IP version ${vihl >>> 4}, expected 4`, ipOff);
    if ((vihl & 0xf) < 5) return decodeError('bad-field', `IPv4 IHL ${vihl & 0xf} is below 5`, ipOff);
    return decodeError('unsupported', 'IPv4 options are not supported (the ICRC assumes IHL 5)', ipOff);
  }
  const total = readU16(buf, ipOff + 2);
  const end = ipOff + total;
  if (total < IPV4_HEADER_BYTES)
    return decodeError('bad-length', `IPv4 total length ${total} < 20`, ipOff + 2);
  if (end > frameEnd) {
    return decodeError(
      'truncated',
      `IPv4 total length ${total} runs past the ${frameEnd - ipOff} bytes present`,
      ipOff + 2,
    );
  }
  if (end < frameEnd && frameEnd !== padTo) {
    return decodeError('bad-length', `${frameEnd - end} bytes after the IPv4 packet`, end);
  }
  const ff = readU16(buf, ipOff + 6);
  if ((ff & 0x3fff) !== 0) return decodeError('unsupported', 'IPv4 fragments are not supported', ipOff + 6);
  const proto = buf[ipOff + 9];
  if (proto !== IP_PROTO_UDP)
    return decodeError('unknown-protocol', `IP protocol ${proto} is not UDP`, ipOff + 9);
  const verifySums = opts.verifyChecksums !== false;
  if (verifySums && !ipv4ChecksumOk(buf, ipOff)) {
    return decodeError('bad-checksum', 'IPv4 header checksum mismatch', ipOff + 10);
  }
  const udpOff = ipOff + IPV4_HEADER_BYTES;
  if (end - udpOff < UDP_HEADER_BYTES) return decodeError('truncated', 'UDP header needs 8 bytes', udpOff);
  const udpLen = readU16(buf, udpOff + 4);
  if (udpLen !== total - IPV4_HEADER_BYTES) {
    return decodeError(
      'bad-length',
      `UDP length ${udpLen} != IPv4 payload ${total - IPV4_HEADER_BYTES}`,
      udpOff + 4,
    );
  }
  const dport = readU16(buf, udpOff + 2);
  const rocePort = opts.roceUdpPort ?? ROCEV2_UDP_PORT;
  if (dport !== rocePort)
    return decodeError('unknown-port', `UDP port ${dport} is not RoCEv2 (${rocePort})`, udpOff + 2);
  const bthOff = udpOff + UDP_HEADER_BYTES;
  if (end - bthOff < BTH_BYTES + ICRC_BYTES) {
    return decodeError('truncated', 'UDP payload shorter than BTH + ICRC', bthOff);
  }
  const b1 = buf[bthOff + 1];
  if ((b1 & 0xf) !== 0) return decodeError('bad-version', `BTH TVer ${b1 & 0xf}, expected 0`, bthOff + 1);
  const op = buf[bthOff];
  const padCnt = (b1 >>> 4) & 3;
  const icrcOff = end - ICRC_BYTES;
  let p = bthOff + BTH_BYTES;
  let kind: FrameKind;
  if (op <= 0x0b || (op >= 0x20 && op <= 0x2b)) {
    kind = FrameKind.Data;
    const hasReth = opcodeHasReth(op);
    const hasImm = opcodeHasImmDt(op);
    const hdr = (hasReth ? RETH_BYTES : 0) + (hasImm ? IMMDT_BYTES : 0);
    const rest = icrcOff - p - hdr;
    if (rest < 0)
      return decodeError('bad-length', `opcode 0x${op.toString(16)} needs ${hdr} header bytes`, p);
    if (rest % 4 !== 0 || rest < padCnt) {
      return decodeError(
        'bad-length',
        `payload + pad (${rest}) is not a multiple of 4 or below PadCnt ${padCnt}`,
        bthOff + 1,
      );
    }
    if (hasReth) {
      pkt.reth = {
        vaHi: readU32(buf, p),
        vaLo: readU32(buf, p + 4),
        rkey: readU32(buf, p + 8),
        dmaLength: readU32(buf, p + 12),
      };
      p += RETH_BYTES;
    }
    if (hasImm) {
      pkt.immDt = readU32(buf, p);
      p += IMMDT_BYTES;
    }
    const len = rest - padCnt;
    pkt.payloadLen = len;
    pkt.payload = payloadOf(buf, p, len, opts.payload);
  } else if (op === Opcode.Acknowledge) {
    if (icrcOff - p !== AETH_BYTES || padCnt !== 0) {
      return decodeError('bad-length', 'an Acknowledge carries exactly a 4-byte AETH and no pad', p);
    }
    const syn = buf[p];
    const cls = (syn >>> 5) & 3;
    if (cls === 2)
      return decodeError('bad-field', `AETH syndrome 0x${syn.toString(16)} uses the reserved class`, p);
    kind = cls === 0 ? FrameKind.Ack : FrameKind.Nak;
    pkt.aeth = { syndrome: syn, msn: readU24(buf, p + 1) };
  } else if (op === Opcode.Cnp) {
    if (icrcOff - p !== CNP_PAYLOAD_BYTES || padCnt !== 0) {
      return decodeError('bad-length', 'a CNP carries exactly 16 reserved bytes and no pad', p);
    }
    kind = FrameKind.Cnp;
    const period = readU32(buf, p);
    if (period !== 0) {
      const ext = createExt();
      ext.cnpPeriodNs = period;
      pkt.ext = ext;
    }
  } else if (op === Opcode.UetPull) {
    if (icrcOff - p !== PULL_BODY_BYTES || padCnt !== 0) {
      return decodeError('bad-length', 'a pull carries exactly its 16-byte body and no pad', p);
    }
    const pull = decodePullBody(buf, p);
    if ('code' in pull) return pull;
    kind = FrameKind.Pull;
    const ext = createExt();
    ext.pull = pull;
    pkt.ext = ext;
  } else {
    return decodeError('unknown-opcode', `BTH opcode 0x${op.toString(16)} is not modelled`, bthOff);
  }
  if (opts.verifyIcrc !== false) {
    const want = computeIcrc(buf, ipOff, icrcOff);
    const got =
      (buf[icrcOff] | (buf[icrcOff + 1] << 8) | (buf[icrcOff + 2] << 16) | (buf[icrcOff + 3] << 24)) >>> 0;
    if (want !== got)
      return decodeError(
        'bad-icrc',
        `ICRC 0x${got.toString(16)} != computed 0x${want.toString(16)}`,
        icrcOff,
      );
  }
  if (verifySums && (buf[udpOff + 6] | buf[udpOff + 7]) !== 0) {
    if (udpChecksum(buf, ipOff, udpOff) !== readU16(buf, udpOff + 6)) {
      return decodeError('bad-checksum', 'UDP checksum mismatch', udpOff + 6);
    }
  }
  pkt.kind = kind;
  const tos = buf[ipOff + 1];
  pkt.dscp = tos >>> 2;
  pkt.ecn = (tos & 3) as Ecn;
  pkt.ipId = readU16(buf, ipOff + 4);
  pkt.ttl = buf[ipOff + 8];
  pkt.srcIp = readU32(buf, ipOff + 12);
  pkt.dstIp = readU32(buf, ipOff + 16);
  pkt.srcPort = readU16(buf, udpOff);
  readBthInto(buf, bthOff, pkt);
  return pkt;
}

function finish(pkt: Packet): Packet {
  pkt.sizeBytes = emulatedSizeBytes(pkt);
  return pkt;
}

/**
 * Decodes a standard frame (as encodeFrame writes it; an 802.1Q tag is accepted and its PCP
 * becomes pkt.prio). Never throws: anything malformed comes back as a DecodeError.
 * id is 0 and sizeBytes follows the emulated size rule (size.ts).
 */
export function decodeFrame(
  buf: Buffer | Uint8Array,
  opts: DecodeOptions = NO_OPTIONS,
): Packet | DecodeError {
  const len = buf.length;
  const max = opts.maxFrameBytes ?? MAX_FRAME_BYTES;
  if (len > max) return decodeError('oversized', `frame of ${len} bytes exceeds ${max}`, 0);
  if (len < ETH_HEADER_BYTES) return decodeError('truncated', 'Ethernet header needs 14 bytes', 0);
  let type = readU16(buf, 12);
  let off = ETH_HEADER_BYTES;
  let pcp = -1;
  if (type === EtherType.Vlan) {
    if (len < ETH_HEADER_BYTES + VLAN_TAG_BYTES)
      return decodeError('truncated', '802.1Q tag needs 4 bytes', 12);
    pcp = buf[14] >>> 5;
    type = readU16(buf, 16);
    off += VLAN_TAG_BYTES;
  }
  const pkt = createPacket();
  pkt.dstMac = (buf[0] * 0x100 + buf[1]) * 0x1_0000_0000 + readU32(buf, 2);
  pkt.srcMac = (buf[6] * 0x100 + buf[7]) * 0x1_0000_0000 + readU32(buf, 8);
  switch (type) {
    case EtherType.Ipv4: {
      const r = decodeRoce(buf, off, len, ETH_MIN_FRAME_BYTES, pkt, opts);
      if (r !== pkt) return r;
      pkt.prio = pcp >= 0 ? pcp : (opts.prioOfDscp ?? defaultPrioOfDscp)(pkt.dscp);
      // `buf` is the frame (len is its length): no second view of it.
      if (opts.keepWire === true) pkt.wire = buf;
      return finish(pkt);
    }
    case EtherType.MacControl: {
      const want = Math.max(ETH_MIN_FRAME_BYTES, off + PFC_BODY_BYTES);
      if (len < off + 2) return decodeError('truncated', 'MAC Control opcode missing', off);
      const body = decodePfcBody(buf, off);
      if ('code' in body) return body;
      if (len !== want) return decodeError('bad-length', `PFC frame of ${len} bytes, expected ${want}`, off);
      pkt.kind = FrameKind.Pfc;
      pkt.pfc = body;
      pkt.prio = pcp >= 0 ? pcp : CONTROL_PRIO;
      return finish(pkt);
    }
    case EtherType.Cnm: {
      const body = decodeCnmBody(buf, off);
      if ('code' in body) return body;
      if (len !== off + CNM_BODY_BYTES) {
        return decodeError('bad-length', `CNM frame of ${len} bytes, expected ${off + CNM_BODY_BYTES}`, off);
      }
      pkt.kind = FrameKind.Cnm;
      pkt.cnm = body;
      pkt.prio = pcp >= 0 ? pcp : CONTROL_PRIO;
      return finish(pkt);
    }
    case EtherType.Sync: {
      if (len < off + 14) return decodeError('truncated', 'sync body needs 14 bytes', off);
      if (buf[off] !== SYNC_VERSION)
        return decodeError('bad-version', `sync version ${buf[off]}, expected 1`, off);
      if (len !== ETH_MIN_FRAME_BYTES)
        return decodeError('bad-length', `sync frame of ${len} bytes, expected 60`, off);
      pkt.kind = FrameKind.Sync;
      pkt.srcIp = readU32(buf, off + 2);
      pkt.dstIp = readU32(buf, off + 6);
      pkt.psn = readU32(buf, off + 10);
      pkt.prio = pcp >= 0 ? pcp : CONTROL_PRIO;
      return finish(pkt);
    }
    default:
      return decodeError('unknown-ethertype', `EtherType 0x${type.toString(16).padStart(4, '0')}`, off - 2);
  }
}

/**
 * Decodes a bare IPv4/UDP/BTH packet (no Ethernet header), e.g. the payload of an IPv4-in-UDP
 * tunnel. MACs are 0; prio follows the DSCP mapping.
 */
export function decodeIpv4Packet(
  buf: Buffer | Uint8Array,
  opts: DecodeOptions = NO_OPTIONS,
): Packet | DecodeError {
  const max = opts.maxFrameBytes ?? MAX_FRAME_BYTES;
  if (buf.length > max) return decodeError('oversized', `packet of ${buf.length} bytes exceeds ${max}`, 0);
  const pkt = createPacket();
  const r = decodeRoce(buf, 0, buf.length, -1, pkt, opts);
  if (r !== pkt) return r;
  pkt.prio = (opts.prioOfDscp ?? defaultPrioOfDscp)(pkt.dscp);
  return finish(pkt);
}
