/**
 * Geneve header (RFC 8926) and option TLVs. The UDP payload is
 *   Ver(2)|OptLen(6) · O(1)|C(1)|Rsvd(6) · Protocol(16) · VNI(24) · Rsvd(8) · options · inner frame
 * with OptLen and each option's Length counted in 4-byte words. An option is
 *   Class(16) · Type(8, high bit = critical) · R(3)|Length(5) · data
 */
import { readU16, readU24, writeU16, writeU24 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import { EtherType } from './ethernet.js';

export const GENEVE_UDP_PORT = 6081;
export const GENEVE_HEADER_BYTES = 8;
export const GENEVE_OPTION_HEADER_BYTES = 4;
/** OptLen is 6 bits of 4-byte words. */
export const GENEVE_MAX_OPTIONS_BYTES = 63 * 4;
/** An option's Length is 5 bits of 4-byte words. */
export const GENEVE_MAX_OPTION_DATA_BYTES = 31 * 4;
/** Type bit that tells receivers not to forward a packet whose option they do not understand. */
export const GENEVE_CRITICAL_TYPE_BIT = 0x80;

export interface GeneveHeader {
  version: number;
  optionsBytes: number;
  oam: boolean;
  critical: boolean;
  protocol: number;
  vni: number;
}

export interface GeneveOption {
  optionClass: number;
  type: number;
  /** Offset of the option data in the decoded buffer. */
  dataOffset: number;
  dataBytes: number;
}

export function writeGeneveHeader(
  buf: Uint8Array,
  off: number,
  optionsBytes: number,
  vni: number,
  protocol: number = EtherType.TransparentEthernet,
  critical = false,
  oam = false,
): number {
  buf[off] = (optionsBytes >>> 2) & 0x3f;
  buf[off + 1] = (oam ? 0x80 : 0) | (critical ? 0x40 : 0);
  writeU16(buf, off + 2, protocol);
  writeU24(buf, off + 4, vni);
  buf[off + 7] = 0;
  return GENEVE_HEADER_BYTES;
}

export function encodeGeneveHeader(buf: Uint8Array, off: number, h: GeneveHeader): number {
  writeGeneveHeader(buf, off, h.optionsBytes, h.vni, h.protocol, h.critical, h.oam);
  buf[off] |= (h.version & 3) << 6;
  return GENEVE_HEADER_BYTES;
}

export function decodeGeneveHeader(buf: Uint8Array, off = 0): GeneveHeader | DecodeError {
  if (buf.length - off < GENEVE_HEADER_BYTES)
    return decodeError('truncated', 'Geneve header needs 8 bytes', off);
  return {
    version: buf[off] >>> 6,
    optionsBytes: (buf[off] & 0x3f) * 4,
    oam: (buf[off + 1] & 0x80) !== 0,
    critical: (buf[off + 1] & 0x40) !== 0,
    protocol: readU16(buf, off + 2),
    vni: readU24(buf, off + 4),
  };
}

/** Writes an option header; `dataBytes` must be a multiple of 4 and at most 124. */
export function writeGeneveOptionHeader(
  buf: Uint8Array,
  off: number,
  optionClass: number,
  type: number,
  dataBytes: number,
): number {
  writeU16(buf, off, optionClass);
  buf[off + 2] = type;
  buf[off + 3] = (dataBytes >>> 2) & 0x1f;
  return GENEVE_OPTION_HEADER_BYTES;
}

/** Reads the option at `off`, which must end by `end` (the end of the options area). */
export function readGeneveOption(buf: Uint8Array, off: number, end: number): GeneveOption | DecodeError {
  if (end - off < GENEVE_OPTION_HEADER_BYTES)
    return decodeError('bad-option', 'option header runs past OptLen', off);
  const dataBytes = (buf[off + 3] & 0x1f) * 4;
  if (off + GENEVE_OPTION_HEADER_BYTES + dataBytes > end) {
    return decodeError('bad-option', `option of ${dataBytes} data bytes runs past OptLen`, off + 3);
  }
  return { optionClass: readU16(buf, off), type: buf[off + 2], dataOffset: off + 4, dataBytes };
}

/** All options of the Geneve header at `off` (for tools and tests; the decapsulator walks them inline). */
export function decodeGeneveOptions(buf: Uint8Array, off = 0): GeneveOption[] | DecodeError {
  const h = decodeGeneveHeader(buf, off);
  if ('code' in h) return h;
  const end = off + GENEVE_HEADER_BYTES + h.optionsBytes;
  if (end > buf.length) return decodeError('truncated', 'Geneve options run past the datagram', off);
  const out: GeneveOption[] = [];
  for (let p = off + GENEVE_HEADER_BYTES; p < end; ) {
    const o = readGeneveOption(buf, p, end);
    if ('code' in o) return o;
    out.push(o);
    p = o.dataOffset + o.dataBytes;
  }
  return out;
}

/** VNI of a Geneve datagram without decoding anything else; -1 if too short. */
export function geneveVni(buf: Uint8Array): number {
  return buf.length < GENEVE_HEADER_BYTES ? -1 : readU24(buf, 4);
}
