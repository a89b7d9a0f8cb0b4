/**
 * The runs of AC7 and its findings (docs/algorithms/mpcc.md "AC7", thesis §5.4 Exp. 3): WebSearch
 * at 30 % load plus a 2 % Poisson incast on the thesis fat-tree, the same flows and seed for MPCC
 * and the four baselines, and what each run yields: the time-weighted queue distribution over
 * every switch egress port and the FCT slowdown of short and long flows. Runs are memoised per
 * process, so checks that share a seed's runs (AC7, AC7-large, AC7-p50, AC7-mice) run them once.
 * Paper tier: a run takes one to a few minutes.
 */
import { writeFileSync } from 'node:fs';
import { mean as meanOf, quantileNearestRank } from '../../src/stats/aggregate.js';
import type { Results } from '../../src/stats/results.js';
import { hostPath } from '../../src/topology/path.js';
import { HPCC_INT_BYTES, MPCC_INT_BYTES } from '../../src/wire/size.js';
import { memo } from '../memo.js';
import type { ReproContext } from '../types.js';
import { HISTOGRAM_BIN_BYTES, HISTOGRAM_BINS, mpccScenario, type Probe, probedRun } from './probe.js';

const FILE = 'fattree-websearch.yaml';
export const AC7_ALGORITHMS = ['mpcc', 'hpcc', 'dcqcn', 'timely', 'dctcp'] as const;
export type Alg = (typeof AC7_ALGORITHMS)[number];
/**
 * Workload seeds of AC7 (the scenario's seed s and s+1 … s+4; the incasts are fixed in the file).
 * Five, because the ≥ 1 MB median moves 2–3 % from seed to seed (docs/algorithms/mpcc.md).
 */
export const AC7_SEEDS = 5;
/** The simulator's DCTCP marking: a step at K = 300 KB at 100 G, 1200 KB at 400 G (the HPCC simulator's run.py `dctcp` preset). */
const DCTCP_ECN = [
  'defaults.switch.ecn.kmin=300KB',
  'defaults.switch.ecn.kmax=300KB',
  'defaults.switch.ecn.pmax=1',
  'defaults.switch.ecn.byRate={400Gbps: {kmin: 1200KB, kmax: 1200KB, pmax: 1}}',
];

const quantile = quantileNearestRank;
const mean = (xs: number[]): number => meanOf(xs) ?? Number.NaN;

/** Queue level below which a fraction q of all ports' time was spent (1 KB bins: upper bin edge). */
function histQuantile(h: Float64Array, q: number): number {
  let total = 0;
  for (const v of h) total += v;
  let acc = 0;
  for (let i = 0; i < h.length; i++) {
    acc += h[i];
    if (acc >= q * total) return i === 0 ? 0 : (i + 1) * HISTOGRAM_BIN_BYTES;
  }
  return h.length * HISTOGRAM_BIN_BYTES;
}

function slowdowns(r: Results, pred: (size: number) => boolean): number[] {
  return r.flows
    .filter((f) => f.slowdown !== null && pred(f.sizeBytes))
    .map((f) => f.slowdown as number)
    .sort((a, b) => a - b);
}

/** INT bytes the algorithm's NICs add to every data packet (counted on the wire, not in the ideal FCT). */
function intBytesOf(alg: string): number {
  return alg === 'mpcc' ? MPCC_INT_BYTES : alg === 'hpcc' ? HPCC_INT_BYTES : 0;
}

/**
 * Slowdowns of < 100 KB flows against an ideal FCT that includes `intBytes` per packet at the
 * path's bottleneck: the part of the slowdown the INT block alone explains is what this removes.
 */
function shortSlowdownsWithInt(p: Probe, intBytes: number): number[] {
  const mtu = p.scenario.defaults.nic.mtuBytes;
  const rate = new Map<string, number>();
  const out: number[] = [];
  for (const f of p.out.results.flows) {
    if (f.fctNs === null || f.sizeBytes >= 100_000) continue;
    const key = `${f.src}>${f.dst}`;
    let r = rate.get(key);
    if (r === undefined) {
      r = hostPath(p.topo, p.routes, f.src, f.dst, mtu).bottleneckRateBps;
      rate.set(key, r);
    }
    const packets = Math.max(1, Math.ceil(f.sizeBytes / mtu));
    out.push(Math.max(1, f.fctNs / (f.idealFctNs + (packets * intBytes * 8e9) / r)));
  }
  return out.sort((a, b) => a - b);
}

/** MPCC-only overrides (cc.mpcc.*) and the short name that tells their runs' folders apart. */
export interface MpccVariant {
  name: string;
  overrides: string[];
}

/**
 * One Exp. 3 run: `alg` on workload seed `seed` with `overrides`; `mix` (and `variant`, for MPCC
 * with a variant's overrides) name its output folder.
 */
interface MixedJob {
  alg: Alg;
  seed: number;
  mix: string;
  overrides: string[];
  variant?: string;
}

const keyOf = (j: MixedJob) => `${j.alg}|${j.seed}|${j.overrides.join(';')}`;

function measureMixed(j: MixedJob, ctx: ReproContext, label: string) {
  const { alg, seed, mix, overrides } = j;
  const scenario = mpccScenario(FILE, [
    `defaults.nic.cc=${alg}`,
    ...(alg === 'dctcp' ? DCTCP_ECN : []),
    ...overrides,
  ]);
  const outDir = `${ctx.outDir}/fattree-${mix}-s${seed}-${alg}${j.variant !== undefined ? `-${j.variant}` : ''}`;
  const p = probedRun(scenario, {
    outDir,
    seed,
    histogram: true,
    arrivals: false,
    onProgress: ctx.progress?.(label),
  });
  const r = p.out.results;
  // Every switch egress port over the whole run; ports that never queued sat at 0.
  const all = new Float64Array(HISTOGRAM_BINS);
  for (const node of p.topo.nodes) {
    if (node.kind !== 'switch') continue;
    node.ports.forEach((_port, i) => {
      const h = p.histogram.get(`${node.name}:${i}`);
      if (h === undefined) all[0] += r.durationNs;
      else for (let k = 0; k < h.length; k++) all[k] += h[k];
    });
  }
  const short = slowdowns(r, (s) => s < 100_000);
  const long = slowdowns(r, (s) => s >= 1_000_000);
  const m = {
    alg,
    seed,
    queueP90Bytes: histQuantile(all, 0.9),
    queueP99Bytes: histQuantile(all, 0.99),
    shortP50: quantile(short, 0.5),
    shortP95: quantile(short, 0.95),
    shortMean: mean(short),
    /** p50 of < 100 KB flows with this algorithm's INT bytes in the ideal FCT. */
    shortP50WithInt: quantile(shortSlowdownsWithInt(p, intBytesOf(alg)), 0.5),
    longP50: quantile(long, 0.5),
    /** Flows ≥ 1 MB (the sample behind `longP50`). */
    longFlows: long.length,
    flows: r.summary.flowsTotal,
    completed: r.summary.flowsCompleted,
    drops: r.summary.drops,
    wallMs: p.out.wallMs,
  };
  // The row's numbers for this run, beside its results.json.
  writeFileSync(`${outDir}/mixed.json`, `${JSON.stringify({ ...m, overrides }, null, 2)}\n`);
  return m;
}

export type MixedResult = ReturnType<typeof measureMixed>;
const cache = new Map<string, MixedResult>();

/** One seed's runs of all five algorithms. */
export type Mixed = Record<Alg, MixedResult>;

/**
 * The jobs' runs, each once per process; the ones not yet run are announced to `ctx.progress`
 * as `mix seed s alg (i/n)`, n counting only those.
 */
function runJobs(ctx: ReproContext, jobs: MixedJob[]): MixedResult[] {
  const todo = new Set(jobs.map(keyOf).filter((k) => !cache.has(k))).size;
  let started = 0;
  return jobs.map((j) =>
    memo(cache, keyOf(j), () =>
      measureMixed(j, ctx, `${j.mix} seed ${j.seed} ${j.alg} (${++started}/${todo})`),
    ),
  );
}

/** MPCC's job on `seed`, with `variant`'s overrides after the mix's. */
const mpccJob = (seed: number, mix: string, overrides: string[], variant?: MpccVariant): MixedJob =>
  variant === undefined
    ? { alg: 'mpcc', seed, mix, overrides }
    : { alg: 'mpcc', seed, mix, overrides: [...overrides, ...variant.overrides], variant: variant.name };

/**
 * All five algorithms on each of `seeds`, with `overrides` for every run and MPCC's `variant`
 * for MPCC's only, so the baselines' runs are shared with the checks without it.
 */
export function mixedSets(
  ctx: ReproContext,
  seeds: readonly number[],
  mix: string,
  overrides: string[] = [],
  variant?: MpccVariant,
): Mixed[] {
  const jobs = seeds.flatMap((seed) =>
    AC7_ALGORITHMS.map((alg) =>
      alg === 'mpcc' ? mpccJob(seed, mix, overrides, variant) : { alg, seed, mix, overrides },
    ),
  );
  const runs = runJobs(ctx, jobs);
  return seeds.map((_, i) => {
    const set = {} as Mixed;
    AC7_ALGORITHMS.forEach((alg, k) => {
      set[alg] = runs[i * AC7_ALGORITHMS.length + k];
    });
    return set;
  });
}

/** MPCC alone on each of `seeds` (e.g. with a variant, beside the sets run without it). */
export function mpccRuns(
  ctx: ReproContext,
  seeds: readonly number[],
  mix: string,
  overrides: string[] = [],
  variant?: MpccVariant,
): MixedResult[] {
  return runJobs(
    ctx,
    seeds.map((seed) => mpccJob(seed, mix, overrides, variant)),
  );
}

/** AC7's workload seeds: the scenario's (or the context's) seed s and s+1 … s+4. */
export function seedsOf(ctx: ReproContext): number[] {
  const first = ctx.seed ?? mpccScenario(FILE).seed;
  return Array.from({ length: AC7_SEEDS }, (_, i) => first + i);
}
