/**
 * SRCC congestion notification message body (docs/wire.md §1.9 CNM), 56 bytes big-endian, carried in an
 * L2 frame with EtherType 0x22E7 (the 802.1Qau CNM EtherType; the body is ours, not QCN's).
 *
 *   0 ver:4=1 kind:4=1 | 1 flags | 2 flowId u16 | 4 targetRateKbps u32 | 8 cpId u32 | 12 nHops u8
 *  13 hopsTraversed u8 | 14 mActive u16 | 16 MActive u8 | 17 cpEgressPort u8 | 18 reserved u16
 *  20 qLenBytes u32 | 24 qCthRaw i32 | 28 flowSrcIp | 32 flowDstIp | 36 flowSrcPort u16
 *  38 flowDstPort u16 | 40 destQpn u32 | 44 triggerPsn u32 | 48 cpTimestampNs u64
 */
import { readU16, readU32, readU64, writeU16, writeU32, writeU64 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { CnmBody } from './packet.js';
import { CNM_BODY_BYTES } from './size.js';

export { CNM_BODY_BYTES };

export const CNM_VERSION = 1;
export const CNM_KIND = 1;
/** Flag bits of byte 1. */
export const CnmFlag = { FullFlowKey: 1, FallbackIpRouted: 2, PaperMinimal: 4 } as const;
/** Relaying switches drop a CNM whose hopsTraversed exceeds this (loop guard). */
export const CNM_MAX_HOPS_TRAVERSED = 16;

export function encodeCnmBody(buf: Uint8Array, off: number, c: CnmBody): number {
  buf[off] = (CNM_VERSION << 4) | CNM_KIND;
  buf[off + 1] = c.flags;
  writeU16(buf, off + 2, c.flowId);
  writeU32(buf, off + 4, c.targetRateKbps);
  writeU32(buf, off + 8, c.cpId);
  buf[off + 12] = c.nHops;
  buf[off + 13] = c.hopsTraversed;
  writeU16(buf, off + 14, c.mActive);
  buf[off + 16] = c.MActive;
  buf[off + 17] = c.cpEgressPort;
  writeU16(buf, off + 18, 0);
  writeU32(buf, off + 20, c.qLenBytes);
  writeU32(buf, off + 24, c.qCthRaw);
  writeU32(buf, off + 28, c.flowSrcIp);
  writeU32(buf, off + 32, c.flowDstIp);
  writeU16(buf, off + 36, c.flowSrcPort);
  writeU16(buf, off + 38, c.flowDstPort);
  writeU32(buf, off + 40, c.destQpn);
  writeU32(buf, off + 44, c.triggerPsn);
  writeU64(buf, off + 48, c.cpTimestampNs);
  return CNM_BODY_BYTES;
}

export function decodeCnmBody(buf: Uint8Array, off = 0): CnmBody | DecodeError {
  if (buf.length - off < CNM_BODY_BYTES) return decodeError('truncated', 'CNM body needs 56 bytes', off);
  const vk = buf[off];
  if (vk >>> 4 !== CNM_VERSION) return decodeError('bad-version', `CNM version ${vk >>> 4}, expected 1`, off);
  if ((vk & 0xf) !== CNM_KIND)
    return decodeError('bad-field', `CNM message kind ${vk & 0xf}, expected 1`, off);
  return {
    flags: buf[off + 1],
    flowId: readU16(buf, off + 2),
    targetRateKbps: readU32(buf, off + 4),
    cpId: readU32(buf, off + 8),
    nHops: buf[off + 12],
    hopsTraversed: buf[off + 13],
    mActive: readU16(buf, off + 14),
    MActive: buf[off + 16],
    cpEgressPort: buf[off + 17],
    qLenBytes: readU32(buf, off + 20),
    qCthRaw: readU32(buf, off + 24) | 0,
    flowSrcIp: readU32(buf, off + 28),
    flowDstIp: readU32(buf, off + 32),
    flowSrcPort: readU16(buf, off + 36),
    flowDstPort: readU16(buf, off + 38),
    destQpn: readU32(buf, off + 40),
    triggerPsn: readU32(buf, off + 44),
    cpTimestampNs: readU64(buf, off + 48),
  };
}

/** SRCC flow id: CRC-16/ARC (poly 0x8005 reflected = 0xA001, init 0) over the 13-byte 5-tuple. */
export function srccFlowId(
  srcIp: number,
  dstIp: number,
  srcPort: number,
  dstPort: number,
  proto = 17,
): number {
  const t = new Uint8Array(13);
  writeU32(t, 0, srcIp);
  writeU32(t, 4, dstIp);
  t[8] = proto;
  writeU16(t, 9, srcPort);
  writeU16(t, 11, dstPort);
  let crc = 0;
  for (let i = 0; i < t.length; i++) {
    crc ^= t[i];
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}
