/**
 * compare.json: the numbers a report shows, shaped from one results.json per algorithm (all runs
 * of the same scenario and seed). The HTML report embeds exactly this object, so its charts and
 * tables and this file cannot disagree. Contract: docs/results.md ("compare.json").
 */
import type { CollectivesResult } from '../stats/collectives.js';
import type { PortResult, RealtimeResult, Results, SummaryResult } from '../stats/results.js';
import { type BucketRule, type BucketStats, sizeBuckets, slowdownByBucket } from './buckets.js';
import { seriesPercentile } from './series.js';

export const COMPARE_VERSION = 1;
/** Ports whose queues the report charts. */
export const BUSIEST_PORTS = 4;

export interface RunInput {
  /** Algorithm (or run) name. */
  name: string;
  results: Results;
  /** Where its results.json is, relative to the report (for the link in the page). */
  resultsFile?: string;
}

export interface PortQueueStats {
  /** "<switch>:<port>". */
  port: string;
  /** From the switch (exact): time-average and largest egress queue, bytes. */
  meanQueueBytes: number;
  maxQueueBytes: number;
  /** From the sampled series (docs/results.md `series`): percentiles of the samples, bytes. */
  p50Bytes: number | null;
  p90Bytes: number | null;
  p99Bytes: number | null;
  ecnMarked: number;
  pfcPauseTx: number;
  pausedNs: number;
}

export interface Counters {
  /** Σ pausedNs over every port (hosts and switches). */
  pfcPausedNs: number;
  /** PFC pause frames sent by switches / received by any port. */
  pfcPauseTx: number;
  pfcPauseRx: number;
  ecnMarked: number;
  /** Congestion notifications: CNPs sent by receivers and received by senders; CNMs sent by switches. */
  cnpTx: number;
  cnpRx: number;
  cnmTx: number;
  nackTx: number;
  retransmits: number;
  drops: number;
  /** Hosts that spray or run selective repeat only (hosts[].multipath), so other reports keep their shape. */
  retransmittedBytes?: number;
  dataBytesTx?: number;
  trimmedRx?: number;
  outOfOrderRx?: number;
  /** The deepest reorder buffer of any host, packets. */
  reorderMaxPackets?: number;
  /** The most uneven entropy load of any host: max / mean payload bytes over its entropies. */
  entropyLoadMaxOverMean?: number;
  /** Runs that trim / have link events only (results.json `summary`), so other reports keep their shape. */
  trims?: number;
  headerDrops?: number;
  linkDownDrops?: number;
}

export interface SlowFlow {
  flow: number;
  src: string;
  dst: string;
  sizeBytes: number;
  startNs: number;
  fctNs: number | null;
  slowdown: number | null;
  changeCount: number;
  drops: Record<string, number>;
  /** [tNs, rateBps, windowBytes | null, why], oldest first. */
  changes: [number, number, number | null, string][];
}

export interface AlgorithmReport {
  resultsFile: string | null;
  durationNs: number;
  summary: SummaryResult;
  buckets: BucketStats[];
  ports: PortQueueStats[];
  counters: Counters;
  slowFlows: SlowFlow[];
  warnings: string[];
  /**
   * Real runtimes only: how emulated time was kept (results.json `realtime`), with the run's
   * timeScale. Absent for virtual runs, so their compare.json is unchanged.
   */
  realtime?: RealtimeReport;
  /**
   * Collectives and jobs (results.json `collectives`), only when the workload has any, so other
   * runs' compare.json is unchanged.
   */
  collectives?: CollectivesResult;
}

export type RealtimeReport = RealtimeResult & { timeScale: number };

export interface CompareData {
  version: 1;
  scenario: string;
  runtime: string;
  seed: number;
  algorithms: string[];
  bucketRule: BucketRule;
  /** The busiest switch ports over all algorithms, busiest first (the queue charts' ports). */
  busiestPorts: string[];
  byAlgorithm: Record<string, AlgorithmReport>;
}

const portKey = (p: PortResult) => `${p.node}:${p.port}`;

/**
 * Busiest switch ports: largest time-average queue summed over the runs, then largest maximum,
 * then name; only ports with a queue series (non-empty at some sample in some run), so a port
 * that once held a single frame does not get a chart of zeros.
 */
export function busiestPorts(runs: readonly RunInput[], n = BUSIEST_PORTS): string[] {
  const score = new Map<string, { mean: number; max: number }>();
  const sampled = new Set(runs.flatMap((x) => Object.keys(x.results.series.queue)));
  for (const { results: r } of runs) {
    const hosts = new Set(r.hosts.map((h) => h.node));
    for (const p of r.ports) {
      if (hosts.has(p.node)) continue;
      const s = score.get(portKey(p)) ?? { mean: 0, max: 0 };
      s.mean += p.meanQueueBytes;
      s.max += p.maxQueueBytes;
      score.set(portKey(p), s);
    }
  }
  return [...score]
    .filter(([k]) => sampled.has(k))
    .sort(([ka, a], [kb, b]) => b.mean - a.mean || b.max - a.max || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .slice(0, n)
    .map(([k]) => k);
}

function counters(r: Results): Counters {
  const hosts = new Set(r.hosts.map((h) => h.node));
  const c: Counters = {
    pfcPausedNs: 0,
    pfcPauseTx: 0,
    pfcPauseRx: 0,
    ecnMarked: 0,
    cnpTx: 0,
    cnpRx: 0,
    cnmTx: 0,
    nackTx: 0,
    retransmits: 0,
    drops: 0,
  };
  for (const p of r.ports) {
    c.pfcPausedNs += p.pausedNs;
    if (!hosts.has(p.node)) c.pfcPauseTx += p.pfcPauseTx;
    c.pfcPauseRx += p.pfcPauseRx;
    c.ecnMarked += p.ecnMarked;
    c.cnmTx += p.cnmTx;
    c.drops += p.drops;
  }
  for (const h of r.hosts) {
    c.cnpTx += h.cnpTx;
    c.cnpRx += h.cnpRx;
    c.nackTx += h.nackTx;
    c.retransmits += h.retransmits;
  }
  const mp = r.hosts.flatMap((h) => (h.multipath === undefined ? [] : [h.multipath]));
  if (mp.length > 0) {
    const sum = (f: (m: (typeof mp)[number]) => number) => mp.reduce((a, m) => a + f(m), 0);
    c.dataBytesTx = sum((m) => m.dataBytesTx);
    c.retransmittedBytes = sum((m) => m.retransmittedBytes);
    c.trimmedRx = sum((m) => m.trimmedRx);
    c.outOfOrderRx = sum((m) => m.outOfOrderRx);
    c.reorderMaxPackets = Math.max(...mp.map((m) => m.reorderMaxPackets));
    c.entropyLoadMaxOverMean = Math.max(
      ...mp.map((m) => {
        const total = m.entropyTxBytes.reduce((a, b) => a + b, 0);
        return total > 0 ? Math.max(...m.entropyTxBytes) / (total / m.entropyTxBytes.length) : 0;
      }),
    );
  }
  const s = r.summary;
  if (s.trims !== undefined) {
    c.trims = s.trims;
    c.headerDrops = s.headerDrops ?? 0;
  }
  if (s.linkDownDrops !== undefined) c.linkDownDrops = s.linkDownDrops;
  return c;
}

function portStats(r: Results, key: string): PortQueueStats {
  const p = r.ports.find((x) => portKey(x) === key);
  const series = r.series.queue[key] ?? [];
  return {
    port: key,
    meanQueueBytes: p?.meanQueueBytes ?? 0,
    maxQueueBytes: p?.maxQueueBytes ?? 0,
    // An absent series means the queue was empty at every sample.
    p50Bytes: series.length > 0 ? seriesPercentile(series, 0.5) : 0,
    p90Bytes: series.length > 0 ? seriesPercentile(series, 0.9) : 0,
    p99Bytes: series.length > 0 ? seriesPercentile(series, 0.99) : 0,
    ecnMarked: p?.ecnMarked ?? 0,
    pfcPauseTx: p?.pfcPauseTx ?? 0,
    pausedNs: p?.pausedNs ?? 0,
  };
}

function slowFlows(r: Results): SlowFlow[] {
  return r.trace.map((t) => {
    const f = r.flows[t.flow];
    return {
      flow: t.flow,
      src: f.src,
      dst: f.dst,
      sizeBytes: f.sizeBytes,
      startNs: f.startNs,
      fctNs: f.fctNs,
      slowdown: f.slowdown,
      changeCount: t.changeCount,
      drops: t.drops,
      changes: t.changes,
    };
  });
}

export function compareData(runs: readonly RunInput[]): CompareData {
  if (runs.length === 0) throw new Error('compareData: no runs');
  const first = runs[0].results;
  const { rule, buckets } = sizeBuckets(runs.flatMap((x) => x.results.flows.map((f) => f.sizeBytes)));
  const ports = busiestPorts(runs);
  const byAlgorithm: Record<string, AlgorithmReport> = {};
  for (const run of runs) {
    const r = run.results;
    byAlgorithm[run.name] = {
      resultsFile: run.resultsFile ?? null,
      durationNs: r.durationNs,
      summary: r.summary,
      buckets: slowdownByBucket(r.flows, buckets),
      ports: ports.map((k) => portStats(r, k)),
      counters: counters(r),
      slowFlows: slowFlows(r),
      warnings: r.warnings,
      ...(r.realtime !== undefined ? { realtime: { timeScale: r.timeScale, ...r.realtime } } : {}),
      ...(r.collectives !== undefined ? { collectives: r.collectives } : {}),
    };
  }
  return {
    version: COMPARE_VERSION,
    scenario: first.scenario,
    runtime: first.runtime,
    seed: first.seed,
    algorithms: runs.map((x) => x.name),
    bucketRule: rule,
    busiestPorts: ports,
    byAlgorithm,
  };
}
