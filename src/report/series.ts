/**
 * Time series and distributions for charts: thinning that keeps peaks, and empirical CDFs at
 * fixed quantiles (src/stats percentile rule), so chart sizes stay bounded whatever the run.
 */
import { percentileSorted } from '../stats/aggregate.js';
import type { SeriesPoints } from '../stats/results.js';

/**
 * At most `maxPoints` points: the series is cut into maxPoints/2 consecutive runs and each run
 * keeps its lowest and highest sample in time order, so queue spikes and rate dips survive.
 */
export function thin(points: SeriesPoints, maxPoints: number): SeriesPoints {
  if (points.length <= maxPoints) return points;
  const bins = Math.max(1, Math.floor(maxPoints / 2));
  const out: SeriesPoints = [];
  for (let b = 0; b < bins; b++) {
    const from = Math.floor((b * points.length) / bins);
    const to = Math.floor(((b + 1) * points.length) / bins);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (points[i][1] < points[lo][1]) lo = i;
      if (points[i][1] > points[hi][1]) hi = i;
    }
    if (lo === hi) out.push(points[lo]);
    else if (lo < hi) out.push(points[lo], points[hi]);
    else out.push(points[hi], points[lo]);
  }
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
export function seriesPercentile(points: SeriesPoints, p: number): number | null {
  return percentileSorted(Float64Array.from(points, (x) => x[1]).sort(), p);
}
