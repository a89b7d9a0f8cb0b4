/**
 * What `rocelab run` hands to the runner (src/runtime/run.ts `runScenario`). Defined here so
 * the CLI and the runtime agree on one shape; the runtime's own RunOptions accepts it.
 */
import type { Scenario } from '../config/scenario.js';
import type { ProgressSnapshot } from './progress.js';

export const RUNTIMES = ['virtual', 'local', 'netns'] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

export interface RunOptions {
  /** A validated scenario (`--set` and `--seed` already applied). */
  scenario: Scenario;
  runtime: RuntimeName;
  /** `--cc`: every host runs this algorithm. */
  cc?: string;
  /** `--seed`: replaces the scenario's seed (also applied to `scenario.seed`). */
  seed?: number;
  /** Where results.json (and pcaps) go. */
  outDir: string;
  /** `--pcap`: write the emulated frames of every port as pcap files. */
  pcap: boolean;
  /** `--json`: print results.json instead of the summary table. */
  json: boolean;
  /** `--allow-late`: a wallclock run with late frames still writes its results (as warnings). */
  allowLate?: boolean;
  /** `--keep-logs`: real runtimes keep each node process's log in DIR/logs. */
  keepLogs?: boolean;
  /** Terminal output; null = silent (compare runs). */
  print?: ((text: string) => void) | null;
  /** Progress of a virtual run, about every 100 ms of wall time (the CLI's progress line). */
  onProgress?: (p: ProgressSnapshot) => void;
}

/** The runner module's entry point. May be synchronous. */
export type RunScenario = (options: RunOptions) => unknown;
