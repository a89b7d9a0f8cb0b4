/**
 * Turns an algorithm's reproduction suite into vitest tests: one test per check of the given tier,
 * asserting the check passed (a 'finding' is recorded, not gated) and printing its table row.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getReproSuite } from '../../experiments/registry.js';
import { runCheck, tierOf } from '../../experiments/run.js';
import { formatReproMarkdown } from '../../experiments/table.js';
import type { ReproTier } from '../../experiments/types.js';

export interface ReproTestOptions {
  /**
   * Checks that fail today, with the reason (documented in the algorithm's docs page): their test
   * asserts that they still fail (`it.fails`), so the table keeps saying FAIL and a fix shows up
   * as a test to update rather than passing silently.
   */
  knownShortfalls?: Record<string, string>;
  /** Per-test timeout, ms, for suites whose checks outlast the config's testTimeout. */
  timeoutMs?: number;
}

export function describeReproSuite(algorithm: string, tier: ReproTier, opts: ReproTestOptions = {}): void {
  const suite = getReproSuite(algorithm);
  describe(`${algorithm} paper checks (${tier})`, () => {
    it('suite is registered', () => {
      expect(suite, `no reproduction suite registered for ${algorithm}`).toBeDefined();
    });
    if (suite === undefined) return;
    const outDir = mkdtempSync(join(tmpdir(), `rocelab-repro-${algorithm}-`));
    for (const check of suite.checks.filter((c) => tierOf(c) === tier)) {
      const shortfall = opts.knownShortfalls?.[check.id];
      const test = shortfall === undefined ? it : it.fails;
      const name = `${check.id} ${check.title}${shortfall === undefined ? '' : ` (known shortfall: ${shortfall})`}`;
      test(
        name,
        async () => {
          const row = await runCheck(suite, check, { tiers: 'all', outDir });
          console.log(formatReproMarkdown([row]));
          expect(row.error, row.error).toBeUndefined();
          const why = `${check.id}: measured ${row.measured}; expected ${check.expected}`;
          expect(row.pass, why).not.toBe(false);
        },
        opts.timeoutMs,
      );
    }
  });
}
