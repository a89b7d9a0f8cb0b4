/** UDP header and its IPv4 pseudo-header checksum (RoCEv2 senders put 0, docs/wire.md §1.3 UDP). */
import { readU16, writeU16 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';

export const UDP_BYTES = 8;
export const ROCEV2_UDP_PORT = 4791;

export interface UdpHeader {
  srcPort: number;
  dstPort: number;
  length: number;
  checksum: number;
}

export function writeUdp(
  buf: Uint8Array,
  off: number,
  srcPort: number,
  dstPort: number,
  length: number,
  checksum: number,
): void {
  writeU16(buf, off, srcPort);
  writeU16(buf, off + 2, dstPort);
  writeU16(buf, off + 4, length);
  writeU16(buf, off + 6, checksum);
}

export function encodeUdp(buf: Uint8Array, off: number, h: UdpHeader): number {
  writeUdp(buf, off, h.srcPort, h.dstPort, h.length, h.checksum);
  return UDP_BYTES;
}

export function decodeUdp(buf: Uint8Array, off = 0): UdpHeader | DecodeError {
  if (buf.length - off < UDP_BYTES) return decodeError('truncated', 'UDP header needs 8 bytes', off);
  return {
    srcPort: readU16(buf, off),
    dstPort: readU16(buf, off + 2),
    length: readU16(buf, off + 4),
    checksum: readU16(buf, off + 6),
  };
}

/**
 * RFC 768 checksum of the datagram at `udpOff` (length from its header) under the IPv4
 * pseudo-header of the header at `ipOff`; the checksum field counts as zero. 0 maps to 0xFFFF
 * because 0 on the wire means "no checksum".
 */
export function udpChecksum(buf: Uint8Array, ipOff: number, udpOff: number): number {
  const len = readU16(buf, udpOff + 4);
  let sum = 17 + len;
  for (let i = 12; i < 20; i += 2) sum += (buf[ipOff + i] << 8) | buf[ipOff + i + 1];
  const end = udpOff + len;
  for (let i = udpOff; i < end; i += 2) {
    if (i === udpOff + 6) continue;
    sum += (buf[i] << 8) | (i + 1 < end ? buf[i + 1] : 0);
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  const c = ~sum & 0xffff;
  return c === 0 ? 0xffff : c;
}
