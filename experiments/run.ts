/** Runs reproduction checks and returns rows for the table, JSON and HTML outputs. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunProgress } from '../src/runtime/run.js';
import { listReproSuites } from './registry.js';
import type { ReproCheck, ReproRow, ReproSuite, ReproTier } from './types.js';
import './suites.js';

export interface ReproRunOptions {
  /** Which tiers to run: `default` only (fast), or `all` (default + paper). */
  tiers: 'default' | 'all';
  outDir: string;
  seed?: number;
  /** Only the checks with these ids (any tier); all wanted tiers' checks when absent. */
  only?: ReadonlySet<string>;
  /** Called after each check, e.g. for progress output. */
  onRow?: (row: ReproRow) => void;
  /** Progress of the simulations of a check that announces them (ReproContext.progress). */
  progress?: (check: { algorithm: string; id: string }, label: string) => (p: RunProgress) => void;
}

export function selectSuites(name: string): ReproSuite[] {
  const all = listReproSuites();
  if (name === 'all') return all;
  return all.filter((s) => s.algorithm === name);
}

export const tierOf = (check: ReproCheck): ReproTier => check.tier ?? 'default';

function wanted(tier: ReproTier, tiers: ReproRunOptions['tiers']): boolean {
  return tiers === 'all' || tier === 'default';
}

export async function runCheck(
  suite: ReproSuite,
  check: ReproCheck,
  opts: ReproRunOptions,
): Promise<ReproRow> {
  const outDir = join(opts.outDir, suite.algorithm, check.id);
  mkdirSync(outDir, { recursive: true });
  const base = {
    algorithm: suite.algorithm,
    id: check.id,
    title: check.title,
    tier: tierOf(check),
    paper: check.paper,
    expected: check.expected,
  };
  const t0 = performance.now();
  try {
    const progress = opts.progress;
    const o = await check.run({
      outDir,
      seed: opts.seed,
      ...(progress !== undefined ? { progress: (label: string) => progress(base, label) } : {}),
    });
    return { ...base, measured: o.measured, pass: o.pass, values: o.values, wallMs: performance.now() - t0 };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ...base, measured: '—', pass: false, error: message, wallMs: performance.now() - t0 };
  }
}

export async function runRepro(suites: ReproSuite[], opts: ReproRunOptions): Promise<ReproRow[]> {
  const rows: ReproRow[] = [];
  for (const suite of suites)
    for (const check of suite.checks) {
      if (opts.only !== undefined ? !opts.only.has(check.id) : !wanted(tierOf(check), opts.tiers)) continue;
      const row = await runCheck(suite, check, opts);
      rows.push(row);
      opts.onRow?.(row);
    }
  return rows;
}
