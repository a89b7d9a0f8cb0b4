/**
 * The largest message a RoCE transfer can post: 2^31 bytes, InfiniBand's maximum message size
 * (IBTA Vol. 1, 9.4.1: "the maximum message size is 2^31 bytes"), which RETH's 32-bit DMA length
 * also holds. A flow posted as one message (no `messageSize`) or with `messageSize` above that
 * cannot be put on the wire as asked: the first frame of a larger RDMA WRITE would claim a DMA
 * length it does not have. So it is refused at validation (exit 2, naming the workload entry),
 * never saturated on the wire (docs/scenario.md "Workloads").
 */
import { ConfigError } from '../config/errors.js';
import type { FlowSpec } from '../workload/generate.js';

export const MAX_MESSAGE_BYTES = 2 ** 31;

/** Throws a ConfigError for the first flow whose messages would exceed MAX_MESSAGE_BYTES. */
export function checkMessageSizes(flows: readonly FlowSpec[]): void {
  for (const f of flows) {
    // Long-lived flows post messages of messageSize (1 MB without it): only that can be too large.
    const largest = Number.isFinite(f.sizeBytes) ? (f.messageBytes ?? f.sizeBytes) : (f.messageBytes ?? 0);
    if (largest > MAX_MESSAGE_BYTES)
      throw new ConfigError(
        `workload[${f.entry}]`,
        `flow ${f.src} -> ${f.dst} would post a message of ${largest} B, more than a RoCE message carries (2^31 = ${MAX_MESSAGE_BYTES} B, InfiniBand's largest; RETH's DMA length): set messageSize ≤ 2GiB`,
      );
  }
}
