/**
 * How launchers start a node's Node.js process.
 *
 * `--single-threaded-gc`, always (deploy/entrypoint.sh does the same in containers). V8's parallel
 * scavenger waits on helper threads the kernel has not scheduled whenever the machine's cores are
 * busy: with more node processes than cores (incast-8to1, ten processes on 2 cores, wallclock,
 * timeScale 3000: young collections of a 20 MB heap took up to 344 ms real; 14 ms on the main
 * thread alone), and as much when other work shares them. Measured on the bench's switch node fed
 * trains for 3 s (2 cores, load 11-12 from other work, two runs each, once its per-frame garbage
 * was gone, docs/realtime.md "Pauses"): parallel, longest pause 20.4 / 43.6 ms and 35 / 11 over
 * 1 ms; single-threaded, 2.7 / 2.8 ms and 6 / 4 over 1 ms, forwarding no fewer frames. What is
 * left of a young collection (freeing the received datagrams' buffers) takes well under a
 * millisecond on one thread.
 */

/** The Node.js flags of a node process, then ROCELAB_NODE_ARGS (space-separated; e.g. `--prof`, which NODE_OPTIONS refuses). */
export function nodeProcessFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const extra = env.ROCELAB_NODE_ARGS;
  return [
    '--single-threaded-gc',
    ...(extra === undefined ? [] : extra.split(' ').filter((a) => a.length > 0)),
  ];
}
