/** InfiniBand Base Transport Header, 12 bytes (docs/wire.md §1.4 BTH), and 24-bit PSN arithmetic. */
import { readU16, readU24, writeU16, writeU24 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { Packet } from './packet.js';
import { BTH_BYTES } from './size.js';

export { BTH_BYTES };

/** The BTH fields a Packet carries under the same names; PadCnt is derived from the payload. */
export type BthFields = Pick<
  Packet,
  'opcode' | 'solicitedEvent' | 'migReq' | 'pkey' | 'fecn' | 'becn' | 'destQp' | 'ackReq' | 'bthResv7' | 'psn'
>;

/** Every bit of the header, for standalone encode/decode. */
export interface Bth extends BthFields {
  padCnt: number;
  /** Transport header version; 0 is the only one defined. */
  tver: number;
  /** The six reserved bits of byte 4 (masked in the ICRC; 0 when we send). */
  resv6: number;
}

export const PSN_MODULO = 0x100_0000;
export const PSN_MASK = 0xff_ffff;

/** Writes the header from Packet-shaped fields (TVer 0, Resv6 0). */
export function writeBth(buf: Uint8Array, off: number, h: BthFields, padCnt: number): void {
  buf[off] = h.opcode;
  buf[off + 1] = (h.solicitedEvent ? 0x80 : 0) | (h.migReq ? 0x40 : 0) | ((padCnt & 3) << 4);
  writeU16(buf, off + 2, h.pkey);
  buf[off + 4] = (h.fecn ? 0x80 : 0) | (h.becn ? 0x40 : 0);
  writeU24(buf, off + 5, h.destQp);
  buf[off + 8] = (h.ackReq ? 0x80 : 0) | (h.bthResv7 & 0x7f);
  writeU24(buf, off + 9, h.psn);
}

export function encodeBth(buf: Uint8Array, off: number, h: Bth): number {
  writeBth(buf, off, h, h.padCnt);
  buf[off + 1] |= h.tver & 0xf;
  buf[off + 4] |= h.resv6 & 0x3f;
  return BTH_BYTES;
}

/** Fills the Packet-shaped fields of `target` in place (no allocation); the caller checks bounds. */
export function readBthInto(buf: Uint8Array, off: number, target: BthFields): void {
  const b1 = buf[off + 1];
  const b4 = buf[off + 4];
  const b8 = buf[off + 8];
  target.opcode = buf[off];
  target.solicitedEvent = (b1 & 0x80) !== 0;
  target.migReq = (b1 & 0x40) !== 0;
  target.pkey = readU16(buf, off + 2);
  target.fecn = (b4 & 0x80) !== 0;
  target.becn = (b4 & 0x40) !== 0;
  target.destQp = readU24(buf, off + 5);
  target.ackReq = (b8 & 0x80) !== 0;
  target.bthResv7 = b8 & 0x7f;
  target.psn = readU24(buf, off + 9);
}

export function decodeBth(buf: Uint8Array, off = 0): Bth | DecodeError {
  if (buf.length - off < BTH_BYTES) return decodeError('truncated', 'BTH needs 12 bytes', off);
  const h: Bth = {
    opcode: 0,
    solicitedEvent: false,
    migReq: false,
    pkey: 0,
    fecn: false,
    becn: false,
    destQp: 0,
    ackReq: false,
    bthResv7: 0,
    psn: 0,
    padCnt: bthPadCnt(buf, off),
    tver: buf[off + 1] & 0xf,
    resv6: buf[off + 4] & 0x3f,
  };
  readBthInto(buf, off, h);
  return h;
}

// Zero-copy field getters, for code that only needs one or two fields of a frame.
export const bthOpcode = (buf: Uint8Array, off: number): number => buf[off];
export const bthPadCnt = (buf: Uint8Array, off: number): number => (buf[off + 1] >>> 4) & 3;
export const bthTver = (buf: Uint8Array, off: number): number => buf[off + 1] & 0xf;
export const bthBecn = (buf: Uint8Array, off: number): boolean => (buf[off + 4] & 0x40) !== 0;
export const bthDestQp = (buf: Uint8Array, off: number): number => readU24(buf, off + 5);
export const bthAckReq = (buf: Uint8Array, off: number): boolean => (buf[off + 8] & 0x80) !== 0;
export const bthResv7 = (buf: Uint8Array, off: number): number => buf[off + 8] & 0x7f;
export const bthPsn = (buf: Uint8Array, off: number): number => readU24(buf, off + 9);

/** psn + n modulo 2^24. */
export function psnAdd(psn: number, n: number): number {
  return (((psn + n) % PSN_MODULO) + PSN_MODULO) % PSN_MODULO;
}

/**
 * Signed distance a − b in the 24-bit PSN space, in [−2^23, 2^23): positive when a is after b.
 * This is how IBA compares PSNs inside the valid window.
 */
export function psnDiff(a: number, b: number): number {
  const d = (a - b) & PSN_MASK;
  return d >= 0x80_0000 ? d - PSN_MODULO : d;
}
