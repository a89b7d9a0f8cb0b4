/**
 * Paper acceptance checks as data: every algorithm issue ships a suite of checks that
 * `rocelab reproduce <algorithm|all>` runs and prints as one table (check, paper value, spec
 * expectation, measured, pass/fail), and that the test suites assert. One definition serves
 * both, so the table a user sees is exactly what CI checked.
 */

import { join } from 'node:path';
import type { RunProgress } from '../src/runtime/run.js';

/** Where a check runs: `default` in `npm test`, `paper` only in `npm run test:paper` (costly). */
export type ReproTier = 'default' | 'paper';

export interface ReproContext {
  /** Scratch directory for results.json, pcaps, reports of this check. */
  outDir: string;
  /** Seed override (checks default to their scenario's seed). */
  seed?: number;
  /**
   * Progress of a long check (the CLI's; absent in tests): the check announces each simulation it
   * starts with a label (e.g. "websearch seed 3 dctcp (7/25)") and feeds the engine's progress to
   * the callback it gets back.
   */
  progress?: (label: string) => (p: RunProgress) => void;
}

/** `ctx` with its scratch directory's subfolder `dir` (and no progress: a sub-run labels nothing). */
export const inDir = (ctx: ReproContext, dir: string): ReproContext => ({
  outDir: join(ctx.outDir, dir),
  seed: ctx.seed,
});

export interface ReproOutcome {
  /** What we measured, human readable with units (e.g. "0.93 utilisation, Jain 0.98"). */
  measured: string;
  /**
   * `true`/`false` for a check with a pass criterion; `'finding'` for a documented outcome the spec
   * says to record rather than gate (e.g. RCC's literal eq. 4 unfairness).
   */
  pass: boolean | 'finding';
  /** Machine-readable numbers behind `measured`, kept in the JSON/HTML output. */
  values?: Record<string, number | string | boolean | null>;
}

export interface ReproCheck {
  /** The spec's check id, e.g. "A3" or "AC7". */
  id: string;
  title: string;
  /** The paper's claim, as text with units. */
  paper: string;
  /** The spec's pass criterion, as text with units. */
  expected: string;
  /** Absent: `default` (most checks are cheap enough for `npm test`). */
  tier?: ReproTier;
  run(ctx: ReproContext): ReproOutcome | Promise<ReproOutcome>;
}

export interface ReproSuite {
  /**
   * Algorithm name as registered in src/cc (e.g. "dcqcn-plus"), or the name of a suite across
   * algorithms (e.g. "rates", the rate sweep of every algorithm).
   */
  algorithm: string;
  /** The algorithm's page under docs/algorithms, for the table's header. */
  spec: string;
  checks: ReproCheck[];
}

export interface ReproRow {
  algorithm: string;
  id: string;
  title: string;
  tier: ReproTier;
  paper: string;
  expected: string;
  measured: string;
  pass: boolean | 'finding';
  wallMs: number;
  values?: ReproOutcome['values'];
  error?: string;
}
