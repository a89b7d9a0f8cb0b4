/**
 * `rocelab run`: a scenario → a run in the chosen runtime → OUT/results.json (+ pcaps) and a
 * summary on the terminal.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createNic } from '../../nic/api.js';
import { createSwitch } from '../../switch/api.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { ConfigError } from '../config/errors.js';
import type { Scenario } from '../config/scenario.js';
import type { Tracer } from '../probe/probe.js';
import type { Results } from '../stats/results.js';
import { createPcapTap } from './pcap-tap.js';
import { type FinishedRun, writeRunOutput } from './run-output.js';
import { type RunSetup, setupRun } from './scenario-setup.js';
import type { DropFilter, LinkLoss, LinkTap } from './virtual/fabric.js';
import { type NicFactory, type SwitchFactory, VirtualRun } from './virtual/virtual-run.js';

export type RuntimeKind = 'virtual' | 'local' | 'netns';

export interface RunOptions {
  /** A loaded scenario (src/config loadScenario). */
  scenario: Scenario;
  runtime?: RuntimeKind;
  /** Every host runs this algorithm. */
  cc?: string;
  seed?: number;
  outDir: string;
  /** Write OUT/pcap/<node>-p<port>.pcap. */
  pcap?: boolean;
  /** Print results.json instead of the summary table. */
  json?: boolean;
  /** Real runtimes, sync wallclock: keep the results of a run with late frames (else exit 3). */
  allowLate?: boolean;
  /** Real runtimes: keep each node process's log in OUT/logs (else only a failed node's is quoted, and the logs go). */
  keepLogs?: boolean;
  /** Terminal output (default: process.stdout); null = silent. */
  print?: ((text: string) => void) | null;
  /** Firmware and loss hooks for tests. */
  createNic?: NicFactory;
  createSwitch?: SwitchFactory;
  loss?: LinkLoss;
  drop?: DropFilter;
  /**
   * Virtual runtime: observers of the firmware (src/probe, e.g. a Probe of the experiments).
   * They only read; results.json gets probe bins only from the scenario's own `probes` key.
   */
  trace?: Tracer;
  /** Switch-side plug-ins by name (see SetupOptions.cpFactories). */
  cpFactories?: Record<string, SwitchCpFactory>;
  /**
   * Virtual runtime: called about every PROGRESS_INTERVAL_MS of wall time while the engine runs
   * (first at the start), and once at the end. Does not affect the run.
   */
  onProgress?: (p: RunProgress) => void;
}

export interface RunProgress {
  /** Emulated time reached and the scenario's duration (the run may end earlier). */
  emulatedNs: number;
  totalNs: number;
  /** Scheduler events and packet-hops so far. */
  events: number;
  packetHops: number;
  /** Wall time since the engine started, ms. */
  wallMs: number;
  done: boolean;
}

export const PROGRESS_INTERVAL_MS = 100;

export interface RunOutput {
  results: Results;
  outDir: string;
  resultsPath: string;
  pcapFiles: string[];
  /** Wall-clock time of the emulation, ms, and the scheduler events it ran. */
  wallMs: number;
  events: number;
  /** Frames carried over links (packets × hops). */
  packetHops: number;
}

/** Virtual time runs synchronously; the real runtimes (local, netns) return a promise of the same output. */
export function runScenario(opts: RunOptions & { runtime?: 'virtual' }): RunOutput;
export function runScenario(opts: RunOptions & { runtime: 'local' | 'netns' }): Promise<RunOutput>;
export function runScenario(opts: RunOptions): RunOutput | Promise<RunOutput>;
export function runScenario(opts: RunOptions): RunOutput | Promise<RunOutput> {
  const runtime = opts.runtime ?? 'virtual';
  // The real runtimes load on demand: a virtual run (a sweep worker's every point) does not pay
  // for their modules.
  if (runtime === 'local') return import('./local/launcher.js').then((m) => m.runLocal(opts));
  if (runtime === 'netns') return import('./netns/launcher.js').then((m) => m.runNetns(opts));
  // Callers without types (sweep plans, scripts) may still name another runtime.
  if (runtime !== 'virtual')
    throw new ConfigError('runtime', `unknown runtime "${String(runtime)}" (expected virtual|local|netns)`);
  return writeRunOutput({ ...runVirtual(opts), opts });
}

/**
 * The virtual run of `opts` on `setup`, built but not started: what `rocelab run` runs, and what
 * bench/anatomy.ts measures a window of.
 */
export function createVirtualRun(opts: RunOptions, setup: RunSetup, tap?: LinkTap): VirtualRun {
  const s = setup.scenario;
  return new VirtualRun({
    scenario: s.name,
    seed: opts.seed ?? s.seed,
    timeScale: s.timeScale,
    durationNs: s.durationNs,
    sampleIntervalNs: s.sampleIntervalNs,
    topo: setup.topo,
    routes: setup.routes,
    workload: setup.workload,
    nicConfig: setup.nicConfig,
    switchConfig: setup.switchConfig,
    createNic: opts.createNic ?? createNic,
    createSwitch: opts.createSwitch ?? createSwitch,
    loss: opts.loss,
    drop: opts.drop,
    tap,
    trace: opts.trace,
    probes: s.probes,
    // Only the project's firmware is known to keep no received frame (VirtualRunInput).
    recyclePackets: opts.createNic === undefined && opts.createSwitch === undefined,
  });
}

/**
 * The engine part of a virtual run. A function of its own so the run's state (firmware, plan:
 * about 170 MB on the 320-host fat tree) is garbage once the results exist, before results.json
 * is written; the results take the run's series arrays uncopied (VirtualRun.finalResults).
 */
function runVirtual(opts: RunOptions): Omit<FinishedRun, 'opts'> {
  const setup = setupRun(opts.scenario, { cc: opts.cc, seed: opts.seed, cpFactories: opts.cpFactories });
  const s = setup.scenario;
  const outDir = resolve(opts.outDir);
  mkdirSync(outDir, { recursive: true });
  const pcap = opts.pcap === true ? createPcapTap(join(outDir, 'pcap')) : null;
  const run = createVirtualRun(opts, setup, pcap?.tap);
  const t0 = performance.now();
  const onProgress = opts.onProgress;
  const progress = (done: boolean) =>
    onProgress?.({
      emulatedNs: run.sched.now(),
      totalNs: s.durationNs,
      events: run.sched.eventsProcessed,
      packetHops: run.packetHops(),
      wallMs: performance.now() - t0,
      done,
    });
  if (onProgress !== undefined) {
    let last = Number.NEGATIVE_INFINITY;
    run.sched.onTick = () => {
      const now = performance.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      progress(false);
    };
  }
  let results: Results;
  let pcapFiles: string[] = [];
  try {
    run.runUntil(s.durationNs);
    results = run.finalResults();
    progress(true);
  } finally {
    run.sched.onTick = null;
    if (pcap !== null) pcapFiles = pcap.close();
  }
  const wallMs = performance.now() - t0;
  if (pcap !== null && pcap.encodeErrors > 0)
    results.warnings.push(`${pcap.encodeErrors} frames could not be encoded into the pcap`);
  return {
    results,
    outDir,
    wallMs,
    how: `${run.sched.eventsProcessed} events, ${(run.packetHops() / 1000 / wallMs).toFixed(2)} M packet-hops/s`,
    pcapFiles,
    events: run.sched.eventsProcessed,
    packetHops: run.packetHops(),
  };
}
