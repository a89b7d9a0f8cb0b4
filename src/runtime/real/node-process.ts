/**
 * How launchers start a node's Node.js process.
 *
 * `--single-threaded-gc` when the run has more node processes than the machine has cores: V8's
 * parallel scavenger then waits on helper threads the kernel has not scheduled. On incast-8to1
 * (ten processes, 2 cores, wallclock, timeScale 3000) young collections of a 20 MB heap took up
 * to 344 ms real, each a pause the run's frames wait through; on the main thread alone the
 * longest took 14 ms. A process that has cores to itself keeps the parallel collector: the bench's
 * lone switch node forwards trains 1.3× faster with it, and its longest pause halves.
 */
import { availableParallelism } from 'node:os';

/**
 * The Node.js flags of a node process of a run with `nodeCount` node processes on this machine,
 * then ROCELAB_NODE_ARGS (space-separated; e.g. `--prof`, which NODE_OPTIONS refuses).
 */
export function nodeProcessFlags(nodeCount: number, env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = env.ROCELAB_NODE_ARGS;
  return [
    ...(nodeCount > availableParallelism() ? ['--single-threaded-gc'] : []),
    ...(extra === undefined ? [] : extra.split(' ').filter((a) => a.length > 0)),
  ];
}
