/**
 * Flow-size buckets and FCT slowdown percentiles per bucket, as the HPCC paper plots them
 * (Fig. 11: slowdown p50/p95/p99 against flow size). The rule is in docs/reports.md.
 */
import { percentileSorted } from '../stats/aggregate.js';

export interface SizeBucket {
  label: string;
  /** Flows with minBytes ≤ size < maxBytes belong here (maxBytes null: no upper bound). */
  minBytes: number;
  maxBytes: number | null;
}

export type BucketRule = 'ladder' | 'distinct';

/**
 * Base of the ladder: 3 KiB × 4^k, the HPCC paper's WebSearch buckets (< 3K, 3–12K, …, 768K–3M,
 * 3–12M). Binary units, so the rungs meet at round labels (768 KiB × 4 = 3 MiB).
 */
export const LADDER_BASE_BYTES = 3 * 1024;
export const LADDER_FACTOR = 4;
/** Up to this many distinct sizes, every size gets its own bucket (incast, fixed-size workloads). */
export const MAX_DISTINCT_BUCKETS = 8;

type Units = [number, string][];

const DECIMAL: Units = [
  [1e9, 'GB'],
  [1e6, 'MB'],
  [1e3, 'KB'],
];
const BINARY: Units = [
  [2 ** 30, 'GiB'],
  [2 ** 20, 'MiB'],
  [2 ** 10, 'KiB'],
];

/**
 * Sizes with up to three significant digits, decimal as scenario files write them (3000 →
 * "3 KB", 1234567 → "1.23 MB"), or binary for the ladder (3072 → "3 KiB").
 */
export function sizeLabel(bytes: number, units: Units = DECIMAL): string {
  for (const [scale, unit] of units)
    if (bytes >= scale) return `${Number((bytes / scale).toPrecision(3))} ${unit}`;
  return `${bytes} B`;
}

/** The value without its unit when both ends share one, so ranges read "3–12 KiB". */
function rangeLabel(lo: number, hi: number): string {
  const a = sizeLabel(lo, BINARY);
  const b = sizeLabel(hi, BINARY);
  const ua = a.split(' ')[1];
  return ua === b.split(' ')[1] ? `${a.split(' ')[0]}–${b}` : `${a}–${b}`;
}

/** Lower bound of the ladder rung holding `size` (rung 0 is [0, 3 KiB)). */
function rungOf(size: number): number {
  let k = 0;
  let hi = LADDER_BASE_BYTES;
  while (size >= hi) {
    hi *= LADDER_FACTOR;
    k++;
  }
  return k;
}

function rung(k: number): SizeBucket {
  if (k === 0)
    return { label: `< ${sizeLabel(LADDER_BASE_BYTES, BINARY)}`, minBytes: 0, maxBytes: LADDER_BASE_BYTES };
  const lo = LADDER_BASE_BYTES * LADDER_FACTOR ** (k - 1);
  const hi = lo * LADDER_FACTOR;
  return { label: rangeLabel(lo, hi), minBytes: lo, maxBytes: hi };
}

/**
 * Buckets for a set of flow sizes (pass every algorithm's flows so rows line up): one bucket per
 * size when there are at most MAX_DISTINCT_BUCKETS distinct sizes; otherwise the fixed ladder
 * < 3 KiB, 3–12 KiB, 12–48 KiB, … (×4), keeping the rungs that hold at least one flow.
 */
export function sizeBuckets(sizes: readonly number[]): { rule: BucketRule; buckets: SizeBucket[] } {
  const distinct = [...new Set(sizes)].sort((a, b) => a - b);
  if (distinct.length <= MAX_DISTINCT_BUCKETS)
    return {
      rule: 'distinct',
      buckets: distinct.map((s) => ({ label: sizeLabel(s), minBytes: s, maxBytes: s + 1 })),
    };
  const rungs = [...new Set(distinct.map(rungOf))].sort((a, b) => a - b);
  return { rule: 'ladder', buckets: rungs.map(rung) };
}

export function inBucket(b: SizeBucket, sizeBytes: number): boolean {
  return sizeBytes >= b.minBytes && (b.maxBytes === null || sizeBytes < b.maxBytes);
}

export interface BucketStats {
  bucket: string;
  minBytes: number;
  maxBytes: number | null;
  /** Completed flows in the bucket (the percentiles are over their slowdowns). */
  count: number;
  /** Flows in the bucket that did not complete (left out of the percentiles). */
  unfinished: number;
  /** src/stats percentiles (element ⌊n·p⌋ of the sorted slowdowns); null without completed flows. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export function slowdownByBucket(
  flows: readonly { sizeBytes: number; slowdown: number | null }[],
  buckets: readonly SizeBucket[],
): BucketStats[] {
  return buckets.map((b) => {
    const s: number[] = [];
    let unfinished = 0;
    for (const f of flows) {
      if (!inBucket(b, f.sizeBytes)) continue;
      if (f.slowdown === null) unfinished++;
      else s.push(f.slowdown);
    }
    const sorted = Float64Array.from(s).sort();
    return {
      bucket: b.label,
      minBytes: b.minBytes,
      maxBytes: b.maxBytes,
      count: sorted.length,
      unfinished,
      p50: percentileSorted(sorted, 0.5),
      p95: percentileSorted(sorted, 0.95),
      p99: percentileSorted(sorted, 0.99),
    };
  });
}
