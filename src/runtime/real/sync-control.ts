/**
 * Lockstep control datagrams (docs/realtime.md "Lockstep"): a Geneve packet with the O (control)
 * bit set, no inner frame, and rocelab options only. It carries the null message of conservative
 * synchronisation (Chandy–Misra–Bryant): "no later frame on this link arrives before promiseNs",
 * the sender's best lower bound of the run's end (see lockstep.ts, "the end bound"), and the
 * promise it has heard from the receiver on the reverse link (a restarted node resumes after it).
 *
 *   Geneve header (8) · option 0x23 promise f64 ns · 0x25 end bound f64 ns · 0x26 heard f64 ns
 *   (each option 4 + 8 bytes)
 */

import { EtherType } from '../../wire/ethernet.js';
import {
  GENEVE_HEADER_BYTES,
  GENEVE_OPTION_HEADER_BYTES,
  writeGeneveHeader,
  writeGeneveOptionHeader,
} from '../../wire/geneve.js';
import { ROCELAB_OPTION_CLASS } from '../../wire/telemetry.js';

export const OPT_PROMISE = 0x23;
export const OPT_END_BOUND = 0x25;
export const OPT_HEARD = 0x26;
const OPTION_BYTES = GENEVE_OPTION_HEADER_BYTES + 8;
export const CONTROL_BYTES = GENEVE_HEADER_BYTES + 3 * OPTION_BYTES;

export interface SyncControl {
  promiseNs: number;
  endBoundNs: number;
  /** The sender's promise from the receiver (−∞ when it has none). */
  heardNs: number;
}

/** True when the datagram is a Geneve control (OAM) packet. */
export function isGeneveControl(buf: Uint8Array): boolean {
  return buf.length >= GENEVE_HEADER_BYTES && buf[0] >>> 6 === 0 && (buf[1] & 0x80) !== 0;
}

export function encodeSyncControl(
  vni: number,
  promiseNs: number,
  endBoundNs: number,
  heardNs: number,
): Buffer {
  const buf = Buffer.alloc(CONTROL_BYTES);
  writeGeneveHeader(buf, 0, 3 * OPTION_BYTES, vni, EtherType.TransparentEthernet, false, true);
  let p = GENEVE_HEADER_BYTES;
  p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OPT_PROMISE, 8);
  buf.writeDoubleBE(promiseNs, p);
  p += 8;
  p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OPT_END_BOUND, 8);
  buf.writeDoubleBE(endBoundNs, p);
  p += 8;
  p += writeGeneveOptionHeader(buf, p, ROCELAB_OPTION_CLASS, OPT_HEARD, 8);
  buf.writeDoubleBE(heardNs, p);
  return buf;
}

/** The promise and end bound of a control datagram, or null when it is not a well-formed one. */
export function decodeSyncControl(buf: Buffer): SyncControl | null {
  if (!isGeneveControl(buf)) return null;
  const optEnd = GENEVE_HEADER_BYTES + (buf[0] & 0x3f) * 4;
  if (optEnd > buf.length) return null;
  let promiseNs = Number.NaN;
  let endBoundNs = Number.NEGATIVE_INFINITY;
  let heardNs = Number.NEGATIVE_INFINITY;
  for (let p = GENEVE_HEADER_BYTES; p + GENEVE_OPTION_HEADER_BYTES <= optEnd; ) {
    const dataBytes = (buf[p + 3] & 0x1f) * 4;
    if (p + GENEVE_OPTION_HEADER_BYTES + dataBytes > optEnd) return null;
    if (((buf[p] << 8) | buf[p + 1]) === ROCELAB_OPTION_CLASS && dataBytes === 8) {
      const v = buf.readDoubleBE(p + GENEVE_OPTION_HEADER_BYTES);
      if (buf[p + 2] === OPT_PROMISE) promiseNs = v;
      else if (buf[p + 2] === OPT_END_BOUND) endBoundNs = v;
      else if (buf[p + 2] === OPT_HEARD) heardNs = v;
    }
    p += GENEVE_OPTION_HEADER_BYTES + dataBytes;
  }
  if (Number.isNaN(promiseNs) || Number.isNaN(endBoundNs) || Number.isNaN(heardNs)) return null;
  return { promiseNs, endBoundNs, heardNs };
}

/** The VNI (sender's egress port) of a Geneve datagram. */
export function geneveVni(buf: Buffer): number {
  return (buf[4] << 16) | (buf[5] << 8) | buf[6];
}
