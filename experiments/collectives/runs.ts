/** Runs of the collectives checks (docs/collectives.md): the shipped AI scenarios, memoised. */
import { join } from 'node:path';
import { loadScenario } from '../../src/config/load.js';
import type { Scenario } from '../../src/config/scenario.js';
import { packageRoot } from '../../src/package-root.js';
import { runScenario } from '../../src/runtime/run.js';
import type { CollectivesResult } from '../../src/stats/collectives.js';
import type { Results } from '../../src/stats/results.js';
import { memo } from '../memo.js';
import type { ReproContext } from '../types.js';

export const shipped = (file: string, overrides: readonly string[] = []): Scenario =>
  loadScenario(join(packageRoot(), 'scenarios', file), overrides);

export interface CollectiveRun {
  results: Results;
  collectives: CollectivesResult;
  wallMs: number;
}

const runs = new Map<string, CollectiveRun>();

/** A virtual run of `scenario` into ctx.outDir (`key` names it in the memo). */
export function collectiveRun(
  key: string,
  scenario: Scenario,
  ctx: ReproContext,
  cc?: string,
): CollectiveRun {
  return memo(runs, `${key}|${cc ?? ''}|${ctx.seed ?? ''}`, () => {
    const out = runScenario({ scenario, cc, outDir: ctx.outDir, seed: ctx.seed, print: null });
    const c = out.results.collectives;
    if (c === undefined) throw new Error(`${key}: the run reported no collectives`);
    return { results: out.results, collectives: c, wallMs: out.wallMs };
  });
}

/** "×1.0003, ×1.0006" */
export const ratios = (xs: readonly (number | null)[]) =>
  xs.map((x) => (x === null ? 'unfinished' : `×${x.toFixed(4)}`)).join(', ');
