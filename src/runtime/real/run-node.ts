/**
 * `rocelab node` and the launchers' node processes (node-main.ts): the nodes NODE names, in one
 * process, from their environment (docs/realtime.md), until each has finished.
 */
import { setFramePoisoning } from '../../wire/packet-factory.js';
import { deprioritizeHelperThreads } from './helper-threads.js';
import { nodeConfigsFromEnv, RealNode } from './node.js';
import { hostMonotonicNs, type LauncherMessage, type NodeMessage } from './protocol.js';
import { raiseMainThreadPriority } from './realtime-priority.js';
import { warmUpRealPath } from './warm-up-run.js';

/**
 * The `rocelab node` command: the node, or the nodes, NODE names. Resolves when every one of them
 * has finished; bad configuration throws a ConfigError (the CLI exits 2 with one line).
 */
export async function runNode(opts: { env: Record<string, string | undefined> }): Promise<void> {
  const cfgs = nodeConfigsFromEnv(opts.env);
  // A test mode: frames given back to the free list are poisoned until reused (packet-factory.ts).
  if (opts.env.POISON_FRAMES === '1') setFramePoisoning(true);
  // Wallclock only: under lockstep a starved compiler only makes the run slower, not wrong.
  if (cfgs[0].sync === 'wallclock') deprioritizeHelperThreads();
  // Before any thread of ours starts (PreciseWake's helper inherits the policy), after V8's own.
  const priorityRefused = cfgs[0].realtimePriority ? raiseMainThreadPriority() : null;
  const ipc = typeof process.send === 'function' && process.connected;
  // The last message handed to the IPC channel: a large report (long queue series) takes a while
  // to flush, and disconnecting (then exiting) before that would lose it.
  let flushed: Promise<void> = Promise.resolve();
  const send = ipc
    ? (m: NodeMessage) => {
        flushed = new Promise<void>((resolve) => {
          process.send!(m, undefined, undefined, () => resolve());
        });
      }
    : null;
  const nodes = cfgs.map((cfg) => new RealNode(cfg, send));
  for (const node of nodes) node.realtimePriorityRefused = priorityRefused;
  const closeAll = () => Promise.all(nodes.map((n) => n.close()));
  const onSignal = () => {
    for (const node of nodes) if (node.env !== null) void node.finish(node.env.now());
    if (nodes.every((n) => n.env === null)) void closeAll().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  if (ipc) {
    process.on('message', (m: LauncherMessage) => {
      for (const node of nodes) node.onLauncherMessage(m);
    });
    // The launcher went away: do not outlive it.
    process.on('disconnect', () => {
      void closeAll().then(() => process.exit(0));
    });
  }
  // Before the nodes bind and say ready: the launcher's start lead only begins after that.
  if (cfgs[0].warmUp) await warmUpRealPath(cfgs[0]);
  for (const node of nodes) await node.open();
  if (!ipc) {
    const t0 = cfgs[0].startAtMonoNs ?? hostMonotonicNs() + cfgs[0].startDelayMs * 1e6;
    for (const node of nodes) node.start(t0);
  }
  await Promise.all(nodes.map((n) => n.done()));
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  await flushed;
  if (ipc) process.disconnect();
}
