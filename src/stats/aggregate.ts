/** Order statistics and fairness. */

/**
 * Percentile by the HPCC fct_analysis.py rule: sort ascending and take the element at index
 * ⌊n·p⌋ (p in [0, 1]), clamped to the last element. No interpolation, so the value is always
 * one of the samples. null for an empty list.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return percentileSorted(sorted, p);
}

export function percentileSorted(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const i = Math.min(n - 1, Math.max(0, Math.floor(n * p)));
  return sorted[i];
}

/** Jain's fairness index (Σx)² / (n·Σx²): 1 = equal shares, 1/n = one takes all. null if empty or all zero. */
export function jainIndex(values: readonly number[]): number | null {
  let sum = 0;
  let sumSq = 0;
  for (const v of values) {
    sum += v;
    sumSq += v * v;
  }
  if (values.length === 0 || sumSq === 0) return null;
  return (sum * sum) / (values.length * sumSq);
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * The q-quantile by the nearest-rank rule: the ⌈q·n⌉-th smallest value (q in [0, 1]), clamped
 * to the first and last. NaN for an empty list. (`percentile` above takes index ⌊n·p⌋ instead.)
 */
export function quantileNearestRank(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return Number.NaN;
  const s = Float64Array.from(values).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/** Median: the middle value, or the mean of the two middle ones. NaN for an empty list. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = Float64Array.from(values).sort();
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
