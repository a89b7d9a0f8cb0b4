/** Registry of reproduction suites, one per algorithm; suites register themselves on import. */
import type { ReproCheck, ReproSuite } from './types.js';

const suites = new Map<string, ReproSuite>();

export function registerReproSuite(suite: ReproSuite): void {
  if (suites.has(suite.algorithm))
    throw new Error(`reproduction suite "${suite.algorithm}" registered twice`);
  suites.set(suite.algorithm, suite);
}

export function getReproSuite(algorithm: string): ReproSuite | undefined {
  return suites.get(algorithm);
}

export function listReproSuites(): ReproSuite[] {
  return [...suites.values()].sort((a, b) => a.algorithm.localeCompare(b.algorithm));
}

/** `checks` in the paper tier: too costly for `npm test`, run by `npm run test:paper` and `reproduce` without --quick. */
export const paperTier = (...checks: ReproCheck[]): ReproCheck[] =>
  checks.map((c) => ({ ...c, tier: 'paper' }));
