/** RDMA Extended Transport Header, 16 bytes: VA (64, kept as two u32 halves) · R_Key · DMA length. */
import { readU32, writeU32 } from './bytes.js';
import { type DecodeError, decodeError } from './errors.js';
import type { Reth } from './packet.js';
import { RETH_BYTES } from './size.js';

export { RETH_BYTES };

/**
 * The largest message RoCE carries: 2^31 bytes, InfiniBand's maximum message size (IBTA Vol. 1,
 * 9.4.1), which RETH's 32-bit DMA length holds. A scenario's `messageSize` may not exceed it, and a
 * flow larger than it without one is posted as messages of this size (src/runtime/app/plan.ts).
 */
export const MAX_MESSAGE_BYTES = 2 ** 31;

export function encodeReth(buf: Uint8Array, off: number, r: Reth): number {
  writeU32(buf, off, r.vaHi);
  writeU32(buf, off + 4, r.vaLo);
  writeU32(buf, off + 8, r.rkey);
  writeU32(buf, off + 12, r.dmaLength);
  return RETH_BYTES;
}

export function decodeReth(buf: Uint8Array, off = 0): Reth | DecodeError {
  if (buf.length - off < RETH_BYTES) return decodeError('truncated', 'RETH needs 16 bytes', off);
  return {
    vaHi: readU32(buf, off),
    vaLo: readU32(buf, off + 4),
    rkey: readU32(buf, off + 8),
    dmaLength: readU32(buf, off + 12),
  };
}

/** The 64-bit virtual address as a BigInt (diagnostics; the hot path keeps the halves). */
export function rethVa(r: Reth): bigint {
  return (BigInt(r.vaHi) << 32n) | BigInt(r.vaLo);
}
