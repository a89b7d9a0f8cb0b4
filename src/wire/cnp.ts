/**
 * RoCEv2 CNP body: the 16 reserved bytes after the BTH (docs/wire.md §1.6 CNP body), with our two
 * extensions:
 * - DCQCN+ CNP period τ ("DCQCN+: Taming Large-scale Incast Congestion in RDMA over Ethernet
 *   Networks"; docs/algorithms/dcqcn-plus.md): u32 big-endian ns in reserved bytes 0-3, 0 = "no τ".
 * - Dolce-RC ideal-mode ECN count (docs/algorithms/dolce-rc.md): min(count, 127) in BTH resv7; the exact count
 *   travels as PacketExt.ecnCount (a Geneve option on the real wire).
 */
import { readU32, writeU32 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import { CNP_PAYLOAD_BYTES } from './size.js';

export { CNP_PAYLOAD_BYTES };

/**
 * What a notification point may put on a CNP beyond plain RoCEv2 (all absent in DCQCN): the
 * fields the wire above can carry. NpIo.sendCnp takes it (src/cc/types.ts); nic/frames.ts writes
 * it into the frame.
 */
export interface CnpPayload {
  /** DCQCN+ CNP period τ, ns (reserved bytes 0-3). */
  cnpPeriodNs?: number;
  /** Dolce-RC exact ECN count (PacketExt.ecnCount). */
  ecnCount?: number;
  /** The 7 reserved BTH bits (Dolce-RC ideal-mode count, saturating at 127). */
  bthResv7?: number;
}

/** DSCP and ECN a ConnectX-4 Lx puts on its CNPs (docs/wire.md §1.6 CNP body, from a capture). */
export const CNP_DSCP = 48;
export const CNP_ECN = 2;

export function encodeCnpBody(buf: Uint8Array, off: number, cnpPeriodNs: number): number {
  writeU32(buf, off, cnpPeriodNs);
  buf.fill(0, off + 4, off + CNP_PAYLOAD_BYTES);
  return CNP_PAYLOAD_BYTES;
}

/** The DCQCN+ period in ns (0 = none). The other 12 reserved bytes are ignored on receive. */
export function decodeCnpPeriodNs(buf: Uint8Array, off = 0): number | DecodeError {
  if (buf.length - off < CNP_PAYLOAD_BYTES) return decodeError('truncated', 'CNP body needs 16 bytes', off);
  return readU32(buf, off);
}

/** What a Dolce-RC NP writes into BTH resv7 of a CNP: the mark count, saturated to 7 bits. */
export function cnpResv7OfEcnCount(ecnCount: number): number {
  return ecnCount >= 127 ? 127 : ecnCount <= 0 ? 0 : Math.floor(ecnCount);
}

/** DCQCN+'s optional mirror of τ into BTH.PSN: µs, saturating at 24 bits (receivers prefer bytes 0-3). */
export function cnpPsnOfPeriodNs(cnpPeriodNs: number): number {
  const us = Math.floor(cnpPeriodNs / 1000);
  return Math.min(us, 0xff_ffff);
}
