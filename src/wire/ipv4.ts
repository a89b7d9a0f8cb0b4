/** IPv4 header (20 bytes, no options: the RoCEv2 ICRC is only defined for IHL 5, docs/wire.md §1.2 IPv4). */
import { readU16, readU32, writeU16, writeU32 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { Ecn } from './packet.js';

export const IPV4_BYTES = 20;
export const IP_PROTO_UDP = 17;
/**
 * Flags/fragment word with only DF set: what RoCE NICs send (docs/wire.md §1.2 IPv4; a ConnectX-4 Lx
 * capture).
 */
export const IPV4_FLAGS_DF = 0x4000;

export interface Ipv4Header {
  dscp: number;
  ecn: Ecn;
  totalLength: number;
  ipId: number;
  dontFragment: boolean;
  moreFragments: boolean;
  fragmentOffset: number;
  ttl: number;
  protocol: number;
  /** As found on decode; ignored on encode (always recomputed). */
  checksum: number;
  srcIp: number;
  dstIp: number;
}

/** RFC 1071 one's-complement sum over the 20-byte header, optionally skipping the checksum word. */
function onesSum(buf: Uint8Array, off: number, skipChecksum: boolean): number {
  let sum = 0;
  for (let i = 0; i < IPV4_BYTES; i += 2) {
    if (skipChecksum && i === 10) continue;
    sum += (buf[off + i] << 8) | buf[off + i + 1];
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

/** Checksum value for the header at `off`, as if its checksum field were zero. */
export function ipv4Checksum(buf: Uint8Array, off: number): number {
  return ~onesSum(buf, off, true) & 0xffff;
}

/** A correct header sums to 0xFFFF including its own checksum. */
export function ipv4ChecksumOk(buf: Uint8Array, off: number): boolean {
  return onesSum(buf, off, false) === 0xffff;
}

export function writeIpv4Checksum(buf: Uint8Array, off: number): void {
  writeU16(buf, off + 10, ipv4Checksum(buf, off));
}

/**
 * Writes a 20-byte header from scalar fields (what encodeFrame uses, so no header object is
 * built per frame) and fills in the checksum.
 */
export function writeIpv4(
  buf: Uint8Array,
  off: number,
  dscp: number,
  ecn: number,
  totalLength: number,
  ipId: number,
  flagsFrag: number,
  ttl: number,
  protocol: number,
  srcIp: number,
  dstIp: number,
): void {
  buf[off] = 0x45;
  buf[off + 1] = ((dscp & 0x3f) << 2) | (ecn & 3);
  writeU16(buf, off + 2, totalLength);
  writeU16(buf, off + 4, ipId);
  writeU16(buf, off + 6, flagsFrag);
  buf[off + 8] = ttl;
  buf[off + 9] = protocol;
  writeU32(buf, off + 12, srcIp);
  writeU32(buf, off + 16, dstIp);
  writeIpv4Checksum(buf, off);
}

export function encodeIpv4(buf: Uint8Array, off: number, h: Ipv4Header): number {
  const flagsFrag =
    (h.dontFragment ? 0x4000 : 0) | (h.moreFragments ? 0x2000 : 0) | (h.fragmentOffset & 0x1fff);
  writeIpv4(buf, off, h.dscp, h.ecn, h.totalLength, h.ipId, flagsFrag, h.ttl, h.protocol, h.srcIp, h.dstIp);
  return IPV4_BYTES;
}

/**
 * Decodes the fixed header. Rejects what RoCEv2 cannot carry (version ≠ 4, options) but leaves
 * checksum and length policy to the caller, which knows the frame around it.
 */
export function decodeIpv4(buf: Uint8Array, off = 0): Ipv4Header | DecodeError {
  if (buf.length - off < IPV4_BYTES) return decodeError('truncated', 'IPv4 header needs 20 bytes', off);
  const vihl = buf[off];
  if (vihl >>> 4 !== 4) return decodeError('bad-version', `IP version ${vihl >>> 4}, expected 4`, off);
  if ((vihl & 0xf) !== 5) {
    if ((vihl & 0xf) < 5) return decodeError('bad-field', `IPv4 IHL ${vihl & 0xf} is below 5`, off);
    return decodeError('unsupported', 'IPv4 options are not supported (RoCEv2 ICRC assumes IHL 5)', off);
  }
  const tos = buf[off + 1];
  const ff = readU16(buf, off + 6);
  return {
    dscp: tos >>> 2,
    ecn: (tos & 3) as Ecn,
    totalLength: readU16(buf, off + 2),
    ipId: readU16(buf, off + 4),
    dontFragment: (ff & 0x4000) !== 0,
    moreFragments: (ff & 0x2000) !== 0,
    fragmentOffset: ff & 0x1fff,
    ttl: buf[off + 8],
    protocol: buf[off + 9],
    checksum: readU16(buf, off + 10),
    srcIp: readU32(buf, off + 12),
    dstIp: readU32(buf, off + 16),
  };
}

/**
 * What a congested, routing switch does to a frame in flight: ECT(0|1) → CE, TTL − 1, checksum
 * fixed. The ICRC stays valid because ToS, TTL and checksum are masked out of it (docs/wire.md §1.7 ICRC).
 * Returns false (and changes nothing) for Not-ECT, which RFC 3168 drops instead of marking.
 */
export function markCeInPlace(buf: Uint8Array, ipOff: number, decrementTtl = true): boolean {
  const tos = buf[ipOff + 1];
  if ((tos & 3) === 0) return false;
  buf[ipOff + 1] = tos | 3;
  if (decrementTtl && buf[ipOff + 8] > 0) buf[ipOff + 8]--;
  writeIpv4Checksum(buf, ipOff);
  return true;
}

/** "10.0.0.1" from the 32-bit number. */
export function ipToString(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 0xff}.${(ip >>> 8) & 0xff}.${ip & 0xff}`;
}

/** Parses a dotted quad; null if malformed. */
export function parseIp(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (m === null) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}
