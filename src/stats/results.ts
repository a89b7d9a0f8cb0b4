/**
 * results.json (docs/results.md): types, assembly from the raw numbers of a run, and a deterministic
 * serialisation (fixed key order, fixed rounding, one record per line) so the same run twice is
 * byte-identical and diffs between runs stay readable. Field meanings: docs/results.md.
 */

import type { MultipathStats } from '../../nic/api.js';
import type { ProbeResults } from '../probe/probe.js';
import { jainIndex, percentileSorted } from './aggregate.js';
import type { CollectivesResult } from './collectives.js';
import { slowdown } from './fct.js';
import { buildTrace, type FlowRateLog, type FlowTraceResult } from './trace.js';

export const RESULTS_VERSION = 1;

export interface FlowResult {
  id: number;
  src: string;
  dst: string;
  cc: string;
  sizeBytes: number;
  startNs: number;
  endNs: number | null;
  fctNs: number | null;
  idealFctNs: number;
  slowdown: number | null;
}

export interface PortResult {
  node: string;
  port: number;
  txBytes: number;
  maxQueueBytes: number;
  meanQueueBytes: number;
  ecnMarked: number;
  pfcPauseTx: number;
  pfcPauseRx: number;
  pausedNs: number;
  drops: number;
  cnmTx: number;
  /** Switch ports of a run that trims (docs/results.md "ports"): data frames trimmed at this egress. */
  trims?: number;
  /** Frames dropped because this egress's header queue was full (also in `drops`). */
  headerDrops?: number;
  maxHeaderQueueBytes?: number;
  /** Switch ports of a run with link events: frames lost to this port's failed link (also in `drops`). */
  linkDownDrops?: number;
}

export interface HostResult {
  node: string;
  cnpTx: number;
  cnpRx: number;
  nackTx: number;
  retransmits: number;
  rxBytes: number;
  /** Only for a host that sprays or runs selective repeat (docs/results.md "multipath"). */
  multipath?: HostMultipathResult;
}

/** Spraying and selective repeat at one host (docs/results.md `hosts[].multipath`). */
export type HostMultipathResult = MultipathStats;

/**
 * A time series in memory: flat [t0, v0, t1, v1, …]. results.json writes it as [[t, v], …]
 * (docs/results.md); in memory an array per point cost four times as much (64 B against 16 B a
 * point: 150 MB against 37 MB for the 320-host fat tree's 2.3 M points).
 */
export type FlatSeries = number[];

export interface SeriesResult {
  /** "<node>:<port>" → [tNs, queueBytes, tNs, queueBytes, …]. */
  queue: Record<string, FlatSeries>;
  /** "<flowId>" → [tNs, rateBps, …]. */
  rate: Record<string, FlatSeries>;
}

/** A flat series as [t, v] points (for a few points: a chart's, a test's; not for whole runs). */
export function seriesPoints(flat: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}

/** results.json's series ([[t, v], …] per key) as in memory (flat). */
export function seriesFromJson(s: {
  queue: Record<string, readonly (readonly [number, number])[]>;
  rate: Record<string, readonly (readonly [number, number])[]>;
}): SeriesResult {
  const flat = (m: Record<string, readonly (readonly [number, number])[]>) => {
    const out: Record<string, FlatSeries> = {};
    for (const [k, pts] of Object.entries(m)) out[k] = pts.flat();
    return out;
  };
  return { queue: flat(s.queue), rate: flat(s.rate) };
}

export interface SummaryResult {
  flowsTotal: number;
  flowsCompleted: number;
  slowdownP50: number | null;
  slowdownP99: number | null;
  maxQueueBytes: number;
  pfcPauseTx: number;
  drops: number;
  goodputBps: number;
  jain: number | null;
  /** Sums over switch ports, present when the ports carry them (a run that trims / has link events). */
  trims?: number;
  headerDrops?: number;
  linkDownDrops?: number;
}

export interface Results {
  version: 1;
  scenario: string;
  runtime: string;
  seed: number;
  timeScale: number;
  durationNs: number;
  ccByHost: Record<string, string>;
  flows: FlowResult[];
  ports: PortResult[];
  hosts: HostResult[];
  series: SeriesResult;
  /** Rate-change causes of the slowest flows (src/stats/trace.ts). */
  trace: FlowTraceResult[];
  summary: SummaryResult;
  warnings: string[];
  /** Real runtimes only: how emulated time was kept (docs/results.md "realtime"). */
  realtime?: RealtimeResult;
  /** Time bins of the scenario's `probes` key, only when it has one (docs/results.md "probes"). */
  probes?: ProbeResults;
  /** Collectives and jobs, only when the workload has any (docs/results.md "collectives"). */
  collectives?: CollectivesResult;
}

export interface RealtimeResult {
  sync: 'lockstep' | 'wallclock';
  /** OS processes the nodes ran in (the local runtime's `processes`; elsewhere one per node). */
  processes: number;
  /**
   * The node processes' main threads (docs/realtime.md "Real-time priority"): `realtime` when
   * every node's ran under SCHED_RR, `normal` when none did, `mixed` otherwise.
   */
  mainThreadPriority?: 'realtime' | 'normal' | 'mixed';
  /**
   * Achieved dilation (real ns per emulated ns) over windows of the run: timeScale when the host
   * kept up, more when lockstep slowed emulated time down. Null when no window advanced.
   */
  dilation: { min: number; p50: number; max: number } | null;
  /** Lockstep null messages and data datagrams sent by all nodes. */
  promiseDatagrams: number;
  dataFrames: number;
  /** Datagrams all nodes sent, and those that carried a train of several frames. */
  datagrams: number;
  trainDatagrams: number;
  /**
   * Lockstep, several nodes per process: datagrams between processes sent together in bundles
   * (one UDP datagram per destination process and turn, docs/realtime.md "Bundles"), and the
   * datagrams they carried (counted in `datagrams` as well).
   */
  bundles: number;
  bundledDatagrams: number;
  /** Links declared down by a silent peer (fault handling), in the order they went down. */
  linksDown: { node: string; port: number; peer: string; atNs: number }[];
  /**
   * Wallclock only: frames that reached firmware after their emulated arrival instant (the host
   * did not keep up), and the node with the largest lateness (emulated ns). Lockstep: always 0.
   */
  lateFrames: number;
  worstLate: { node: string; maxLateNs: number } | null;
  /** The smallest link delay (emulated ns): the slack a late frame is measured against. */
  minLinkDelayNs: number;
  /**
   * Real pauses of the node processes: the longest garbage collection, how many took over 1 ms,
   * and the longest event-loop delay (perf_hooks), in real ms, over all nodes; and the collections
   * over 1 ms by emulated time (the first LONG_GC_LISTED), to set beside late frames.
   */
  pauses: {
    gcMaxMs: number;
    gcOver1Ms: number;
    eventLoopMaxMs: number;
    longGc?: { node: string; atNs: number; durationMs: number; kind: string }[];
  };
  /** Datagrams the overlay sent again because the real network lost or reordered them. */
  resentDatagrams: number;
  /**
   * Wallclock: late frames summed over the nodes by the emulated time they were due, in bins of
   * binNs (the scenario's duration in 100 bins, as many as the run lasted).
   */
  lateOverTime?: { binNs: number; counts: number[] };
}

/** Raw per-flow numbers from a runtime. */
export interface FlowRecord {
  id: number;
  src: string;
  dst: string;
  cc: string;
  sizeBytes: number;
  /** When the flow was posted (its planned start when it never started). */
  startNs: number;
  endNs: number | null;
  idealFctNs: number;
  /** Payload bytes delivered in order to the receiver (for goodput and fairness). */
  deliveredBytes: number;
  /** False when the flow never started (its start lay beyond the end of the run). */
  started: boolean;
  /** Rate changes of the flow, for flows the runtime kept as trace candidates. */
  rateLog?: FlowRateLog;
}

export interface ResultsInput {
  scenario: string;
  runtime: string;
  seed: number;
  timeScale: number;
  /** Emulated time the run covered, ns. */
  durationNs: number;
  ccByHost: Record<string, string>;
  flows: FlowRecord[];
  ports: PortResult[];
  hosts: HostResult[];
  series: SeriesResult;
  warnings: string[];
  /** Switch ports only: the summary's maxQueueBytes and pfcPauseTx are about the fabric. */
  isSwitchPort(p: PortResult): boolean;
}

/** Round to 6 decimals (slowdown, Jain); integers pass through. */
export function round6(x: number): number {
  return Number.isInteger(x) ? x : Math.round(x * 1e6) / 1e6;
}

export function buildResults(inp: ResultsInput): Results {
  const flows: FlowResult[] = inp.flows.map((f) => {
    const fctNs = f.endNs === null ? null : f.endNs - f.startNs;
    const sd = slowdown(fctNs, f.idealFctNs);
    return {
      id: f.id,
      src: f.src,
      dst: f.dst,
      cc: f.cc,
      sizeBytes: f.sizeBytes,
      startNs: f.startNs,
      endNs: f.endNs,
      fctNs,
      idealFctNs: f.idealFctNs,
      slowdown: sd === null ? null : round6(sd),
    };
  });
  const slowdowns = Float64Array.from(
    flows.filter((f) => f.slowdown !== null).map((f) => f.slowdown!),
  ).sort();
  let maxQueueBytes = 0;
  let pfcPauseTx = 0;
  let drops = 0;
  const extra: Pick<SummaryResult, 'trims' | 'headerDrops' | 'linkDownDrops'> = {};
  for (const p of inp.ports) {
    drops += p.drops;
    if (inp.isSwitchPort(p)) {
      maxQueueBytes = Math.max(maxQueueBytes, p.maxQueueBytes);
      pfcPauseTx += p.pfcPauseTx;
    }
    if (p.trims !== undefined) extra.trims = (extra.trims ?? 0) + p.trims;
    if (p.headerDrops !== undefined) extra.headerDrops = (extra.headerDrops ?? 0) + p.headerDrops;
    if (p.linkDownDrops !== undefined) extra.linkDownDrops = (extra.linkDownDrops ?? 0) + p.linkDownDrops;
  }
  let delivered = 0;
  const throughputs: number[] = [];
  for (const f of inp.flows) {
    delivered += f.deliveredBytes;
    if (!f.started) continue;
    const end = f.endNs ?? inp.durationNs;
    if (end > f.startNs) throughputs.push((f.deliveredBytes * 8e9) / (end - f.startNs));
  }
  const p50 = percentileSorted(slowdowns, 0.5);
  const p99 = percentileSorted(slowdowns, 0.99);
  const jain = jainIndex(throughputs);
  return {
    version: RESULTS_VERSION,
    scenario: inp.scenario,
    runtime: inp.runtime,
    seed: inp.seed,
    timeScale: inp.timeScale,
    durationNs: inp.durationNs,
    ccByHost: inp.ccByHost,
    flows,
    // Rebuilt so the key order is the contract's whatever the runtime handed in.
    ports: inp.ports.map((p) => ({
      node: p.node,
      port: p.port,
      txBytes: p.txBytes,
      maxQueueBytes: p.maxQueueBytes,
      meanQueueBytes: p.meanQueueBytes,
      ecnMarked: p.ecnMarked,
      pfcPauseTx: p.pfcPauseTx,
      pfcPauseRx: p.pfcPauseRx,
      pausedNs: p.pausedNs,
      drops: p.drops,
      cnmTx: p.cnmTx,
      ...(p.trims !== undefined
        ? { trims: p.trims, headerDrops: p.headerDrops ?? 0, maxHeaderQueueBytes: p.maxHeaderQueueBytes ?? 0 }
        : {}),
      ...(p.linkDownDrops !== undefined ? { linkDownDrops: p.linkDownDrops } : {}),
    })),
    hosts: inp.hosts.map((h) => ({
      node: h.node,
      cnpTx: h.cnpTx,
      cnpRx: h.cnpRx,
      nackTx: h.nackTx,
      retransmits: h.retransmits,
      rxBytes: h.rxBytes,
      ...(h.multipath !== undefined ? { multipath: h.multipath } : {}),
    })),
    series: inp.series,
    trace: buildTrace(
      flows.map((f, i) => ({ ...f, rateLog: inp.flows[i].rateLog })),
      inp.durationNs,
    ),
    summary: {
      flowsTotal: flows.length,
      flowsCompleted: flows.filter((f) => f.endNs !== null).length,
      slowdownP50: p50,
      slowdownP99: p99,
      maxQueueBytes,
      pfcPauseTx,
      drops,
      goodputBps: inp.durationNs > 0 ? Math.round((delivered * 8e9) / inp.durationNs) : 0,
      jain: jain === null ? null : round6(jain),
      ...(extra.trims !== undefined ? { trims: extra.trims, headerDrops: extra.headerDrops ?? 0 } : {}),
      ...(extra.linkDownDrops !== undefined ? { linkDownDrops: extra.linkDownDrops } : {}),
    },
    warnings: inp.warnings,
  };
}

export { resultsJsonChunks, serializeResults, writeResultsFile } from './results-json.js';
