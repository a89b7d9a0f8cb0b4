/**
 * Terminal tables of a comparison (cli-table3, borderless so they read like the rest of the
 * CLI's output and copy cleanly): the summaries side by side, FCT slowdown per flow-size
 * bucket, and the collective jobs' bus bandwidth.
 */
import Table from 'cli-table3';
import type { CollectivesResult } from '../stats/collectives.js';
import type { BucketStats } from './buckets.js';

/** Three significant digits with a decimal unit: 2048600 → `2.05 MB`. */
export function short(v: number, unit: string, scales: readonly [string, number][]): string {
  for (const [prefix, scale] of scales) {
    if (Math.abs(v) >= scale) return `${Number((v / scale).toPrecision(3))} ${prefix}${unit}`;
  }
  return `${Number(v.toPrecision(3))} ${unit}`;
}

const DECIMAL: [string, number][] = [
  ['T', 1e12],
  ['G', 1e9],
  ['M', 1e6],
  ['k', 1e3],
];

const SUMMARY_ROWS: [string, string, (v: number) => string][] = [
  ['flowsCompleted', 'flows completed', (v) => String(v)],
  ['slowdownP50', 'slowdown p50', (v) => v.toFixed(2)],
  ['slowdownP99', 'slowdown p99', (v) => v.toFixed(2)],
  ['maxQueueBytes', 'max queue', (v) => short(v, 'B', DECIMAL.slice(1))],
  ['pfcPauseTx', 'PFC pauses sent', (v) => String(v)],
  ['drops', 'drops', (v) => String(v)],
  ['goodputBps', 'goodput', (v) => short(v, 'bit/s', DECIMAL)],
  ['jain', 'Jain fairness', (v) => v.toFixed(3)],
];

const PLAIN = {
  chars: {
    top: '',
    'top-mid': '',
    'top-left': '',
    'top-right': '',
    bottom: '',
    'bottom-mid': '',
    'bottom-left': '',
    'bottom-right': '',
    left: '',
    'left-mid': '',
    mid: '',
    'mid-mid': '',
    right: '',
    'right-mid': '',
    middle: '  ',
  },
  style: { 'padding-left': 0, 'padding-right': 0, head: [], border: [] },
};

function render(t: Table.Table): string {
  // cli-table3 pads the last column; trailing blanks only get in the way of copy and diff.
  return t
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

/** Metrics down, one column per run. */
export function formatSummaryColumns(
  runs: readonly { cc: string; summary: Record<string, unknown> | null }[],
): string {
  const t = new Table({
    ...PLAIN,
    head: ['', ...runs.map((r) => r.cc)],
    colAligns: ['left', ...runs.map(() => 'right' as const)],
  });
  for (const [key, label, fmt] of SUMMARY_ROWS) {
    t.push([
      label,
      ...runs.map((r) => {
        const v = r.summary?.[key];
        if (key === 'flowsCompleted' && typeof v === 'number') return `${v}/${r.summary?.flowsTotal ?? '?'}`;
        return typeof v === 'number' ? fmt(v) : '—';
      }),
    ]);
  }
  return render(t);
}

/** Flow-size buckets down; per run "p50 / p95 / p99 (n)". */
export function formatBucketColumns(
  runs: readonly { cc: string; buckets: readonly BucketStats[] }[],
): string {
  const t = new Table({
    ...PLAIN,
    head: ['flow size', ...runs.map((r) => `${r.cc} p50 / p95 / p99 (flows)`)],
    colAligns: ['left', ...runs.map(() => 'right' as const)],
  });
  const f = (v: number | null) => (v === null ? '–' : v.toFixed(2));
  runs[0]?.buckets.forEach((b, i) => {
    t.push([
      b.bucket,
      ...runs.map((r) => {
        const s = r.buckets[i];
        return `${f(s.p50)} / ${f(s.p95)} / ${f(s.p99)} (${s.count}${s.unfinished > 0 ? `+${s.unfinished}` : ''})`;
      }),
    ]);
  });
  return render(t);
}

/** Jobs down; per run the job's mean busbw and its mean iteration time against the ideal. */
export function formatCollectiveColumns(
  runs: readonly { cc: string; collectives: CollectivesResult | undefined }[],
): string {
  const t = new Table({
    ...PLAIN,
    head: ['job', ...runs.map((r) => `${r.cc} busbw (mean CCT, ×ideal)`)],
    colAligns: ['left', ...runs.map(() => 'right' as const)],
  });
  const jobs = [...new Set(runs.flatMap((r) => r.collectives?.jobs.map((j) => j.job) ?? []))];
  for (const job of jobs)
    t.push([
      job,
      ...runs.map((r) => {
        const j = r.collectives?.jobs.find((x) => x.job === job);
        if (j === undefined || j.busbwBps === null || j.meanCctNs === null || j.ratio === null) return '—';
        return `${short(j.busbwBps, 'bit/s', DECIMAL)} (${short(j.meanCctNs / 1e9, 's', MILLI)}, ×${j.ratio.toFixed(3)})`;
      }),
    ]);
  return render(t);
}

const MILLI: [string, number][] = [
  ['', 1],
  ['m', 1e-3],
  ['µ', 1e-6],
];
