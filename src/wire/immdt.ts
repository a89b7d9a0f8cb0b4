/** Immediate data, 4 bytes (after RETH when both are present). */
import { readU32, writeU32 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import { IMMDT_BYTES } from './size.js';

export { IMMDT_BYTES };

export function encodeImmDt(buf: Uint8Array, off: number, immDt: number): number {
  writeU32(buf, off, immDt);
  return IMMDT_BYTES;
}

export function decodeImmDt(buf: Uint8Array, off = 0): number | DecodeError {
  if (buf.length - off < IMMDT_BYTES) return decodeError('truncated', 'ImmDt needs 4 bytes', off);
  return readU32(buf, off);
}
