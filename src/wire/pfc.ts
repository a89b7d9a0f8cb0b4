/**
 * IEEE 802.1Qbb priority flow control (docs/wire.md §1.8 PFC): MAC Control frame, opcode 0x0101, class-enable
 * vector, eight u16 pause times in quanta of 512 bit times, zero padding to the 60-byte minimum.
 */
import { readU16, writeU16 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { PfcBody } from './packet.js';

/** 01:80:c2:00:00:01, the MAC Control destination tshark insists on. */
export const PFC_DST_MAC = 0x0180c2000001;
export const MAC_CONTROL_OPCODE_PFC = 0x0101;
/** 802.3x PAUSE (one time for the whole link): decoded as 'unknown-opcode', we never send it. */
export const MAC_CONTROL_OPCODE_PAUSE = 0x0001;
/** opcode (2) + class-enable vector (2) + 8 × time (2). */
export const PFC_BODY_BYTES = 20;
export const PFC_PRIORITIES = 8;
export const PFC_MAX_QUANTA = 0xffff;
/** Bit times per pause quantum. */
export const PFC_QUANTUM_BITS = 512;

/** Writes opcode, vector and times at `off` (the padding is the frame encoder's job). */
export function encodePfcBody(buf: Uint8Array, off: number, body: PfcBody): number {
  writeU16(buf, off, MAC_CONTROL_OPCODE_PFC);
  writeU16(buf, off + 2, body.classEnable);
  for (let i = 0; i < PFC_PRIORITIES; i++) writeU16(buf, off + 4 + 2 * i, body.quanta[i] ?? 0);
  return PFC_BODY_BYTES;
}

export function decodePfcBody(buf: Uint8Array, off = 0): PfcBody | DecodeError {
  if (buf.length - off < PFC_BODY_BYTES) return decodeError('truncated', 'PFC body needs 20 bytes', off);
  const opcode = readU16(buf, off);
  if (opcode !== MAC_CONTROL_OPCODE_PFC) {
    return decodeError('unknown-opcode', `MAC Control opcode 0x${opcode.toString(16)} is not PFC`, off);
  }
  const quanta = new Array<number>(PFC_PRIORITIES);
  for (let i = 0; i < PFC_PRIORITIES; i++) quanta[i] = readU16(buf, off + 4 + 2 * i);
  return { classEnable: readU16(buf, off + 2), quanta };
}

/** Duration of one quantum at a line rate, ns (5.12 ns at 100 Gbit/s); fractional. */
export function pfcQuantumNs(lineRateBps: number): number {
  return (PFC_QUANTUM_BITS * 1e9) / lineRateBps;
}

/** Pause length in integer ns, rounded up so a pause never ends early. */
export function pfcQuantaToNs(quanta: number, lineRateBps: number): number {
  return ceilNearInteger((quanta * PFC_QUANTUM_BITS * 1e9) / lineRateBps);
}

/** ceil, except that float noise just above an integer (335539.20000000001) does not round up. */
function ceilNearInteger(v: number): number {
  const r = Math.round(v);
  return Math.abs(v - r) < 1e-6 ? r + 0 : Math.ceil(v);
}

/** Quanta covering at least `durationNs`, saturated at 65535. */
export function pfcNsToQuanta(durationNs: number, lineRateBps: number): number {
  if (durationNs <= 0) return 0;
  const q = ceilNearInteger((durationNs * lineRateBps) / (PFC_QUANTUM_BITS * 1e9));
  return Math.min(q, PFC_MAX_QUANTA);
}

/** Pause (quanta > 0) or resume (quanta 0) of one priority. */
export function pfcBodyFor(prio: number, quanta: number): PfcBody {
  const q = [0, 0, 0, 0, 0, 0, 0, 0];
  q[prio] = quanta;
  return { classEnable: 1 << prio, quanta: q };
}

/** Pause time this frame asks for on `prio`, in quanta; null when the class is not enabled. */
export function pfcQuantaFor(body: PfcBody, prio: number): number | null {
  return (body.classEnable >>> prio) & 1 ? (body.quanta[prio] ?? 0) : null;
}
