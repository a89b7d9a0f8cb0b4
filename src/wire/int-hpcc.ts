/**
 * HPCC's INT stack in the layout of the HPCC ns-3 simulator (docs/wire.md §2.1 HPCC layout), 42 bytes:
 * five 64-bit hop words, each stored little-endian, then nhop as u16 little-endian.
 *
 * Hop word, from the least significant bit (GCC bitfield order on x86-64):
 *   bits 0..2   line-rate code: an index into the run's rate table (int-hpcc-rates.ts; the ns-3
 *               table 0 = 25G, 1 = 50G, 2 = 100G, 3 = 200G, 4 = 400G when the run's link rates
 *               are all in it); codes past the table decode to 0
 *   bits 3..26  dequeue time, ns mod 2^24
 *   bits 27..46 bytes sent on the port before this packet, units of 128·multi, mod 2^20
 *   bits 47..63 queue length at dequeue, units of 80·multi: its low 17 bits (the simulator's C
 *               bitfield truncates there, 10.5 MB at multi 1); the next 16 bits ride in the
 *               HpccQlenHigh option (telemetry.ts) when non-zero, so queues up to 2^33 units
 *               (687 GB at multi 1) are carried, never wrapped
 *
 * A switch writes slot nhop % 5 and then increments nhop, so past five hops slot 0 is overwritten.
 * IntStack.hops[i] is slot i; a decoded stack has min(nhop, 5) hops.
 */
import { readU16LE, readU32LE, writeU16LE, writeU32LE } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import { hpccRateCode, hpccRateOfCode, NS3_HPCC_RATES_BPS } from './int-hpcc-rates.js';
import type { IntHop, IntStack } from './packet.js';
import { HPCC_INT_BYTES } from './size.js';

export { HPCC_INT_BYTES };

export const HPCC_MAX_HOPS = 5;
export const HPCC_TIME_MODULO = 2 ** 24;
export const HPCC_BYTES_MODULO = 2 ** 20;
/** The hop word's qlen field: 17 bits of 80·multi-byte units. */
export const HPCC_QLEN_MODULO = 2 ** 17;
/** qlen units the wire carries with the HpccQlenHigh option's 16 more bits (queues wrap only past this). */
export const HPCC_QLEN_UNITS_MODULO = 2 ** 33;
export const HPCC_BYTES_UNIT = 128;
export const HPCC_QLEN_UNIT = 80;

export {
  HPCC_RATE_CODES,
  hpccRateCode,
  hpccRateOfCode,
  hpccRateTable,
  hpccRateTableOrNs3,
  hpccRateTableProblem,
  NS3_HPCC_RATES_BPS,
} from './int-hpcc-rates.js';

function mod(v: number, m: number): number {
  const r = v % m;
  return r < 0 ? r + m : r;
}

/**
 * Writes one 8-byte hop word at `off`; `ratesBps` is the run's rate table. Throws
 * WireEncodeError for a line rate the table has no code for.
 */
export function writeHpccHop(
  buf: Uint8Array,
  off: number,
  hop: IntHop,
  multi = 1,
  ratesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): void {
  const rate = hpccRateCode(hop.lineRateBps, ratesBps);
  const time = mod(Math.floor(hop.timeNs), HPCC_TIME_MODULO);
  const bytes = mod(Math.floor(hop.txBytes / (HPCC_BYTES_UNIT * multi)), HPCC_BYTES_MODULO);
  const qlen = hpccQlenUnits(hop.qlenBytes, multi) % HPCC_QLEN_MODULO;
  writeU32LE(buf, off, (rate | (time << 3) | ((bytes & 0x1f) << 27)) >>> 0);
  writeU32LE(buf, off + 4, ((bytes >>> 5) | (qlen << 15)) >>> 0);
}

export function readHpccHop(
  buf: Uint8Array,
  off: number,
  multi = 1,
  ratesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): IntHop {
  const lo = readU32LE(buf, off);
  const hi = readU32LE(buf, off + 4);
  const bytes = (lo >>> 27) | ((hi & 0x7fff) << 5);
  return {
    lineRateBps: hpccRateOfCode(lo & 7, ratesBps),
    timeNs: (lo >>> 3) & 0xff_ffff,
    txBytes: bytes * HPCC_BYTES_UNIT * multi,
    qlenBytes: (hi >>> 15) * HPCC_QLEN_UNIT * multi,
    activeFlows: 0,
  };
}

export function encodeHpccInt(
  buf: Uint8Array,
  off: number,
  stack: IntStack,
  multi = 1,
  ratesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): number {
  const n = Math.min(stack.hops.length, HPCC_MAX_HOPS);
  for (let i = 0; i < n; i++) writeHpccHop(buf, off + 8 * i, stack.hops[i], multi, ratesBps);
  buf.fill(0, off + 8 * n, off + 8 * HPCC_MAX_HOPS);
  writeU16LE(buf, off + 40, stack.nhop);
  return HPCC_INT_BYTES;
}

export function decodeHpccInt(
  buf: Uint8Array,
  off = 0,
  multi = 1,
  ratesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): IntStack | DecodeError {
  if (buf.length - off < HPCC_INT_BYTES) return decodeError('truncated', 'HPCC INT needs 42 bytes', off);
  const nhop = readU16LE(buf, off + 40);
  const n = Math.min(nhop, HPCC_MAX_HOPS);
  const hops: IntHop[] = [];
  for (let i = 0; i < n; i++) hops.push(readHpccHop(buf, off + 8 * i, multi, ratesBps));
  return { layout: 'hpcc', nhop, hops };
}

/** floor(v / unit) mod m, as the hop word's bitfields keep it (non-finite values become 0). */
function wrapUnits(v: number, unit: number, m: number): number {
  const n = Math.floor(v / unit);
  if (!Number.isFinite(n)) return 0;
  const r = n % m;
  return r < 0 ? r + m : r + 0; // + 0 turns -0 into 0, as the bitfield does
}

/** A queue length in the wire's 80·multi-byte units, as far as hop word and option carry it (2^33). */
export function hpccQlenUnits(qlenBytes: number, multi = 1): number {
  return wrapUnits(qlenBytes, HPCC_QLEN_UNIT * multi, HPCC_QLEN_UNITS_MODULO);
}

/** The qlen units above the hop word's 17 bits (0..65535): what the HpccQlenHigh option carries. */
export function hpccQlenHighUnits(qlenBytes: number, multi = 1): number {
  return Math.floor(hpccQlenUnits(qlenBytes, multi) / HPCC_QLEN_MODULO);
}

/** A decoded hop's qlen with the option's high units added back (`readHpccHop` reads the low 17 bits). */
export function addHpccQlenHigh(hop: IntHop, highUnits: number, multi = 1): void {
  hop.qlenBytes += highUnits * HPCC_QLEN_MODULO * HPCC_QLEN_UNIT * multi;
}

/**
 * The hop exactly as a receiver decodes it from the real wire: the hop word's fields as
 * `readHpccHop(writeHpccHop(hop))` gives them (the rate through its code in `ratesBps`, time mod
 * 2^24, txBytes floored to its units and wrapped mod 2^20 units), qlen floored to its units with
 * the HpccQlenHigh option's bits (mod 2^33 units), and activeFlows as the HpccActiveFlows option
 * carries it (a u16 of min(n, 65535)). Virtual-time switches stamp this,
 * so a virtual HPCC sender sees what a real one (and the HPCC ns-3 simulator's, whose IntHop
 * stores the bitfields) sees. Idempotent, so a real-runtime switch that stamps it encodes the
 * same bytes as before. Throws WireEncodeError for a rate the table has no code for.
 */
export function quantizeHpccHop(
  hop: IntHop,
  multi = 1,
  ratesBps: readonly number[] = NS3_HPCC_RATES_BPS,
): IntHop {
  return {
    lineRateBps: hpccRateOfCode(hpccRateCode(hop.lineRateBps, ratesBps), ratesBps),
    timeNs: wrapUnits(hop.timeNs, 1, HPCC_TIME_MODULO),
    txBytes: wrapUnits(hop.txBytes, HPCC_BYTES_UNIT * multi, HPCC_BYTES_MODULO) * HPCC_BYTES_UNIT * multi,
    qlenBytes: hpccQlenUnits(hop.qlenBytes, multi) * HPCC_QLEN_UNIT * multi,
    activeFlows: Math.min(hop.activeFlows, 0xffff) & 0xffff,
  };
}

/** A sender's empty stack (present from the first hop on, so the frame size never changes). */
export function emptyHpccStack(): IntStack {
  return { layout: 'hpcc', nhop: 0, hops: [] };
}

/** What an HPCC switch does at dequeue: write slot nhop % 5, then count the hop. */
export function pushHpccHop(stack: IntStack, hop: IntHop): void {
  const slot = stack.nhop % HPCC_MAX_HOPS;
  if (slot < stack.hops.length) stack.hops[slot] = hop;
  else stack.hops.push(hop);
  stack.nhop = (stack.nhop + 1) & 0xffff;
}

/** Wrap-aware time between two samples of the same hop, ns (newer − older mod 2^24). */
export function hpccTimeDeltaNs(newerNs: number, olderNs: number): number {
  return mod(newerNs - olderNs, HPCC_TIME_MODULO);
}

/** Wrap-aware bytes sent between two samples of the same hop (in whole units of 128·multi). */
export function hpccTxBytesDelta(newerBytes: number, olderBytes: number, multi = 1): number {
  const unit = HPCC_BYTES_UNIT * multi;
  return mod(Math.round((newerBytes - olderBytes) / unit), HPCC_BYTES_MODULO) * unit;
}
