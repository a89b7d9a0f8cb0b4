/**
 * What `run` and `compare` share: their common flags, the command's entry (--help, one scenario
 * FILE), the run options (--runtime, --seed, --json, --out), reading a scenario with the overrides
 * (ROCELAB_SET, --set, --seed) and checking its algorithms against the registry before anything
 * runs, the progress line, and the results a runner hands back (docs/cli.md).
 */
import { join, resolve } from 'node:path';
import { resolveCcParams } from '../config/cc-params.js';
import { type ConfigError, isConfigError, suggest } from '../config/errors.js';
import { loadScenario } from '../config/load.js';
import type { Scenario } from '../config/scenario.js';
import type { Results } from '../stats/results.js';
import { readResultsFile } from '../stats/results-read.js';
import { type ArgValues, type Flags, noExtraArgs, parseCommandArgs, println, UsageError } from './args.js';
import { type CliIo, registryOf } from './io.js';
import { type ProgressLine, progressLine } from './progress.js';
import { RUNTIMES, type RuntimeName } from './run-options.js';

export const RUN_OPTIONS_HELP = `  --runtime R       virtual (default; deterministic discrete-event engine), local (one process
                    per node on 127.0.0.x), netns (Linux network namespaces, needs root)
  --cc NAME         every host runs algorithm NAME (see rocelab list)
  --set key=value   change the scenario before validation, e.g. --set cc.dcqcn.rai=40Mbps,
                    --set workload[0].size=2MB, --set topology.hosts=17 (repeatable)
  --seed N          replace the scenario's seed (integer 0..4294967295)
  --out DIR         output directory (default results/<scenario name>)
  --json            print results.json instead of the summary table`;

export const SCENARIO_FLAGS = {
  runtime: { type: 'string' },
  cc: { type: 'string' },
  set: { type: 'string', multiple: true },
  seed: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseSeed(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n <= 2 ** 32 - 1))
    throw new UsageError(`--seed expects an integer in [0, 4294967295], got ${JSON.stringify(v)}`);
  return n;
}

export function parseRuntime(v: string | undefined): RuntimeName {
  if (v === undefined) return 'virtual';
  if (!(RUNTIMES as readonly string[]).includes(v)) {
    const s = suggest(v, RUNTIMES);
    throw new UsageError(
      `unknown runtime "${v}" (expected ${RUNTIMES.join('|')}${s !== undefined ? `; did you mean ${s}?` : ''})`,
    );
  }
  return v as RuntimeName;
}

/** ROCELAB_SET="a=1;b=2" (or one per line), then every --set, in order. */
export function collectOverrides(
  env: Record<string, string | undefined>,
  sets: string[] | undefined,
): string[] {
  const fromEnv = (env.ROCELAB_SET ?? '')
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...fromEnv, ...(sets ?? [])];
}

/**
 * The entry of a command that takes one scenario FILE: its flags parsed, `--help` printed, FILE
 * required and nothing after it, then `body`, whose ConfigErrors that name no file are about FILE.
 */
export async function scenarioCommand(
  command: string,
  flags: Flags,
  help: string,
  argv: readonly string[],
  io: CliIo,
  body: (file: string, values: ArgValues) => Promise<number>,
): Promise<number> {
  const { values, positionals } = parseCommandArgs(command, flags, argv);
  if (values.help === true) {
    println(io, help);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined) throw new UsageError(`${command} needs a scenario file (rocelab ${command} FILE)`);
  noExtraArgs(command, positionals, 1);
  return aboutFile(file, () => body(file, values));
}

/** The run options of SCENARIO_FLAGS other than --cc and --out. */
export interface RunArgs {
  runtime: RuntimeName;
  seed: number | undefined;
  /** ROCELAB_SET, then every --set, then `seed=N` for --seed. */
  overrides: string[];
  json: boolean;
}

export function runArgsOf(io: CliIo, values: ArgValues): RunArgs {
  const runtime = parseRuntime(values.runtime as string | undefined);
  const seed = parseSeed(values.seed as string | undefined);
  const overrides = collectOverrides(io.env, values.set as string[] | undefined);
  if (seed !== undefined) overrides.push(`seed=${seed}`);
  return { runtime, seed, overrides, json: values.json === true };
}

/** `--out DIR` (relative to the working directory), by default results/<scenario name>. */
export function outDirOf(io: CliIo, values: ArgValues, scenario: Scenario): string {
  return resolve(io.cwd, (values.out as string | undefined) ?? join('results', scenario.name));
}

/** A ConfigError from `fn` that names no file is about `file` (as the user typed it). */
export async function aboutFile<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isConfigError(err)) {
      const e = err as ConfigError;
      if (e.file === undefined) e.file = file;
    }
    throw err;
  }
}

/** The scenario FILE (relative to the working directory) under `overrides`. */
export function loadFor(io: CliIo, file: string, overrides: readonly string[]): Scenario {
  const path = resolve(io.cwd, file);
  try {
    return loadScenario(path, overrides);
  } catch (err) {
    if (isConfigError(err)) (err as ConfigError).file = file;
    throw err;
  }
}

/**
 * `--cc` names and every algorithm and `cc.*` parameter of the scenarios, against the registry:
 * a typo exits 2 before the first run starts.
 */
export async function checkAlgorithms(
  io: CliIo,
  file: string,
  ccList: readonly string[],
  scenarios: Iterable<Scenario>,
): Promise<void> {
  const registry = await registryOf(io);
  const names = registry.listAlgorithms().map((a) => a.name);
  for (const c of ccList) {
    if (!names.includes(c)) {
      const s = suggest(c, names);
      throw new UsageError(
        `--cc: unknown algorithm "${c}" (${s !== undefined ? `did you mean ${s}? ` : ''}known: ${names.join(', ')})`,
      );
    }
  }
  const adapter = { names, resolveParams: registry.resolveParams.bind(registry) };
  for (const sc of new Set(scenarios)) {
    try {
      resolveCcParams(sc, adapter);
    } catch (err) {
      if (isConfigError(err)) (err as ConfigError).file = file;
      throw err;
    }
  }
}

/** A progress line on stderr, or null (not a terminal, or --json). */
export function progressFor(io: CliIo, json: boolean, label: string): ProgressLine | null {
  if (json || io.stderrIsTTY !== true) return null;
  return progressLine(
    (t) => io.stderr(t),
    label,
    io.columns !== undefined && io.columns > 0 ? io.columns : 100,
  );
}

/** The runner's results when it handed back a complete results object. */
export function fullResults(r: unknown): Results | null {
  const x = (r as { results?: Partial<Results> } | null | undefined)?.results;
  if (x === undefined || x === null) return null;
  return Array.isArray(x.flows) && Array.isArray(x.ports) && Array.isArray(x.trace) && x.series !== undefined
    ? (x as Results)
    : null;
}

export function readResults(dir: string): Results | null {
  try {
    return readResultsFile(join(dir, 'results.json'));
  } catch {
    return null;
  }
}
