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
 * 1 ms; single-threaded, 2.7 / 2.8 ms and 6 / 4 over 1 ms, forwarding no fewer frames.
 *
 * Under `sync: wallclock` a pause is lateness (every frame that comes during it reaches firmware
 * late), so wallclock nodes also trade GC throughput for short pauses (WALLCLOCK_GC_FLAGS). Under
 * lockstep a pause only slows the run, and the larger default young generation collects less
 * often in all.
 */

/**
 * - `--max-semi-space-size=1`: a young collection frees every received datagram's buffer (an
 *   ArrayBuffer each), so its pause grows with the datagrams since the last one. With V8's default
 *   16 MB semi-space that was 2-5 ms on the bench's switch node fed single frames; with 1 MB it is
 *   a few hundred µs, about 16 times as often.
 * - `--no-allocation-site-pretenuring`: V8 allocates straight into the old generation from any
 *   site whose objects once survived young collections, and a host NIC far behind its clock (the
 *   bench at line rate) taught it that about its per-frame objects: the old generation then
 *   filled with dead frames at ~170 MB/s, a 5-9 ms full collection every ~0.6 s.
 */
export const WALLCLOCK_GC_FLAGS: readonly string[] = [
  '--max-semi-space-size=1',
  '--no-allocation-site-pretenuring',
];

/**
 * The Node.js flags of a node process (`sync`: how it keeps time), then ROCELAB_NODE_ARGS
 * (space-separated; e.g. `--prof`, which NODE_OPTIONS refuses).
 */
export function nodeProcessFlags(
  sync: 'lockstep' | 'wallclock',
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const extra = env.ROCELAB_NODE_ARGS;
  return [
    '--single-threaded-gc',
    ...(sync === 'wallclock' ? WALLCLOCK_GC_FLAGS : []),
    ...(extra === undefined ? [] : extra.split(' ').filter((a) => a.length > 0)),
  ];
}
