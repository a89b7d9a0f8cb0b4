/**
 * What every command receives (docs/cli.md "For code"): terminal writers, environment, working
 * directory, and the modules it runs, loaded on first use. Tests pass their own registry,
 * runner or node module in `deps` to run the command in-process without running experiments.
 */
import type { RunScenario } from './run-options.js';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Directory relative paths are taken from. */
  cwd: string;
  /** Replacements for the modules below (tests). */
  deps?: Partial<CliDeps>;
  /** stderr is a terminal (progress bars are drawn only then, and never with --json). */
  stderrIsTTY?: boolean;
  /** Terminal width, for the progress line. */
  columns?: number;
}

/** One algorithm as `rocelab list` shows it (src/cc/registry.ts `listAlgorithms`). */
export interface AlgorithmListing {
  name: string;
  summary?: string;
  profiles?: string[];
  defaultProfile?: string | null;
  aliases?: Record<string, string>;
  params?: Array<{ name: string; description?: string; default?: unknown }>;
}

/** The part of the congestion-control registry the CLI uses. */
export interface CliRegistry {
  listAlgorithms(): AlgorithmListing[];
  resolveParams(name: string, overrides: Record<string, unknown>, profile?: string): Record<string, unknown>;
}

export interface CliDeps {
  registry: CliRegistry;
  runScenario: RunScenario;
  runNode(options: { env: Record<string, string | undefined> }): unknown;
}

// Loaded on first use so that `rocelab --help`, `deploy` or a real run's `node` processes do not
// load the engine or every algorithm they never call.
export async function registryOf(io: CliIo): Promise<CliRegistry> {
  return io.deps?.registry ?? (await import('../cc/registry.js'));
}

export async function runnerOf(io: CliIo): Promise<RunScenario> {
  return io.deps?.runScenario ?? (await import('../runtime/run.js')).runScenario;
}

export async function nodeOf(io: CliIo): Promise<CliDeps['runNode']> {
  return io.deps?.runNode ?? (await import('../runtime/node.js')).runNode;
}
