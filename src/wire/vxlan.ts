/** VXLAN header (RFC 7348), 8 bytes: flags (I = 0x08) · 3 reserved · VNI (24) · reserved. */
import { readU24, writeU24 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';

export const VXLAN_UDP_PORT = 4789;
export const VXLAN_HEADER_BYTES = 8;
/** "VNI valid" flag; the only flag RFC 7348 defines. */
export const VXLAN_FLAG_I = 0x08;

export interface VxlanHeader {
  vni: number;
}

export function encodeVxlanHeader(buf: Uint8Array, off: number, h: VxlanHeader): number {
  buf[off] = VXLAN_FLAG_I;
  buf[off + 1] = 0;
  buf[off + 2] = 0;
  buf[off + 3] = 0;
  writeU24(buf, off + 4, h.vni);
  buf[off + 7] = 0;
  return VXLAN_HEADER_BYTES;
}

/** Reserved bits are ignored, as RFC 7348 asks of receivers; a clear I flag is rejected. */
export function decodeVxlanHeader(buf: Uint8Array, off = 0): VxlanHeader | DecodeError {
  if (buf.length - off < VXLAN_HEADER_BYTES)
    return decodeError('truncated', 'VXLAN header needs 8 bytes', off);
  if ((buf[off] & VXLAN_FLAG_I) === 0) return decodeError('bad-field', 'VXLAN I flag is clear', off);
  return { vni: readU24(buf, off + 4) };
}
