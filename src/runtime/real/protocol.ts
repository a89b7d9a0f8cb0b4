/**
 * Messages between a launcher and its nodes (IPC over the child-process channel), and the report
 * a node hands back at the end. docs/realtime.md describes the lifecycle:
 *
 *   node → ready ─┐ (socket bound, metrics listening)
 *   launcher → start { t0MonoNs }   once every node is ready: emulated 0 = host monotonic t0
 *   node → synced (first clock-sync round done), flowDone (sender hosts), progress
 *   launcher → finish { endNs }     all flows completed, the duration passed, or the watchdog
 *   node → report                   counters, flows, series; then the node exits
 */
import type { NodeReport as AppNodeReport } from '../app/node-report.js';

/** A process's bundles (process-bundles.ts): sent, received, dropped malformed or unaddressed, failed sends. */
export interface BundleReport {
  tx: number;
  rx: number;
  bad: number;
  unknownDestinations: number;
  sendErrors: number;
}

export type { NodeFlowReport, NodeRxReport } from '../app/node-report.js';

export interface NodeClockReport {
  timeScale: number;
  /** Injected skew, emulated ns (CLOCK_SKEW_NS / timeScale). */
  skewNs: number;
  /** Clock-sync correction applied, emulated ns. */
  correctionNs: number;
  /** Residual measured by the latest sync round, emulated ns (null: reference node or no round). */
  residualNs: number | null;
  /** Smallest two-way delay of the latest round, emulated ns. */
  delayNs: number | null;
  rounds: number;
  syncRef: string;
}

/** One garbage collection that took over 1 ms real. */
export interface LongGc {
  atMonoNs: number;
  atNs: number;
  durationNs: number;
  kind: string;
}

export interface NodeLoadReport {
  /** Event-loop delay (perf_hooks), real ns. */
  eventLoopP50Ns: number;
  eventLoopP99Ns: number;
  eventLoopMaxNs: number;
  /** Lateness of firmware timers, emulated ns. */
  timerMeanLateNs: number;
  timerMaxLateNs: number;
  /** Garbage-collection pauses (perf_hooks 'gc'), real ns: the longest, and how many took > 1 ms. */
  gcMaxNs: number;
  gcOver1Ms: number;
  /**
   * The collections over 1 ms, each with when it began (host CLOCK_MONOTONIC, ns: hostMonotonicNs;
   * and emulated ns since t0) and its kind (perf_hooks: minor, major, incremental, weakcb); the
   * first LONG_GC_KEPT of them.
   */
  gcLong?: LongGc[];
  /**
   * The process's main thread: whether the node's config asked for SCHED_RR, whether it ran under
   * it at the report, and why it could not be set (realtime-priority.ts).
   */
  realtimePriority?: { wanted: boolean; applied: boolean; refused?: string };
  /**
   * With ALLOC_SAMPLE_MS (benches): V8's allocated bytes since the node started, sampled over real
   * time, flat [host monotonic ns, bytes, ...] (alloc-sampler.ts).
   */
  allocSamples?: number[];
  /** Per port: achieved / expected rate over the windows in which the port had work. */
  ports: {
    port: number;
    configuredBps: number;
    achievedBps: number;
    ratio: number | null;
    loadedWindows: number;
  }[];
}

/** A real node's report: the runtime-neutral one (src/runtime/app/node-report.ts) plus how the node ran. */
export interface NodeReport extends AppNodeReport {
  incarnation: number;
  clock: NodeClockReport;
  load: NodeLoadReport;
  io: {
    txDatagrams: number;
    rxDatagrams: number;
    garbage: Record<string, number>;
    garbageTotal: number;
    encodeErrors: number;
    /** Frames sent that kept their received bytes (a switch forwarding in place, docs/wire.md). */
    inPlaceFrames: number;
    sendErrors: number;
    heldDrops: number;
    /** Whether this node stamped what it sent (docs/realtime.md "arrival stamps"). */
    arrivalStamps: boolean;
    stampedFrames: number;
    lateFrames: number;
    maxLateNs: number;
    /** Late frames by the emulated time they were due, in bins of lateBinNs (node-env.ts). */
    lateByBin?: number[];
    lateBinNs?: number;
    /** Lockstep null messages sent and received, and data datagrams sent. */
    promisesTx: number;
    promisesRx: number;
    dataTx: number;
    /** Frames not sent because their link's peer was declared down. */
    downDrops: number;
    /** Datagrams sent carrying more than one frame, and datagrams the real network lost or reordered. */
    trainDatagrams: number;
    /**
     * Bundles (process-bundles.ts): datagrams this node sent in them; and, from the first node of
     * a process only (the bundler is the process's), bundles sent and received and those dropped.
     */
    bundledTx?: number;
    bundles?: BundleReport;
    linkSeqErrors: number;
    /** Overlay retransmission: datagrams that arrived after a gap, and datagrams resent. */
    outOfOrderDatagrams: number;
    resentDatagrams: number;
  };
  /** Lockstep: links whose peer went silent and was declared down, with the emulated time. */
  linksDown: { port: number; peer: string; atNs: number }[];
  /** How this node kept time; lockstep: scheduler counters and the dilations it measured. */
  sync: {
    mode: 'lockstep' | 'wallclock';
    events: number;
    turns: number;
    blockedOnPeers: number;
    blockedOnWall: number;
    blockedOnBound: number;
    /** Real ns per emulated ns over each progress window (about 250 ms real). */
    dilations: number[];
  };
}

export type LauncherMessage =
  | { t: 'start'; t0MonoNs: number }
  | { t: 'finish'; endNs: number }
  /** Lockstep: the run cannot end before this (a node with unfinished flows was killed). */
  | { t: 'endBound'; endBoundNs: number };

export type NodeMessage =
  | { t: 'ready'; node: string; pid: number; address: string; metrics: string | null }
  | { t: 'synced'; node: string; residualNs: number; correctionNs: number }
  | { t: 'flowDone'; node: string; flowId: number; endNs: number }
  /** Lockstep: every event before doneNs has run (a few times a second). */
  | { t: 'progress'; node: string; doneNs: number }
  /** Lockstep: every event up to the scenario's duration has run. */
  | { t: 'atCap'; node: string }
  | { t: 'report'; node: string; report: NodeReport }
  | { t: 'fatal'; node: string; message: string };

/**
 * performance.now() (cheap, a double) plus the offset that makes it CLOCK_MONOTONIC. The offset is
 * taken from the tightest of several bracketed readings: a preemption between two reads would
 * otherwise become a constant error of this process's clock, which no other process shares.
 */
function calibrateOriginNs(): number {
  let bestGap = Number.POSITIVE_INFINITY;
  let origin = 0;
  for (let i = 0; i < 50; i++) {
    const a = performance.now();
    const h = Number(process.hrtime.bigint());
    const b = performance.now();
    if (b - a < bestGap) {
      bestGap = b - a;
      origin = h - ((a + b) / 2) * 1e6;
    }
  }
  return origin;
}
const originNs = calibrateOriginNs();

/** Host CLOCK_MONOTONIC in ns, shared by every process on this kernel (netns and containers too). */
export function hostMonotonicNs(): number {
  return hostMonotonicNsAt(performance.now());
}

/** A performance.now() reading of this thread (a perf_hooks entry's startTime) as host monotonic ns. */
export function hostMonotonicNsAt(perfMs: number): number {
  return perfMs * 1e6 + originNs;
}
