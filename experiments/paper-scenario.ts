/** The scenarios an algorithm's reproduction checks ship: scenarios/papers/<algorithm>/. */
import { join } from 'node:path';
import { loadScenario } from '../src/config/load.js';
import type { Scenario } from '../src/config/scenario.js';
import { packageRoot } from '../src/package-root.js';

export function paperScenarioPath(algorithm: string, file: string): string {
  return join(packageRoot(), 'scenarios', 'papers', algorithm, file);
}

/** A shipped scenario of `algorithm`'s checks, with `--set`-style overrides. */
export function loadPaperScenario(algorithm: string, file: string, overrides: readonly string[] = []) {
  return loadScenario(paperScenarioPath(algorithm, file), overrides);
}

/** The loader of one algorithm's shipped scenarios (`mpccScenario(file, overrides)`). */
export const paperScenarios =
  (algorithm: string) =>
  (file: string, overrides: readonly string[] = []): Scenario =>
    loadPaperScenario(algorithm, file, overrides);
