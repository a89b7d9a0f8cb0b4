/**
 * Flow-size CDFs and inverse-CDF sampling by linear interpolation, as the HPCC simulator's
 * traffic generator does (traffic_gen/custom_rand.py).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Rng } from '../env/rng.js';

export class WorkloadError extends Error {
  override name = 'WorkloadError';
}

export interface Cdf {
  name: string;
  /** Flow sizes in bytes, non-decreasing. */
  sizes: Float64Array;
  /** Cumulative probabilities in [0, 1], first 0, last 1, non-decreasing. */
  probs: Float64Array;
}

export const BUILTIN_CDFS = ['websearch', 'fb_hadoop', 'cache_follower', 'data_mining'] as const;

/**
 * Parse `size cumulative` lines (`#` comments and blank lines ignored). The cumulative column is
 * a fraction 0..1, or percent 0..100 as in the HPCC repository's files (detected by a last value
 * of 100).
 */
export function parseCdf(text: string, name: string): Cdf {
  const sizes: number[] = [];
  const probs: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/#.*/, '').trim();
    if (line === '') continue;
    const cols = line.split(/\s+/);
    const size = Number(cols[0]);
    const p = Number(cols[1]);
    if (cols.length < 2 || !Number.isFinite(size) || !Number.isFinite(p) || size < 0 || p < 0)
      throw new WorkloadError(`CDF ${name} line ${i + 1}: expected "size_bytes cumulative_probability"`);
    sizes.push(size);
    probs.push(p);
  }
  if (sizes.length < 2) throw new WorkloadError(`CDF ${name}: needs at least 2 points`);
  const scale = probs[probs.length - 1] === 100 ? 100 : 1;
  for (let i = 0; i < probs.length; i++) probs[i] /= scale;
  if (probs[0] !== 0) throw new WorkloadError(`CDF ${name}: first cumulative probability must be 0`);
  if (probs[probs.length - 1] !== 1)
    throw new WorkloadError(`CDF ${name}: last cumulative probability must be 1 (or 100)`);
  for (let i = 1; i < sizes.length; i++) {
    if (sizes[i] < sizes[i - 1] || probs[i] < probs[i - 1])
      throw new WorkloadError(
        `CDF ${name}: sizes and probabilities must not decrease (line of size ${sizes[i]})`,
      );
  }
  return { name, sizes: Float64Array.from(sizes), probs: Float64Array.from(probs) };
}

/** Mean by the trapezoid rule (custom_rand.py): Σ (x_i + x_{i-1})/2 · (p_i − p_{i-1}). */
export function cdfMeanBytes(cdf: Cdf): number {
  let m = 0;
  for (let i = 1; i < cdf.sizes.length; i++) {
    m += ((cdf.sizes[i] + cdf.sizes[i - 1]) / 2) * (cdf.probs[i] - cdf.probs[i - 1]);
  }
  return m;
}

/** Inverse CDF at u in [0, 1): first point with p ≥ u, linear interpolation from the previous one. */
export function cdfQuantile(cdf: Cdf, u: number): number {
  const { sizes, probs } = cdf;
  let i = 0;
  while (i < probs.length - 1 && probs[i] < u) i++;
  if (i === 0 || probs[i] === probs[i - 1]) return sizes[i];
  return sizes[i - 1] + ((u - probs[i - 1]) * (sizes[i] - sizes[i - 1])) / (probs[i] - probs[i - 1]);
}

/** One flow size, whole bytes, at least 1 (custom_rand.py truncates with int()). */
export function sampleFlowSize(cdf: Cdf, rng: Rng): number {
  return Math.max(1, Math.floor(cdfQuantile(cdf, rng.next())));
}

/** Walk up from this module to find `workloads/<file>` (works from src/ and from dist/src/). */
function findBundled(file: string): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidates = [join(dir, 'workloads', file), join(dir, '..', 'shared', 'workloads', file)];
    for (const c of candidates) if (existsSync(c)) return c;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

const cache = new Map<string, Cdf>();

/**
 * A built-in CDF by name (websearch, fb_hadoop: copies of the HPCC simulator's distributions;
 * cache_follower, data_mining: the Dolce-RC paper's workloads; each file in workloads/ names its
 * source) or a file path, relative to `baseDir` (the scenario's folder) when not absolute.
 */
export function loadCdf(nameOrPath: string, baseDir = process.cwd()): Cdf {
  const builtin = (BUILTIN_CDFS as readonly string[]).includes(nameOrPath);
  const path = builtin
    ? findBundled(`${nameOrPath}.cdf`)
    : isAbsolute(nameOrPath)
      ? nameOrPath
      : resolve(baseDir, nameOrPath);
  if (path === null) throw new WorkloadError(`built-in CDF ${nameOrPath} not found (workloads/ missing)`);
  const hit = cache.get(path);
  if (hit !== undefined) return hit;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new WorkloadError(`cannot read CDF file ${nameOrPath}`);
  }
  const cdf = parseCdf(text, nameOrPath);
  cache.set(path, cdf);
  return cdf;
}
