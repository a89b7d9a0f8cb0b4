/**
 * JIT warm-up of the real path, before a node process's nodes bind and say ready.
 *
 * warmup.ts runs the firmware in virtual time, but what a real node runs around it had never
 * run when emulated t=0 came: its environment (trains, resend rings, delay lines, the event
 * timers or the lockstep scheduler, the sockets), and the firmware's own calls into that
 * environment, which V8 had compiled for the virtual one. Measured on incast-8to1 under
 * `sync: wallclock` at timeScale 5000 in one process: batches of 11-63 events took 2-4.5 ms real
 * (about 100 µs an event, 30 times the warm cost) for the first 45 µs emulated, and 1 074 of the
 * run's 1 122 late frames came in its first 100 µs. So the process first runs a short piece of
 * a real run of its own, with real nodes of its sync mode, overlay, trains and metrics, on
 * loopback ports of its own, and throws it away.
 *
 * What it runs (twice: PASSES): the run's own scenario, its first 300 µs emulated from its first
 * flow's start (withTrafficFirst), when the topology is small enough for every node of it to run
 * in this one process (the same flows, algorithms, queue depths and object shapes as the run, so
 * V8 compiles what the run will call);
 * else a short incast of the process's algorithm. With the generic incast, incast-8to1
 * (wallclock, timeScale 1000, auto layout) still made 220 and 126 TurboFan compilations in its two
 * processes after t=0, and the hosts ran 10-30 ms behind their clock for the first 100 µs. On its
 * own scenario, incast-8to1 at timeScale 2000 (wallclock, time windows) had 3 139 / 2 708 late
 * frames against 6 236 / 3 310 with the incast, and 4 100 / 2 977 with only 100 µs of itself
 * (docs/realtime.md "Lifecycle").
 */
import { createSocket } from 'node:dgram';
import type { Scenario, WorkloadSpec } from '../../config/scenario.js';
import { setupRun } from '../scenario-setup.js';
import { warmUpScenario } from '../warmup.js';
import { type NodeConfig, RealNode } from './node.js';
import { hostMonotonicNs } from './protocol.js';

/** The warm-up incast's nodes (warmUpScenario: a star of four hosts, three sending to the fourth). */
const INCAST_NODES = ['h1', 'h2', 'h3', 'h4', 's1'];
/** Emulated length of the warm-up incast, and its time scale per sync mode (lockstep runs as fast as it can). */
const INCAST_DURATION_NS = 200_000;
const INCAST_TIME_SCALE = { lockstep: 1, wallclock: 1000 } as const;
/** The largest topology whose own scenario the warm-up runs (every node in this one process). */
const OWN_SCENARIO_MAX_NODES = 24;
/** Emulated length of a warm-up on the run's own scenario, and its time scale under wallclock. */
const OWN_SCENARIO_DURATION_NS = 300_000;
const OWN_SCENARIO_WALLCLOCK_TIME_SCALE = 5000;
/** Most real time the warm-up may take, all passes together; nodes still running then are closed. */
const BUDGET_MS = 2000;
/**
 * Passes of the warm-up. When the first pass's nodes close, V8 throws away much of what it
 * compiled for them: fields that had kept one value until then (a closed flag, a finishing
 * state) stop being constants, maps generalise, and the code built on them is deoptimised
 * ("code dependencies", "wrong map"). The run then recompiled it after t=0: incast-8to1 under
 * lockstep in two processes made 125-151 TurboFan compilations per process after t=0, and its
 * first 0.7 s real went mostly to the compiler (perf: GraphReducer, register allocation, IC
 * misses). A second pass compiles it again, as the run will need it: 89-92 compilations left,
 * and side by side with the build before (one pass, not grouped; four pairs) a first dilation
 * window of 920-1 200 against 1 450-4 230 and a p50 of 184-211 against 199-211; under wallclock
 * at timeScale 2000, 305 and 255 late frames in the first 200 µs against 1 001 and 1 842
 * (docs/realtime.md "Lifecycle").
 */
const PASSES = 2;
/**
 * Emulated length of a pass. Under lockstep a pass takes about 0.2 s real and the second is as
 * long as the first (a sixth as long left a first window of 1 300-1 680 and a p50 of 186-214).
 * Under wallclock (timeScale 5000) a whole second pass would take another 1.5 s real, past the
 * budget, so the passes after the first run a sixth of its emulated time.
 */
function passDurationNs(firstNs: number, pass: number, sync: NodeConfig['sync']): number {
  return pass === 0 || sync === 'lockstep' ? firstNs : Math.round(firstNs / 6);
}
/** Between the warm-up nodes' start and their emulated t=0 (clock sync's first rounds). */
const LEAD_MS = 30;

/**
 * What a warm-up did: what it ran, how many passes, their real time, the emulated bytes its nodes
 * sent, and the datagrams that went between its groups in bundles (0 unless grouped).
 */
export interface WarmUpRun {
  ran: 'own-scenario' | 'incast';
  passes: number;
  wallMs: number;
  bytesSent: number;
  bundledDatagrams: number;
}

/** When a workload item's first flow starts (one without a start begins at 0). */
function firstStartNs(w: WorkloadSpec): number {
  if (w.kind === 'flows') return Math.min(...w.flows.map((f) => f.startNs));
  return 'startNs' in w ? w.startNs : 0;
}

/**
 * `s` with all of its traffic moved earlier by the same amount, so that its first flow starts at
 * 0: the warm-up runs the first OWN_SCENARIO_DURATION_NS of the scenario, and one whose traffic
 * starts later (a workload's `start`) rehearsed an idle network, so the run's traffic met code
 * V8 had not compiled. incast-8to1 with `start: 600us` under wallclock at timeScale 2000 had
 * 5 279 and 6 114 late frames in the 200 µs after its start, against 345-722 in the first 200 µs
 * of the same incast starting at 0.
 */
export function withTrafficFirst(s: Scenario): Scenario {
  const first = Math.min(...s.workload.map(firstStartNs));
  if (!(first > 0 && Number.isFinite(first))) return s;
  const workload = s.workload.map((w): WorkloadSpec => {
    if (w.kind === 'flows')
      return {
        ...w,
        flows: w.flows.map((f) => ({
          ...f,
          startNs: f.startNs - first,
          stopNs: f.stopNs === null ? null : f.stopNs - first,
        })),
      };
    if (w.kind === 'poisson') return { ...w, startNs: w.startNs - first, stopNs: w.stopNs - first };
    return 'startNs' in w ? { ...w, startNs: w.startNs - first } : w;
  });
  return { ...s, workload };
}

/** What the warm-up runs for `like`: its own scenario's start when small enough, else the incast. */
function warmUpPlan(
  like: NodeConfig,
  pass: number,
): {
  ran: WarmUpRun['ran'];
  scenario: Scenario;
  names: string[];
  timeScale: number;
} {
  try {
    const scenario: Scenario = {
      ...withTrafficFirst(like.scenario),
      durationNs: passDurationNs(OWN_SCENARIO_DURATION_NS, pass, like.sync),
    };
    const names = setupRun(scenario, { cc: like.cc, seed: like.seed }).topo.nodes.map((n) => n.name);
    if (names.length <= OWN_SCENARIO_MAX_NODES) {
      const timeScale = like.sync === 'lockstep' ? 1 : OWN_SCENARIO_WALLCLOCK_TIME_SCALE;
      return { ran: 'own-scenario', scenario, names, timeScale };
    }
  } catch {
    // a scenario this process cannot set up whole: the incast instead
  }
  return {
    ran: 'incast',
    scenario: warmUpScenario(
      like.cc ?? like.scenario.defaults.nic.cc,
      `${passDurationNs(INCAST_DURATION_NS, pass, like.sync) / 1000}us`,
    ),
    names: INCAST_NODES,
    timeScale: INCAST_TIME_SCALE[like.sync],
  };
}

/**
 * Runs the warm-up (warmUpPlan) with `like`'s sync, overlay, trains, metrics and timer settings,
 * PASSES times while the budget lasts. Never throws: a process whose warm-up fails only starts
 * colder.
 */
export async function warmUpRealPath(like: NodeConfig): Promise<WarmUpRun> {
  const startMs = performance.now();
  const untilMs = startMs + BUDGET_MS;
  let ran: WarmUpRun['ran'] = 'incast';
  let passes = 0;
  let bytesSent = 0;
  let bundledDatagrams = 0;
  while (passes < PASSES && performance.now() < untilMs) {
    const plan = warmUpPlan(like, passes);
    ran = plan.ran;
    const pass = await warmUpPass(like, plan, untilMs);
    bytesSent += pass.bytesSent;
    bundledDatagrams += pass.bundledDatagrams;
    passes++;
  }
  return { ran, passes, wallMs: performance.now() - startMs, bytesSent, bundledDatagrams };
}

/** One pass of the warm-up, until its nodes are done or `untilMs`: what its nodes sent. */
async function warmUpPass(
  like: NodeConfig,
  plan: ReturnType<typeof warmUpPlan>,
  untilMs: number,
): Promise<{ bytesSent: number; bundledDatagrams: number }> {
  const nodes: RealNode[] = [];
  let bundledDatagrams = 0;
  try {
    const { names } = plan;
    const own = plan.ran === 'own-scenario';
    const ports = await freeLoopbackPorts(names.length);
    const addresses = Object.fromEntries(names.map((n, i) => [n, `127.0.0.1:${ports[i]}`]));
    for (const [i, name] of names.entries()) {
      const cfg: NodeConfig = {
        ...like,
        name,
        scenario: plan.scenario,
        cc: own ? like.cc : undefined,
        seed: own ? like.seed : undefined,
        timeScale: plan.timeScale,
        addresses,
        bind: { host: '127.0.0.1', port: ports[i] },
        // Metrics taps run on every frame: on (an ephemeral port) when the run has them.
        metrics: like.metrics === null ? null : { host: '127.0.0.1', port: 0 },
        logLevel: 'silent',
        pcapDir: null,
        skewRealNs: 0,
        driftPpm: 0,
        syncRef: null,
        startAtMonoNs: null,
        reportFile: null,
        incarnation: 0,
        warmUp: false,
        // The run's own scenario: its nodes grouped as the run's processes group them, so what
        // crosses processes in the run crosses groups here, in bundles through the sockets
        // (in-process-links.ts), and that path is compiled too.
        processGroups: own ? like.processGroups : null,
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
    while (performance.now() < untilMs && !nodes.every((n) => n.finishing))
      await new Promise((resolve) => setTimeout(resolve, 5));
  } catch {
    // The real run does not depend on it.
  } finally {
    // Before closing: the last node's close releases its group's bundler.
    for (const b of new Set(nodes.map((n) => n.env?.bundledBy ?? null)))
      if (b !== null) bundledDatagrams += b.counters.bundledTx;
    await Promise.all(nodes.map((n) => n.close().catch(() => {})));
  }
  let bytesSent = 0;
  for (const n of nodes) for (const b of n.env?.counters.portTxBytes ?? []) bytesSent += b;
  return { bytesSent, bundledDatagrams };
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
