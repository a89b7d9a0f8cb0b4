/**
 * How launchers start a node's Node.js process.
 *
 * `--single-threaded-gc`: a one-machine run puts ten or more node processes on a few cores, and
 * V8's parallel scavenger then waits on helper threads the kernel has not scheduled: young
 * collections of a 20 MB heap took up to 344 ms real on incast-8to1 (wallclock, timeScale 3000,
 * 2 cores), and every one of them is a pause the run's frames wait through. On the main thread
 * alone the longest took 14 ms.
 */
export const NODE_PROCESS_FLAGS: readonly string[] = ['--single-threaded-gc'];

/**
 * The Node.js flags of a node process: NODE_PROCESS_FLAGS, then ROCELAB_NODE_ARGS
 * (space-separated; e.g. `--prof`, which NODE_OPTIONS refuses).
 */
export function nodeProcessFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = env.ROCELAB_NODE_ARGS;
  return [
    ...NODE_PROCESS_FLAGS,
    ...(extra === undefined ? [] : extra.split(' ').filter((a) => a.length > 0)),
  ];
}
