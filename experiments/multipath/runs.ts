/**
 * Runs of the multipath checks (docs/multipath.md "Acceptance"): scenarios/multipath/ on the
 * virtual runtime with `--set`-style overrides, memoised per process, over several seeds. One
 * seed is one placement of every QP's entropies on the fabric's paths (nic/paths.ts draws their
 * upper bits per QP), and how evenly those hash sets the tail of a spraying policy without
 * feedback: single seeds range 1.09–1.48 × ideal for oblivious spraying over 64 entropies. So
 * the tail checks judge the mean over `SEEDS` seeds and report the range.
 */
import { join } from 'node:path';
import { loadScenario } from '../../src/config/load.js';
import { packageRoot } from '../../src/package-root.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { memo } from '../memo.js';
import type { ReproContext } from '../types.js';

export const PERMUTATION = join(packageRoot(), 'scenarios', 'multipath', 'permutation-k4.yaml');
export const INCAST = join(packageRoot(), 'scenarios', 'multipath', 'incast32-trim.yaml');
/** Seeds a tail check averages over, from the context's seed (default 1). */
export const SEEDS = 4;

/** The reference simulator's own set-up: NSCC over UET's delivery on a lossy, trimming fabric. */
export const UET_FABRIC = [
  'defaults.switch.pfc={priorities: [4]}',
  'defaults.switch.trim=true',
  'defaults.nic.transport=uet',
  'defaults.nic.cc=nscc',
];
/** Aggregation switch 0 of pod 0 and the first core of a k = 4 fat tree (docs/topologies.md numbering). */
export const SLOW_LINK = ['links=[{a: s9, b: s17, rate: 25Gbps}]'];
/** The same link with its byte thresholds left at the 100 Gbit/s values (docs/scenario.md "links"). */
export const SLOW_LINK_KEEP = ['links=[{a: s9, b: s17, rate: 25Gbps, thresholds: keep}]'];

export interface Measure {
  /** Largest FCT / ideal FCT of the permutation (the tail of 16 flows). */
  tail: number;
  tailFctNs: number;
  completed: number;
  flows: number;
  sentBytes: number;
  retransmittedBytes: number;
  retransmits: number;
}

function measure(r: Results): Measure {
  const done = r.flows.filter((f) => f.fctNs !== null);
  let sent = 0;
  let resent = 0;
  for (const h of r.hosts) {
    sent += h.multipath?.dataBytesTx ?? 0;
    resent += h.multipath?.retransmittedBytes ?? 0;
  }
  return {
    tail: Math.max(...done.map((f) => f.slowdown ?? Number.POSITIVE_INFINITY)),
    tailFctNs: Math.max(...done.map((f) => f.fctNs!)),
    completed: done.length,
    flows: r.flows.length,
    sentBytes: sent,
    retransmittedBytes: resent,
    retransmits: r.hosts.reduce((a, h) => a + h.retransmits, 0),
  };
}

const runs = new Map<string, Measure>();

/** The permutation with `overrides` at one seed; once per process. */
export function perm(ctx: ReproContext, overrides: readonly string[], seed: number): Measure {
  const key = overrides.join('|');
  return memo(runs, `${key}|${seed}`, () => {
    const out = runScenario({
      scenario: loadScenario(PERMUTATION, overrides),
      outDir: join(ctx.outDir, `${key.replace(/[^a-z0-9-]+/gi, '_')}_seed${seed}`),
      seed,
      print: null,
    });
    return measure(out.results);
  });
}

/** The seeds a tail check runs. */
export const seedsOf = (ctx: ReproContext): number[] =>
  Array.from({ length: SEEDS }, (_, i) => (ctx.seed ?? 1) + i);

/** Mean, least and largest of `xs`. */
export interface Spread {
  mean: number;
  min: number;
  max: number;
}

export function spread(xs: readonly number[]): Spread {
  return {
    mean: xs.reduce((a, b) => a + b, 0) / xs.length,
    min: Math.min(...xs),
    max: Math.max(...xs),
  };
}

/** The permutation under `overrides` over the check's seeds: tail ÷ ideal, and whether all completed. */
export function tails(ctx: ReproContext, overrides: readonly string[]): Spread & { complete: boolean } {
  const ms = seedsOf(ctx).map((s) => perm(ctx, overrides, s));
  return { ...spread(ms.map((m) => m.tail)), complete: ms.every((m) => m.completed === m.flows) };
}

/** Tail FCT with `slow` added ÷ without, per seed. */
export function slowRatios(
  ctx: ReproContext,
  overrides: readonly string[],
  slow: readonly string[] = SLOW_LINK,
): Spread & { complete: boolean } {
  const rs = seedsOf(ctx).map((s) => {
    const base = perm(ctx, overrides, s);
    const with_ = perm(ctx, [...overrides, ...slow], s);
    return { r: with_.tailFctNs / base.tailFctNs, ok: with_.completed === with_.flows };
  });
  return { ...spread(rs.map((x) => x.r)), complete: rs.every((x) => x.ok) };
}

/** "1.083× (1.061–1.114)" */
export const x = (s: Spread) => `${s.mean.toFixed(3)}× (${s.min.toFixed(3)}–${s.max.toFixed(3)})`;
export const pct = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 0);

const incastRuns = new Map<string, Results>();

/** The 32 → 1 incast with `extra` overrides, at the context's seed. */
export const incast = (ctx: ReproContext, extra: string[]) =>
  memo(incastRuns, `${extra.join(';')}|${ctx.seed ?? ''}`, () => {
    const scenario = loadScenario(INCAST, extra);
    const dir = extra.length === 0 ? 'incast-trim' : 'incast-pfc';
    return runScenario({ scenario, outDir: join(ctx.outDir, dir), seed: ctx.seed, print: null }).results;
  });
