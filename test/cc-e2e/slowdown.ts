/**
 * FCT slowdown per flow-size bucket (p50/p95/p99), for the baseline comparisons. Percentiles as
 * the HPCC simulator's fct_analysis.py: the element at index ⌊n·p⌋ of the sorted bucket;
 * buckets by size so rows line up across algorithms.
 */

export interface FlowLike {
  sizeBytes: number;
  slowdown: number | null;
}

export interface BucketStats {
  label: string;
  flows: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Upper bounds (exclusive) of the buckets; WebSearch spans 1 B to 30 MB. */
export const SIZE_BUCKETS: { label: string; maxBytes: number }[] = [
  { label: '< 100 KB', maxBytes: 100_000 },
  { label: '100 KB - 1 MB', maxBytes: 1_000_000 },
  { label: '1 MB - 10 MB', maxBytes: 10_000_000 },
  { label: '≥ 10 MB', maxBytes: Number.POSITIVE_INFINITY },
];

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

export function slowdownTable(flows: readonly FlowLike[]): BucketStats[] {
  let lo = 0;
  return SIZE_BUCKETS.map((b) => {
    const s = flows
      .filter((f) => f.slowdown !== null && f.sizeBytes >= lo && f.sizeBytes < b.maxBytes)
      .map((f) => f.slowdown!)
      .sort((x, y) => x - y);
    lo = b.maxBytes;
    return {
      label: b.label,
      flows: s.length,
      p50: percentile(s, 0.5),
      p95: percentile(s, 0.95),
      p99: percentile(s, 0.99),
    };
  });
}

export function formatSlowdownTable(table: Record<string, BucketStats[]>): string {
  const lines = [
    '| size | flows | ' +
      Object.keys(table)
        .map((cc) => `${cc} p50 / p95 / p99`)
        .join(' | ') +
      ' |',
  ];
  lines.push(
    `|---|---|${Object.keys(table)
      .map(() => '---')
      .join('|')}|`,
  );
  const first = Object.values(table)[0];
  first.forEach((b, i) => {
    const cells = Object.values(table).map((rows) => {
      const r = rows[i];
      return `${r.p50.toFixed(2)} / ${r.p95.toFixed(2)} / ${r.p99.toFixed(2)}`;
    });
    lines.push(`| ${b.label} | ${b.flows} | ${cells.join(' | ')} |`);
  });
  return lines.join('\n');
}
