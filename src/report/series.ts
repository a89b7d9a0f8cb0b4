/**
 * Time series and distributions for charts: thinning that keeps peaks, and empirical CDFs at
 * fixed quantiles (src/stats percentile rule), so chart sizes stay bounded whatever the run.
 */
import { percentileSorted } from '../stats/aggregate.js';
import { type FlatSeries, seriesPoints } from '../stats/results.js';

/**
 * At most `maxPoints` [t, v] points of a flat series: the series is cut into maxPoints/2
 * consecutive runs and each run keeps its lowest and highest sample in time order, so queue
 * spikes and rate dips survive.
 */
export function thin(flat: FlatSeries, maxPoints: number): [number, number][] {
  const n = flat.length >> 1;
  const t = (i: number) => flat[2 * i];
  const v = (i: number) => flat[2 * i + 1];
  if (n <= maxPoints) return seriesPoints(flat);
  const out: [number, number][] = [];
  const bins = Math.max(1, Math.floor(maxPoints / 2));
  for (let b = 0; b < bins; b++) {
    const from = Math.floor((b * n) / bins);
    const to = Math.floor(((b + 1) * n) / bins);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (v(i) < v(lo)) lo = i;
      if (v(i) > v(hi)) hi = i;
    }
    if (lo === hi) out.push([t(lo), v(lo)]);
    else if (lo < hi) out.push([t(lo), v(lo)], [t(hi), v(hi)]);
    else out.push([t(hi), v(hi)], [t(lo), v(lo)]);
  }
  return out;
}

/** The values of a flat series (every second number). */
export function seriesValues(flat: FlatSeries): number[] {
  const out = new Array<number>(flat.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = flat[2 * i + 1];
  return out;
}

/** Quantiles at which CDFs are drawn: 0, 0.5 %, …, 100 %. */
export const CDF_STEPS = 200;

/**
 * Empirical CDF of `values` as [value, fraction] points at fractions 0, 1/CDF_STEPS, …, 1 (the
 * value is the src/stats percentile at that fraction); consecutive points with the same value
 * collapse to the first and last, so a queue that is empty 80 % of the time gives one vertical
 * step at 0.
 */
export function cdfPoints(values: readonly number[]): [number, number][] {
  if (values.length === 0) return [];
  const sorted = Float64Array.from(values).sort();
  const pts: [number, number][] = [];
  for (let i = 0; i <= CDF_STEPS; i++) {
    const q = i / CDF_STEPS;
    pts.push([percentileSorted(sorted, q)!, q]);
  }
  return pts.filter(
    (p, i) => i === 0 || i === pts.length - 1 || p[0] !== pts[i - 1][0] || p[0] !== pts[i + 1][0],
  );
}

/** Percentiles of a series' values (src/stats rule), null when empty. */
export function seriesPercentile(flat: FlatSeries, p: number): number | null {
  return percentileSorted(Float64Array.from(seriesValues(flat)).sort(), p);
}
