/**
 * The body of a UET pull (RCCC receiver credit; docs/wire.md §1.6a): 16 bytes after the BTH of a
 * frame with the manufacturer-specific opcode 0xC0, sized like a CNP's.
 *
 *   0  u32  cumulative credit granted to the sender, 256-byte quanta, modulo 2^32
 *   4  u8   flags: bit 0 slow pull (credit beyond the sender's target), the others 0
 *   5  11   zero
 *
 * The credit is cumulative (the UEC reference simulator's UecPullPacket pullno), so a lost or
 * reordered pull costs nothing: the next one carries the total.
 */
import { readU32, writeU32 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { PullInfo } from './packet.js';
import { PULL_BODY_BYTES } from './size.js';

export { PULL_BODY_BYTES };

const FLAG_SLOW = 1;

export function encodePullBody(buf: Uint8Array, off: number, pull: PullInfo): number {
  writeU32(buf, off, pull.quanta);
  buf[off + 4] = pull.slow ? FLAG_SLOW : 0;
  buf.fill(0, off + 5, off + PULL_BODY_BYTES);
  return PULL_BODY_BYTES;
}

/** The pull of a body; unknown flags or non-zero reserved bytes are `bad-field`. */
export function decodePullBody(buf: Uint8Array, off: number): PullInfo | DecodeError {
  if (buf.length - off < PULL_BODY_BYTES) return decodeError('truncated', 'a pull body needs 16 bytes', off);
  const flags = buf[off + 4];
  if ((flags & ~FLAG_SLOW) !== 0)
    return decodeError('bad-field', `pull flags 0x${flags.toString(16)} set reserved bits`, off + 4);
  for (let i = off + 5; i < off + PULL_BODY_BYTES; i++)
    if (buf[i] !== 0) return decodeError('bad-field', 'pull reserved bytes are not zero', i);
  return { quanta: readU32(buf, off), slow: (flags & FLAG_SLOW) !== 0 };
}

/**
 * Serial-number arithmetic of 32-bit credit counters: the unwrapped value nearest `reference`
 * whose low 32 bits are `wire` (a counter never moves 2^31 quanta = 512 GiB between two packets).
 */
export function unwrapQuanta(wire: number, reference: number): number {
  const low = reference % 2 ** 32;
  return reference + ((wire - low) | 0);
}
