/** Resolved workload entries (src/config/scenario.ts) with defaults, for tests. */
import type {
  AllToAllWorkload,
  FlowSpec,
  FlowsWorkload,
  IncastWorkload,
  PermutationWorkload,
  PoissonWorkload,
} from '../../src/config/scenario.js';

type Req<T, K extends keyof T> = Pick<T, K> & Partial<Omit<T, K>>;

export function flowsSpec(
  flows: Req<FlowSpec, 'src' | 'dst' | 'sizeBytes'>[],
  tag: string | null = null,
): FlowsWorkload {
  return {
    kind: 'flows',
    tag,
    flows: flows.map((f) => ({
      startNs: 0,
      stopNs: null,
      verb: 'write',
      count: 1,
      messageBytes: null,
      tag: null,
      ...f,
    })),
  };
}

export function incastSpec(
  o: Req<Omit<IncastWorkload, 'kind'>, 'senders' | 'receiver' | 'sizeBytes'>,
): IncastWorkload {
  return {
    kind: 'incast',
    startNs: 0,
    startSpreadNs: 0,
    flowsPerSender: 1,
    count: 1,
    intervalNs: 0,
    verb: 'write',
    messageBytes: null,
    tag: null,
    ...o,
  };
}

export function permutationSpec(
  o: Req<Omit<PermutationWorkload, 'kind'>, 'hosts' | 'sizeBytes'>,
): PermutationWorkload {
  return {
    kind: 'permutation',
    startNs: 0,
    startSpreadNs: 0,
    flowsPerPair: 1,
    verb: 'write',
    messageBytes: null,
    tag: null,
    ...o,
  };
}

export function poissonSpec(
  o: Req<Omit<PoissonWorkload, 'kind'>, 'cdf' | 'load' | 'hosts' | 'stopNs'>,
): PoissonWorkload {
  return {
    kind: 'poisson',
    cdfFile: null,
    receivers: null,
    sharedQp: false,
    startNs: 0,
    maxFlows: null,
    verb: 'write',
    messageBytes: null,
    tag: null,
    ...o,
  };
}

export function alltoallSpec(
  o: Req<Omit<AllToAllWorkload, 'kind'>, 'hosts' | 'messageBytes'>,
): AllToAllWorkload {
  return {
    kind: 'alltoall',
    iterations: 1,
    startNs: 0,
    gapNs: 0,
    qpsPerPair: 1,
    verb: 'write',
    tag: null,
    ...o,
  };
}

export const hostRange = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `h${i + from}`);
