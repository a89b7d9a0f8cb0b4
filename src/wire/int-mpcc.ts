/**
 * MPCC's INT block (docs/wire.md §2.2 MPCC block), 32 bytes, all big-endian:
 *   nhop u16 · 5 × { q: u32 bytes queued at the egress port, n: u16 active flows }
 * Stamping saturates instead of wrapping: only the first five switches write a slot, later ones
 * only count (unlike HPCC, which overwrites slot 0). Only qlenBytes and activeFlows travel; the
 * other IntHop fields decode as 0.
 */
import { readU16, readU32, writeU16, writeU32 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { IntHop, IntStack } from './packet.js';
import { MPCC_INT_BYTES } from './size.js';

export { MPCC_INT_BYTES };

export const MPCC_MAX_HOPS = 5;
const HOP_BYTES = 6;

function sat(v: number, max: number): number {
  return v >= max ? max : v <= 0 ? 0 : Math.floor(v);
}

export function encodeMpccInt(buf: Uint8Array, off: number, stack: IntStack): number {
  writeU16(buf, off, sat(stack.nhop, 0xffff));
  const n = Math.min(stack.hops.length, MPCC_MAX_HOPS);
  for (let i = 0; i < n; i++) {
    const h = stack.hops[i];
    writeU32(buf, off + 2 + HOP_BYTES * i, sat(h.qlenBytes, 0xffff_ffff));
    writeU16(buf, off + 6 + HOP_BYTES * i, sat(h.activeFlows, 0xffff));
  }
  buf.fill(0, off + 2 + HOP_BYTES * n, off + MPCC_INT_BYTES);
  return MPCC_INT_BYTES;
}

export function decodeMpccInt(buf: Uint8Array, off = 0): IntStack | DecodeError {
  if (buf.length - off < MPCC_INT_BYTES) return decodeError('truncated', 'MPCC INT needs 32 bytes', off);
  const nhop = readU16(buf, off);
  const n = Math.min(nhop, MPCC_MAX_HOPS);
  const hops: IntHop[] = [];
  for (let i = 0; i < n; i++) {
    hops.push({
      lineRateBps: 0,
      timeNs: 0,
      txBytes: 0,
      qlenBytes: readU32(buf, off + 2 + HOP_BYTES * i),
      activeFlows: readU16(buf, off + 6 + HOP_BYTES * i),
    });
  }
  return { layout: 'mpcc', nhop, hops };
}

/**
 * The hop exactly as a receiver decodes it from the real wire (`decodeMpccInt(encodeMpccInt(…))`):
 * qlen and active flows saturated and floored, everything else 0. Virtual-time switches stamp
 * this, so a virtual MPCC sender sees what a real one sees.
 */
export function quantizeMpccHop(hop: IntHop): IntHop {
  return {
    lineRateBps: 0,
    timeNs: 0,
    txBytes: 0,
    qlenBytes: sat(hop.qlenBytes, 0xffff_ffff) >>> 0,
    activeFlows: sat(hop.activeFlows, 0xffff) & 0xffff,
  };
}

export function emptyMpccStack(): IntStack {
  return { layout: 'mpcc', nhop: 0, hops: [] };
}

/** The MPCC switch rule: `if nhop < 5 { hop[nhop] = {q, n} }; nhop += 1` (saturating). */
export function pushMpccHop(stack: IntStack, qlenBytes: number, activeFlows: number): void {
  if (stack.nhop < MPCC_MAX_HOPS) {
    stack.hops[stack.nhop] = {
      lineRateBps: 0,
      timeNs: 0,
      txBytes: 0,
      qlenBytes: sat(qlenBytes, 0xffff_ffff),
      activeFlows: sat(activeFlows, 0xffff),
    };
  }
  if (stack.nhop < 0xffff) stack.nhop++;
}
