/**
 * The report's charts as vega-lite specs, from compare data (numbers) and the runs' results
 * (time series). Every mark carries a `desc` (its ARIA label in the SVG) that starts with the
 * series it belongs to, so a test can check that each series drew something.
 */
import type { FlatSeries, Results } from '../stats/results.js';
import type { CompareData, RunInput, SlowFlow } from './data.js';
import { cdfPoints, seriesValues, thin } from './series.js';

// Loosely typed: vega-lite's own TopLevelSpec type is a deep union that slows tsc for no gain here.
export type VlSpec = Record<string, unknown>;

export interface ChartSpec {
  /** Stable id: the figure's id in the page. */
  id: string;
  title: string;
  /** How to read it (shown under the chart). */
  caption: string;
  /** Series that must each draw at least one mark (the prefix of their marks' `desc`). */
  series: string[];
  vl: VlSpec;
}

/** Points per drawn series: enough for a 700-px-wide chart. */
export const MAX_POINTS = 600;
/** Rate chart: all flows up to this many, else the slowest flows (the trace's). */
export const MAX_RATE_FLOWS = 8;
/** Flows in the "why did the rate drop" chart, per algorithm. */
export const WHY_FLOWS = 3;

/** Tableau 10, fixed per algorithm index so an algorithm has one colour in every chart. */
const PALETTE = [
  '#4c78a8',
  '#f58518',
  '#e45756',
  '#72b7b2',
  '#54a24b',
  '#eeca3b',
  '#b279a2',
  '#ff9da6',
  '#9d755d',
  '#bab0ac',
];

const CONFIG = {
  font: 'DejaVu Sans, Helvetica, Arial, sans-serif',
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#e6e6e6' },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal' },
  header: { labelFontSize: 12, titleFontSize: 12 },
  view: { stroke: '#cccccc' },
};

export function algColor(data: CompareData) {
  return {
    field: 'algorithm',
    type: 'nominal',
    title: 'algorithm',
    scale: { domain: data.algorithms, range: data.algorithms.map((_, i) => PALETTE[i % PALETTE.length]) },
  };
}

export interface TimeUnit {
  name: 'µs' | 'ms';
  ns: number;
}

/** µs for short spans, ms from 2 ms on, so tick labels stay short. */
export function timeUnit(maxNs: number): TimeUnit {
  return maxNs >= 2e6 ? { name: 'ms', ns: 1e6 } : { name: 'µs', ns: 1e3 };
}

export const r3 = (x: number) => Number(x.toPrecision(4));

/** Largest `field` among rows whose `key` is `value` (0 if none). */
function maxOf(rows: readonly Record<string, unknown>[], field: string, value: string, key = 'port'): number {
  let m = 0;
  for (const r of rows)
    if (r[key] === value && typeof r[field] === 'number' && (r[field] as number) > m) m = r[field] as number;
  return m;
}

/** A degenerate [0, 0] domain makes vega print ticks like "0.000000". */
export const atLeast1 = (x: number) => Math.max(1, x);

export function top(vl: VlSpec): VlSpec {
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', config: CONFIG, ...vl };
}

// ---------------------------------------------------------------------------------------------

export function slowdownChart(data: CompareData): ChartSpec | null {
  const rows: Record<string, unknown>[] = [];
  const series = new Set<string>();
  const bucketOrder = data.byAlgorithm[data.algorithms[0]].buckets.map((b) => b.bucket);
  for (const alg of data.algorithms) {
    for (const b of data.byAlgorithm[alg].buckets) {
      for (const pct of ['p50', 'p95', 'p99'] as const) {
        const v = b[pct];
        if (v === null) continue;
        series.add(alg);
        rows.push({
          algorithm: alg,
          bucket: b.bucket,
          pct,
          slowdown: v,
          desc: `${alg} — ${pct} slowdown ${v} for flows of ${b.bucket} (${b.count} flows)`,
        });
      }
    }
  }
  if (rows.length === 0) return null;
  return {
    id: 'slowdown',
    title: 'FCT slowdown by flow size',
    caption:
      'Flow completion time divided by the ideal (unloaded) FCT, per flow-size bucket: median, 95th and 99th percentile of the completed flows. 1 = as fast as on an idle network; lower is better. Log scale.',
    series: data.algorithms.filter((a) => series.has(a)),
    vl: top({
      data: { values: rows },
      facet: {
        column: {
          field: 'pct',
          type: 'nominal',
          sort: ['p50', 'p95', 'p99'],
          title: null,
          header: { labelExpr: "datum.value == 'p50' ? 'median (p50)' : datum.value + ' (tail)'" },
        },
      },
      spec: {
        width: 250,
        height: 220,
        mark: { type: 'line', point: { size: 45, filled: true }, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'bucket',
            type: 'ordinal',
            sort: bucketOrder,
            title: 'flow size',
            axis: { labelAngle: -40 },
          },
          y: {
            field: 'slowdown',
            type: 'quantitative',
            scale: { type: 'log', nice: true },
            title: 'FCT slowdown',
          },
          color: algColor(data),
          description: { field: 'desc' },
        },
      },
      resolve: { scale: { y: 'shared' } },
    }),
  };
}

export function queueCdfChart(data: CompareData, runs: readonly RunInput[]): ChartSpec | null {
  if (data.busiestPorts.length === 0) return null;
  const rows: Record<string, unknown>[] = [];
  for (const run of runs) {
    for (const port of data.busiestPorts) {
      const s = run.results.series.queue[port];
      // No series: the queue was empty at every sample (a CDF that is 1 from 0 on).
      const values = s === undefined ? [0] : seriesValues(s);
      for (const [bytes, q] of cdfPoints(values))
        rows.push({
          algorithm: run.name,
          port,
          kb: r3(bytes / 1000),
          frac: q,
          desc: `${run.name} — ${port}: ${(q * 100).toFixed(1)} % of samples ≤ ${r3(bytes / 1000)} KB`,
        });
    }
  }
  return {
    id: 'queue-cdf',
    title: 'Queue length distribution, busiest switch ports',
    caption:
      'Empirical CDF of the sampled egress queue (all priorities) of the busiest ports: the fraction of samples at or below each queue length. Further left = shorter queues, less delay.',
    series: runs.map((r) => r.name),
    vl: top({
      data: { values: rows },
      hconcat: data.busiestPorts.map((port) => ({
        title: { text: `port ${port}`, fontSize: 12, fontWeight: 'normal' },
        // Four panels and their axes fit the page's 1120 px with the legend on top.
        width: 180,
        height: 190,
        transform: [{ filter: { field: 'port', equal: port } }],
        mark: { type: 'line', strokeWidth: 2, interpolate: 'step-after' },
        encoding: {
          x: {
            field: 'kb',
            type: 'quantitative',
            title: 'queue length (KB)',
            scale: { domain: [0, atLeast1(maxOf(rows, 'kb', port))], nice: true },
          },
          y: {
            field: 'frac',
            type: 'quantitative',
            title: 'fraction of samples',
            scale: { domain: [0, 1] },
            axis: { format: '%' },
          },
          color: { ...algColor(data), legend: { orient: 'top' } },
          description: { field: 'desc' },
        },
      })),
      resolve: { scale: { x: 'independent' } },
    }),
  };
}

export function queueTimeChart(data: CompareData, runs: readonly RunInput[]): ChartSpec | null {
  if (data.busiestPorts.length === 0) return null;
  const unit = timeUnit(Math.max(...runs.map((r) => r.results.durationNs)));
  const rows: Record<string, unknown>[] = [];
  for (const run of runs) {
    for (const port of data.busiestPorts) {
      const s: FlatSeries = run.results.series.queue[port] ?? [0, 0, run.results.durationNs, 0];
      for (const [t, b] of thin(s, MAX_POINTS))
        rows.push({
          algorithm: run.name,
          port,
          t: r3(t / unit.ns),
          kb: r3(b / 1000),
          desc: `${run.name} — ${port} at ${r3(t / unit.ns)} ${unit.name}: ${r3(b / 1000)} KB`,
        });
    }
  }
  return {
    id: 'queue-time',
    title: 'Queue length over time, busiest switch ports',
    caption: `Egress queue (all priorities) sampled every sampleInterval; long series are thinned to ${MAX_POINTS} points keeping each stretch's minimum and maximum, so peaks survive.`,
    series: runs.map((r) => r.name),
    vl: top({
      data: { values: rows },
      vconcat: data.busiestPorts.map((port) => ({
        title: { text: `port ${port}`, fontSize: 12, fontWeight: 'normal', anchor: 'start' },
        width: 720,
        height: 130,
        transform: [{ filter: { field: 'port', equal: port } }],
        mark: { type: 'line', strokeWidth: 1.5 },
        encoding: {
          x: { field: 't', type: 'quantitative', title: `time (${unit.name})` },
          y: {
            field: 'kb',
            type: 'quantitative',
            title: 'queue (KB)',
            scale: { domain: [0, atLeast1(maxOf(rows, 'kb', port))], nice: true },
          },
          color: algColor(data),
          description: { field: 'desc' },
        },
      })),
      resolve: { scale: { y: 'independent' } },
    }),
  };
}

function flowLabel(r: Results, id: number): string {
  const f = r.flows[id];
  return `flow ${id} ${f.src}→${f.dst}`;
}

/** Flows whose rate the report draws: all when few, else the slowest ones (the trace's). */
export function rateFlows(r: Results): number[] {
  const withSeries = Object.keys(r.series.rate).map(Number);
  if (withSeries.length <= MAX_RATE_FLOWS) return withSeries;
  const slow = r.trace.map((t) => t.flow).filter((id) => r.series.rate[String(id)] !== undefined);
  return slow.slice(0, MAX_RATE_FLOWS);
}

export function rateChart(run: RunInput, index: number): ChartSpec | null {
  const r = run.results;
  const ids = rateFlows(r);
  if (ids.length === 0) return null;
  const unit = timeUnit(r.durationNs);
  const rows: Record<string, unknown>[] = [];
  const labels = ids.map((id) => flowLabel(r, id));
  ids.forEach((id, i) => {
    for (const [t, bps] of thin(r.series.rate[String(id)], MAX_POINTS))
      rows.push({
        flow: labels[i],
        t: r3(t / unit.ns),
        gbps: r3(bps / 1e9),
        desc: `${labels[i]} — at ${r3(t / unit.ns)} ${unit.name}: ${r3(bps / 1e9)} Gbit/s`,
      });
  });
  const all = ids.length === Object.keys(r.series.rate).length;
  return {
    id: `rate-${index}`,
    title: `Per-flow sending rate — ${run.name}`,
    caption: `The sender QP's pacing rate (the congestion-control output), sampled while each flow is active. ${all ? 'All flows.' : `The ${ids.length} slowest flows (the ones traced below).`}`,
    series: labels,
    vl: top({
      data: { values: rows },
      width: 720,
      height: 220,
      mark: { type: 'line', strokeWidth: 1.5, interpolate: 'step-after' },
      encoding: {
        // From 0 like the queue charts, so the two read side by side.
        x: {
          field: 't',
          type: 'quantitative',
          title: `time (${unit.name})`,
          scale: { domain: [0, r3(r.durationNs / unit.ns)], nice: false },
        },
        y: { field: 'gbps', type: 'quantitative', title: 'rate (Gbit/s)' },
        color: {
          field: 'flow',
          type: 'nominal',
          title: 'flow',
          sort: labels,
          scale: { scheme: 'tableau10' },
        },
        description: { field: 'desc' },
      },
    }),
  };
}

type Counters = CompareData['byAlgorithm'][string]['counters'];
/** The counters every run has (the optional ones, of trimming, link events or multipath hosts, are not charted). */
type CounterKey = { [K in keyof Counters]-?: undefined extends Counters[K] ? never : K }[keyof Counters];

const COUNTERS: [CounterKey, string, number][] = [
  ['pfcPausedNs', 'PFC paused time (µs, Σ ports)', 1e3],
  ['pfcPauseTx', 'PFC pause frames sent', 1],
  ['cnpTx', 'CNPs sent', 1],
  ['cnmTx', 'CNMs sent (switch)', 1],
  ['ecnMarked', 'ECN-marked packets', 1],
];

export function countersChart(data: CompareData): ChartSpec {
  const rows: Record<string, unknown>[] = [];
  for (const alg of data.algorithms) {
    const c = data.byAlgorithm[alg].counters;
    for (const [key, label, div] of COUNTERS) {
      // Counts stay exact; only scaled values (time in µs) are rounded.
      const value = div === 1 ? c[key] : r3(c[key] / div);
      rows.push({ algorithm: alg, metric: label, value, desc: `${alg} — ${label}: ${value}` });
    }
  }
  return {
    id: 'counters',
    title: 'Pauses and congestion notifications',
    caption:
      'PFC: time ports spent paused (summed over every port and priority) and pause frames switches sent. CNP: congestion notification packets receivers sent back to senders (ECN-driven algorithms). CNM: switch-generated notifications (SRCC-style). ECN marks at switch egresses.',
    series: [...data.algorithms],
    vl: top({
      data: { values: rows },
      hconcat: COUNTERS.map(([, label]) => ({
        title: { text: label, fontSize: 12, fontWeight: 'normal' },
        width: Math.max(90, 36 * data.algorithms.length),
        height: 170,
        transform: [{ filter: { field: 'metric', equal: label } }],
        layer: [
          { mark: { type: 'bar' } },
          {
            mark: { type: 'text', dy: -6, fontSize: 10 },
            encoding: { text: { field: 'value', type: 'quantitative', format: ',' } },
          },
        ],
        encoding: {
          x: {
            field: 'algorithm',
            type: 'nominal',
            title: null,
            sort: data.algorithms,
            axis: { labelAngle: -30 },
          },
          y: {
            field: 'value',
            type: 'quantitative',
            title: null,
            // Headroom for the value labels; at least 1 so an all-zero metric still gets an axis.
            scale: { domain: [0, atLeast1(maxOf(rows, 'value', label, 'metric') * 1.15)], nice: true },
          },
          color: { ...algColor(data), legend: null },
          description: { field: 'desc' },
        },
      })),
      resolve: { scale: { y: 'independent' } },
    }),
  };
}

/** Window-based algorithms keep the rate fixed and move the window: chart what moved. */
function whyMetric(flows: readonly SlowFlow[]): 'rate' | 'window' {
  const changes = flows.flatMap((f) => f.changes);
  const rates = new Set(changes.map((c) => c[1]));
  return rates.size <= 1 && changes.some((c) => c[2] !== null) ? 'window' : 'rate';
}

export function whyChart(data: CompareData, alg: string, index: number): ChartSpec | null {
  const flows = data.byAlgorithm[alg].slowFlows.slice(0, WHY_FLOWS).filter((f) => f.changes.length > 0);
  if (flows.length === 0) return null;
  const metric = whyMetric(flows);
  const maxT = Math.max(...flows.flatMap((f) => f.changes.map((c) => c[0])));
  const unit = timeUnit(maxT);
  const labels = flows.map((f) => `flow ${f.flow} ${f.src}→${f.dst}`);
  const rows: Record<string, unknown>[] = [];
  flows.forEach((f, i) => {
    for (const [t, rate, win, why] of f.changes) {
      const y = metric === 'rate' ? r3(rate / 1e9) : win === null ? null : r3(win / 1000);
      if (y === null) continue;
      rows.push({
        flow: labels[i],
        t: r3(t / unit.ns),
        y,
        why,
        desc: `${labels[i]} — at ${r3(t / unit.ns)} ${unit.name} ${metric} ${y} ${metric === 'rate' ? 'Gbit/s' : 'KB'} (${why})`,
      });
    }
  });
  const yTitle = metric === 'rate' ? 'rate (Gbit/s)' : 'window (KB)';
  return {
    id: `why-${index}`,
    title: `Why did the rate drop — ${alg}, slowest flows`,
    caption: `The last ${metric} changes of the ${flows.length === 1 ? 'slowest flow' : `${flows.length} slowest flows`}, each point coloured by the event that caused it (the NIC's rate trace). The line holds the ${metric} between changes.`,
    series: labels,
    vl: top({
      data: { values: rows },
      vconcat: labels.map((label) => ({
        title: { text: label, fontSize: 12, fontWeight: 'normal', anchor: 'start' },
        width: 640,
        height: 110,
        transform: [{ filter: { field: 'flow', equal: label } }],
        layer: [
          { mark: { type: 'line', interpolate: 'step-after', color: '#9a9a9a', strokeWidth: 1.2 } },
          {
            mark: { type: 'point', filled: true, size: 50 },
            encoding: {
              color: { field: 'why', type: 'nominal', title: 'cause', scale: { scheme: 'set1' } },
              shape: { field: 'why', type: 'nominal', title: 'cause' },
            },
          },
        ],
        encoding: {
          x: { field: 't', type: 'quantitative', title: `time (${unit.name})`, scale: { zero: false } },
          y: { field: 'y', type: 'quantitative', title: yTitle, scale: { zero: false } },
          description: { field: 'desc' },
        },
      })),
      resolve: { scale: { x: 'independent', y: 'independent' } },
    }),
  };
}

/**
 * Real runs under wallclock: the frames that reached firmware after their emulated arrival
 * instant, by the emulated time they were due (results.json `realtime.lateOverTime`), with every
 * collection over 1 ms (`realtime.pauses.longGc`) as a rule at the emulated instant it began: a
 * cluster of late frames right after a rule is a pause the host could not absorb. Null when no
 * run has late frames or long collections to show.
 */
export function lateChart(data: CompareData): ChartSpec | null {
  const rows: Record<string, unknown>[] = [];
  const series: string[] = [];
  let maxNs = 0;
  for (const alg of data.algorithms) maxNs = Math.max(maxNs, data.byAlgorithm[alg].durationNs);
  const unit = timeUnit(maxNs);
  const at = (ns: number) => r3(ns / unit.ns);
  for (const alg of data.algorithms) {
    const rt = data.byAlgorithm[alg].realtime;
    if (rt === undefined) continue;
    const late = rt.lateOverTime;
    if (late !== undefined && rt.lateFrames > 0) {
      series.push(`late ${alg}`);
      late.counts.forEach((count, i) => {
        if (count === 0) return;
        const from = at(i * late.binNs);
        const to = at((i + 1) * late.binNs);
        rows.push({
          algorithm: alg,
          layer: 'late',
          t: from,
          t2: to,
          count,
          desc: `late ${alg} — ${count} frames due at ${from}–${to} ${unit.name}`,
        });
      });
    }
    const gcs = rt.pauses.longGc ?? [];
    if (gcs.length > 0) series.push(`gc ${alg}`);
    for (const g of gcs)
      rows.push({
        algorithm: alg,
        layer: 'gc',
        t: at(g.atNs),
        ms: g.durationMs,
        desc: `gc ${alg} — ${g.node}: ${g.kind} collection of ${r3(g.durationMs)} ms real at ${at(g.atNs)} ${unit.name}`,
      });
  }
  if (series.length === 0) return null;
  const x = {
    field: 't',
    type: 'quantitative',
    title: `emulated time the frame was due (${unit.name})`,
    scale: { domain: [0, at(maxNs)], nice: false },
  };
  return {
    id: 'late',
    title: 'Late frames and long collections (real runtimes, wallclock)',
    caption:
      'Bars: frames that reached firmware after their emulated arrival instant, by when they were due (summed over nodes). Dashed rules: garbage collections over 1 ms real in a node process, at the emulated instant each began (the first 200 of a run). Late frames right after a rule are a pause the run could not absorb; raise timeScale, or use sync: lockstep, which is never late.',
    series,
    vl: top({
      data: { values: rows },
      width: 720,
      height: 200,
      layer: [
        {
          transform: [{ filter: "datum.layer === 'late'" }],
          mark: { type: 'bar', opacity: 0.75 },
          encoding: {
            x,
            x2: { field: 't2' },
            y: { field: 'count', type: 'quantitative', title: 'late frames', stack: null },
            y2: { datum: 0 },
            color: algColor(data),
            description: { field: 'desc' },
          },
        },
        {
          transform: [{ filter: "datum.layer === 'gc'" }],
          mark: { type: 'rule', strokeDash: [4, 3], strokeWidth: 1 },
          encoding: {
            x,
            color: algColor(data),
            description: { field: 'desc' },
          },
        },
      ],
    }),
  };
}

/** Every chart of a report, in page order. */
export function reportCharts(data: CompareData, runs: readonly RunInput[]): ChartSpec[] {
  const charts: (ChartSpec | null)[] = [
    slowdownChart(data),
    queueCdfChart(data, runs),
    queueTimeChart(data, runs),
    ...runs.map((r, i) => rateChart(r, i)),
    countersChart(data),
    ...data.algorithms.map((a, i) => whyChart(data, a, i)),
    lateChart(data),
  ];
  return charts.filter((c): c is ChartSpec => c !== null);
}
