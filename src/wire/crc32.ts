/**
 * CRC-32/IEEE-802.3 (zlib, Ethernet): reflected polynomial 0xEDB88320, init and final xor
 * 0xFFFFFFFF. Slice-by-8 tables: the ICRC runs over every data frame twice (encode and verify),
 * and eight bytes per step is several times faster than the byte-wise table in V8.
 *
 * Long runs go to zlib.crc32 when this Node has it (≥ 20.15): native code is about three times
 * faster than the JS tables on a 1000-byte payload. The tables stay as the fallback and for the
 * short masked header copies, where the call overhead would dominate.
 *
 * The state API is split (`crc32Update` on the raw register, `crc32Final` to complement) so the
 * ICRC can feed masked header copies and the untouched frame tail without concatenating them.
 */

import zlib from 'node:zlib';

const POLY = 0xedb88320;

type NativeCrc = (data: Uint8Array, value?: number) => number;
const nativeCrc32: NativeCrc | null =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (zlib as unknown as { crc32: NativeCrc }).crc32
    : null;
/** Below this many bytes the JS loop beats the native call (measured on Node 20). */
const NATIVE_MIN_BYTES = 96;

/** 8 tables of 256 entries, one array so the slices share cache lines. */
const T = new Int32Array(8 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? POLY ^ (c >>> 1) : c >>> 1;
  T[n] = c;
}
for (let n = 0; n < 256; n++) {
  let c = T[n];
  for (let s = 1; s < 8; s++) {
    c = T[c & 0xff] ^ (c >>> 8);
    T[s * 256 + n] = c;
  }
}

export const CRC32_INIT = 0xffffffff | 0;

/** Advance the raw CRC register over buf[start, end). */
export function crc32Update(crc: number, buf: Uint8Array, start: number, end: number): number {
  if (nativeCrc32 !== null && end - start >= NATIVE_MIN_BYTES) {
    // zlib works on the finalised value: complement in and out
    return ~nativeCrc32(buf.subarray(start, end), ~crc >>> 0);
  }
  return crc32UpdateJs(crc, buf, start, end);
}

/** The table-driven path (exported so tests can check it against the native one). */
export function crc32UpdateJs(crc: number, buf: Uint8Array, start: number, end: number): number {
  let c = crc | 0;
  let i = start;
  const end8 = end - 8;
  while (i <= end8) {
    const lo = c ^ (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24));
    c =
      T[1792 + (lo & 0xff)] ^
      T[1536 + ((lo >>> 8) & 0xff)] ^
      T[1280 + ((lo >>> 16) & 0xff)] ^
      T[1024 + (lo >>> 24)] ^
      T[768 + buf[i + 4]] ^
      T[512 + buf[i + 5]] ^
      T[256 + buf[i + 6]] ^
      T[buf[i + 7]];
    i += 8;
  }
  while (i < end) {
    c = T[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
    i++;
  }
  return c;
}

/**
 * Byte-sliced tables of the register after 2^k zero bytes, built when first needed: entry
 * 256·p + b is the register after 2^k zeros from the register b << 8p.
 *
 * Why: feeding a zero byte maps the register c to T[c & 0xff] ^ (c >>> 8), which is linear over
 * GF(2) (CRC tables are linear in their index), so 2^k zero bytes are a linear map too, the
 * one-byte map squared k times (the idea behind zlib's crc32_combine). A linear map of a 32-bit
 * register is four lookups of its byte-sliced table, and n zero bytes are the maps of n's set
 * bits in a row. An encoder that wrote a run of zeros (a data frame whose payload bytes are not
 * carried: Packet.payload null) gets their CRC from a handful of lookups instead of reading the
 * run, and without the view a native CRC call needs.
 */
const zeroTables: Int32Array[] = [];

/** The register after the linear map `t` (a byte-sliced table of zeroTables). */
function applyLinear(t: Int32Array, c: number): number {
  return t[c & 0xff] ^ t[256 + ((c >>> 8) & 0xff)] ^ t[512 + ((c >>> 16) & 0xff)] ^ t[768 + (c >>> 24)];
}

/** Byte-sliced table of the linear map whose image of bit i is cols[i]. */
function slicedTable(cols: Int32Array): Int32Array {
  const t = new Int32Array(4 * 256);
  for (let p = 0; p < 4; p++) {
    for (let b = 1; b < 256; b++) {
      // b's lowest set bit added to b without it (already filled)
      const low = 31 - Math.clz32(b & -b);
      t[256 * p + b] = t[256 * p + (b & (b - 1))] ^ cols[8 * p + low];
    }
  }
  return t;
}

function zeroTable(k: number): Int32Array {
  for (let j = zeroTables.length; j <= k; j++) {
    const cols = new Int32Array(32);
    for (let i = 0; i < 32; i++) {
      const bit = (1 << i) | 0;
      // one zero byte, or the previous map twice (2^j = 2^(j-1) + 2^(j-1) zero bytes)
      cols[i] =
        j === 0
          ? T[bit & 0xff] ^ (bit >>> 8)
          : applyLinear(zeroTables[j - 1], applyLinear(zeroTables[j - 1], bit));
    }
    zeroTables.push(slicedTable(cols));
  }
  return zeroTables[k];
}

/** Advance the raw CRC register over `n` zero bytes (n a non-negative integer) without reading them. */
export function crc32UpdateZeros(crc: number, n: number): number {
  let c = crc | 0;
  for (let k = 0; n > 0; k++) {
    if (n % 2 === 1) c = applyLinear(zeroTable(k), c);
    n = Math.floor(n / 2);
  }
  return c;
}

export function crc32UpdateByte(crc: number, byte: number): number {
  return T[(crc ^ byte) & 0xff] ^ (crc >>> 8);
}

export function crc32Final(crc: number): number {
  return ~crc >>> 0;
}

/** One-shot CRC-32 of buf[start, end) (whole buffer by default), as an unsigned 32-bit value. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  return crc32Final(crc32Update(CRC32_INIT, buf, start, end));
}
