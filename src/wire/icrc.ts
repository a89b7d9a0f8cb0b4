/**
 * RoCEv2 invariant CRC over IPv4 (docs/wire.md §1.7 ICRC): CRC-32 of
 *   8 × 0xFF (masked LRH) · IPv4 header with ToS, TTL, checksum = 1s · UDP header with checksum = 1s
 *   · BTH with byte 4 = 0xFF · everything after the BTH up to the ICRC field,
 * stored least-significant byte first. Masked fields are the ones switches rewrite in flight.
 */
import { readU32LE, writeU32LE } from './bytes.js';
import { CRC32_INIT, crc32Final, crc32Update, crc32UpdateByte, crc32UpdateZeros } from './crc32.js';
import { BTH_BYTES, ICRC_BYTES, IPV4_HEADER_BYTES, UDP_HEADER_BYTES } from './size.js';

export { ICRC_BYTES };

/** IPv4 + UDP + BTH: the part of the covered bytes that has masked fields. */
const MASKED_SPAN_BYTES = IPV4_HEADER_BYTES + UDP_HEADER_BYTES + BTH_BYTES;

/** CRC register after the eight 0xFF bytes: Linux rxe's 0xdebb20e3 seed, before complementing. */
const SEED = (() => {
  let c = CRC32_INIT;
  for (let i = 0; i < 8; i++) c = crc32UpdateByte(c, 0xff);
  return c;
})();

const scratch = new Uint8Array(MASKED_SPAN_BYTES);

function applyMask(b: Uint8Array): void {
  b[1] = 0xff; // ToS (DSCP+ECN)
  b[8] = 0xff; // TTL
  b[10] = 0xff; // IPv4 header checksum
  b[11] = 0xff;
  b[26] = 0xff; // UDP checksum
  b[27] = 0xff;
  b[32] = 0xff; // BTH FECN|BECN|Resv6
}

/**
 * ICRC value (as a u32) of the RoCEv2 packet whose IPv4 header starts at `ipOff`, covering the
 * bytes up to `icrcOff` (where the ICRC field starts). Needs icrcOff − ipOff ≥ 40.
 */
export function computeIcrc(buf: Uint8Array, ipOff: number, icrcOff: number): number {
  return computeIcrcZerosFrom(buf, ipOff, icrcOff, icrcOff);
}

/**
 * computeIcrc of a frame whose bytes [zerosFrom, icrcOff) are all zero, as an encoder knows of
 * the payload it wrote as zeros: the same value, with the run counted instead of read
 * (crc32UpdateZeros), which also spares the view a native CRC call takes. Needs
 * zerosFrom − ipOff ≥ 40.
 */
export function computeIcrcZerosFrom(
  buf: Uint8Array,
  ipOff: number,
  zerosFrom: number,
  icrcOff: number,
): number {
  for (let i = 0; i < MASKED_SPAN_BYTES; i++) scratch[i] = buf[ipOff + i];
  applyMask(scratch);
  const c = crc32Update(SEED, scratch, 0, MASKED_SPAN_BYTES);
  return crc32Final(
    crc32UpdateZeros(crc32Update(c, buf, ipOff + MASKED_SPAN_BYTES, zerosFrom), icrcOff - zerosFrom),
  );
}

export function writeIcrc(buf: Uint8Array, ipOff: number, icrcOff: number): void {
  writeU32LE(buf, icrcOff, computeIcrc(buf, ipOff, icrcOff));
}

export function readIcrc(buf: Uint8Array, icrcOff: number): number {
  return readU32LE(buf, icrcOff);
}

export function icrcOk(buf: Uint8Array, ipOff: number, icrcOff: number): boolean {
  return computeIcrc(buf, ipOff, icrcOff) === readU32LE(buf, icrcOff);
}

/** The exact bytes the CRC runs over (for tests and debugging; allocates). */
export function icrcInput(buf: Uint8Array, ipOff: number, icrcOff: number): Uint8Array {
  const out = new Uint8Array(8 + icrcOff - ipOff);
  out.fill(0xff, 0, 8);
  out.set(buf.subarray(ipOff, icrcOff), 8);
  applyMask(out.subarray(8));
  return out;
}
