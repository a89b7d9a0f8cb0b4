/**
 * Whether a one-machine real-time run fits the machine's memory. Every node is its own Node.js
 * process, about 110 MB resident at its peak (incast-8to1, local runtime: 10 processes, 1.06 GB,
 * the switch 111 MB). Starting more processes than memory holds ends with the kernel's OOM killer
 * taking nodes half-way through a run, a failure that names nothing; this check says so before
 * the first process starts. Deployments that spread nodes over machines (docker, Kubernetes) do
 * not come here.
 */
import { freemem } from 'node:os';
import { ConfigError } from '../../config/errors.js';

/** Memory budgeted per node process: the measured peak with some headroom. */
export const NODE_PROCESS_BYTES = 128 * 2 ** 20;
/**
 * Memory budgeted per further node in a process that runs several (`processes`): the nodes share
 * the runtime, the code and the run's plan; each adds its firmware, sockets and retransmission
 * window.
 */
export const SHARED_NODE_BYTES = 16 * 2 ** 20;

const GB = 2 ** 30;

/** Throws a one-line ConfigError when `nodes` nodes in `processes` processes would not fit `availableBytes`. */
export function checkMachineFits(
  scenarioName: string,
  nodes: number,
  runtime: 'local' | 'netns',
  availableBytes: number = freemem(),
  processes: number = nodes,
): void {
  const needBytes = processes * NODE_PROCESS_BYTES + (nodes - processes) * SHARED_NODE_BYTES;
  if (needBytes <= availableBytes) return;
  const fewer = runtime === 'local' && processes > 1 ? ', with fewer processes (--set processes=auto)' : '';
  throw new ConfigError(
    'runtime',
    `${scenarioName} needs ${nodes} nodes in ${processes} processes, about ${(needBytes / GB).toFixed(1)} GB of memory, and this machine has ${(availableBytes / GB).toFixed(1)} GB available: run it in virtual time${fewer}, or across machines (rocelab deploy compose|k8s), not with --runtime ${runtime}`,
  );
}
