/** Registry of reproduction suites, one per algorithm; suites register themselves on import. */
import type { ReproSuite } from './types.js';

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
