/**
 * Collective operations and algorithms (docs/scenario.md "kind: collective"): which algorithm
 * applies to which operation, the default for each, and the nccl-tests bus-bandwidth factor
 * (NVIDIA nccl-tests, doc/PERFORMANCE.md).
 */

export const COLLECTIVE_OPS = ['allreduce', 'allgather', 'reducescatter', 'alltoall', 'broadcast'] as const;
export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];

export const COLLECTIVE_ALGORITHMS = ['ring', 'halving-doubling', 'direct', 'double-binary-tree'] as const;
export type CollectiveAlgorithm = (typeof COLLECTIVE_ALGORITHMS)[number];

/** Valid algorithms of each operation, the default first. */
export const ALGORITHMS_OF: Record<CollectiveOp, readonly CollectiveAlgorithm[]> = {
  allreduce: ['ring', 'halving-doubling', 'double-binary-tree'],
  allgather: ['ring', 'halving-doubling', 'direct'],
  reducescatter: ['ring', 'halving-doubling', 'direct'],
  alltoall: ['direct'],
  broadcast: ['ring', 'double-binary-tree'],
};

/**
 * busbw = algbw × factor (nccl-tests): what each rank's link carries relative to the buffer
 * size, so that on an uncongested fabric busbw approaches a rank link's goodput.
 */
export function busBandwidthFactor(op: CollectiveOp, ranks: number): number {
  switch (op) {
    case 'allreduce':
      return (2 * (ranks - 1)) / ranks;
    case 'allgather':
    case 'reducescatter':
    case 'alltoall':
      return (ranks - 1) / ranks;
    case 'broadcast':
      return 1;
  }
}
