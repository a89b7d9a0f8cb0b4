/**
 * JIT warm-up of the real path, before a node process's nodes bind and say ready.
 *
 * warmup.ts runs the firmware in virtual time, but what a real node runs around it had never
 * run when emulated t=0 came: its environment (trains, resend rings, delay lines, the event
 * timers or the lockstep scheduler, the sockets), and the firmware's own calls into that
 * environment, which V8 had compiled for the virtual one. Measured on incast-8to1 under
 * `sync: wallclock` at timeScale 5000 in one process: batches of 11-63 events took 2-4.5 ms real
 * (about 100 µs an event, 30 times the warm cost) for the first 45 µs emulated, and 1 074 of the
 * run's 1 122 late frames came in its first 100 µs. So the process first runs a short incast of
 * its own, with real nodes of its algorithm, sync mode, overlay and trains, on loopback ports of
 * its own, and throws it away.
 */
import { createSocket } from 'node:dgram';
import { warmUpScenario } from '../warmup.js';
import { type NodeConfig, RealNode } from './node.js';
import { hostMonotonicNs } from './protocol.js';

/** The warm-up incast's nodes (warmUpScenario: a star of four hosts, three sending to the fourth). */
const NODES = ['h1', 'h2', 'h3', 'h4', 's1'];
/** Emulated length of the warm-up, and its time scale per sync mode (lockstep runs as fast as it can). */
const DURATION = '200us';
const TIME_SCALE = { lockstep: 1, wallclock: 1000 } as const;
/** Most real time the warm-up may take; nodes still running then are closed. */
const BUDGET_MS = 1500;
/** Between the warm-up nodes' start and their emulated t=0 (clock sync's first rounds). */
const LEAD_MS = 30;

/** What a warm-up did: its real time, and the emulated bytes its nodes sent. */
export interface WarmUpRun {
  wallMs: number;
  bytesSent: number;
}

/**
 * Runs the warm-up incast with `like`'s algorithm, sync, overlay, trains and timer settings.
 * Never throws: a process whose warm-up fails only starts colder.
 */
export async function warmUpRealPath(like: NodeConfig): Promise<WarmUpRun> {
  const startMs = performance.now();
  const nodes: RealNode[] = [];
  try {
    const scenario = warmUpScenario(like.cc ?? like.scenario.defaults.nic.cc, DURATION);
    const ports = await freeLoopbackPorts(NODES.length);
    const addresses = Object.fromEntries(NODES.map((n, i) => [n, `127.0.0.1:${ports[i]}`]));
    for (const name of NODES) {
      const cfg: NodeConfig = {
        ...like,
        name,
        scenario,
        cc: undefined,
        seed: undefined,
        timeScale: TIME_SCALE[like.sync],
        addresses,
        bind: { host: '127.0.0.1', port: ports[NODES.indexOf(name)] },
        metrics: null,
        logLevel: 'silent',
        pcapDir: null,
        skewRealNs: 0,
        driftPpm: 0,
        syncRef: null,
        startAtMonoNs: null,
        reportFile: null,
        incarnation: 0,
        warmUp: false,
        dropEvery: 0,
      };
      // A fatal error in the warm-up ends its node, not the process.
      nodes.push(new RealNode(cfg, null, false));
    }
    for (const n of nodes) await n.open();
    const t0 = hostMonotonicNs() + LEAD_MS * 1e6;
    for (const n of nodes) n.start(t0);
    // Until every node reached the end (not the lockstep linger for neighbours after it), at most
    // the budget.
    const until = performance.now() + BUDGET_MS;
    while (performance.now() < until && !nodes.every((n) => n.finishing))
      await new Promise((resolve) => setTimeout(resolve, 5));
  } catch {
    // The real run does not depend on it.
  } finally {
    await Promise.all(nodes.map((n) => n.close().catch(() => {})));
  }
  let bytesSent = 0;
  for (const n of nodes) for (const b of n.env?.counters.portTxBytes ?? []) bytesSent += b;
  return { wallMs: performance.now() - startMs, bytesSent };
}

/** `count` UDP ports on 127.0.0.1 that were free a moment ago (bound to port 0, then released). */
async function freeLoopbackPorts(count: number): Promise<number[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createSocket>>((resolve, reject) => {
          const s = createSocket('udp4');
          s.once('error', reject);
          s.bind(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = sockets.map((s) => s.address().port);
  await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}
