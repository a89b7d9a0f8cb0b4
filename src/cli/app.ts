/**
 * The `rocelab` command (design §6), as a function of (argv, io) → exit status so tests run it
 * in-process. `main.ts` is the process entry.
 *
 * Exit status: 0 ok; 2 bad input (unknown command/flag/runtime/algorithm, missing or invalid
 * scenario), always with exactly one line on stderr and never a stack trace; 1 an unexpected
 * internal error (one line, plus the stack with ROCELAB_DEBUG=1).
 *
 * Modules other engineers are still writing (the cc registry, the runner, the real-runtime
 * node) are imported lazily; when one is not built yet the CLI says so instead of failing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type CcRegistryLike, checkCcNames, resolveCcParams } from '../config/cc-params.js';
import { type ConfigError, isConfigError, suggest } from '../config/errors.js';
import { loadScenario } from '../config/load.js';
import type { Scenario } from '../config/scenario.js';
import { formatDuration, formatRate, formatSize } from '../config/units.js';
import { packageRoot } from '../package-root.js';
import type { Results } from '../stats/results.js';
import { resultsSchema } from '../stats/results-schema.js';
import { type ProgressLine, progressLine } from './progress.js';
import { RUNTIMES, type RunOptions, type RuntimeName } from './run-options.js';

// --------------------------------------------------------------------------------------------
// Optional modules.

/** Subset of src/cc/registry.ts the CLI uses. */
export interface RegistryModule {
  listAlgorithms(): AlgorithmListing[];
  resolveParams?(name: string, overrides: Record<string, unknown>, profile?: string): Record<string, unknown>;
}

export interface AlgorithmListing {
  name: string;
  summary?: string;
  profiles?: string[];
  defaultProfile?: string | null;
  aliases?: Record<string, string>;
  params?: Array<{ name: string; description?: string; default?: unknown }>;
}

export interface RunnerModule {
  runScenario(options: RunOptions): unknown;
}

export interface NodeModule {
  runNode(options: { env: Record<string, string | undefined> }): unknown;
}

export interface Loaders {
  registry(): Promise<RegistryModule | null>;
  runner(): Promise<RunnerModule | null>;
  node(): Promise<NodeModule | null>;
}

/** Import `spec` relative to this file; null when that module itself does not exist (yet). */
async function optionalImport<T>(spec: string, exportName: string): Promise<T | null> {
  try {
    const mod = (await import(spec)) as Record<string, unknown>;
    if (typeof mod[exportName] !== 'function') return null;
    return mod as T;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const missing = spec.replace(/^(\.\.\/)+/, '');
    if ((e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && e.message.includes(missing))
      return null;
    throw err;
  }
}

export const defaultLoaders: Loaders = {
  registry: () => optionalImport<RegistryModule>('../cc/registry.js', 'listAlgorithms'),
  runner: () => optionalImport<RunnerModule>('../runtime/run.js', 'runScenario'),
  node: () => optionalImport<NodeModule>('../runtime/node.js', 'runNode'),
};

// --------------------------------------------------------------------------------------------

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Directory relative paths are taken from. */
  cwd: string;
  loaders?: Loaders;
  /** stderr is a terminal (progress bars are drawn only then, and never with --json). */
  stderrIsTTY?: boolean;
  /** Terminal width, for the progress line. */
  columns?: number;
}

/** Bad input: exit 2 with this one line. */
class UsageError extends Error {}

const COMMANDS = ['run', 'compare', 'reproduce', 'list', 'node', 'help'] as const;

const HELP = `rocelab — RoCEv2 congestion-control testbed (NIC and switch firmware in TypeScript)

Usage:
  rocelab run <scenario.yaml> [--runtime virtual|local|netns] [--cc NAME] [--set key=value]...
              [--seed N] [--out DIR] [--pcap] [--json] [--allow-late]
  rocelab compare <scenario.yaml> --cc a,b[,c…] [--runtime …] [--set key=value]... [--set-for ALG:key=value]... [--seed N]
              [--out DIR] [--json]
  rocelab reproduce <algorithm|all> [--quick] [--check ID,…] [--out DIR] [--json]
                             run an algorithm's paper acceptance checks, print the table
  rocelab list [--json]      algorithms with their parameters, shipped scenarios
  rocelab node               one node of a real run, configured from environment variables
  rocelab deploy compose|k8s <scenario.yaml> [--out DIR]
                             a docker compose project or a kustomize directory (docs/deploy.md)
  rocelab sweep <sweep.yaml> [--jobs N] [--emit k8s|slurm] | rocelab sweep collect <DIR>
                             many runs: on local cores, or as cluster job arrays (docs/deploy.md)
  rocelab --help | --version
  rocelab <command> --help   details of one command

Exit status: 0 ok, 2 bad input (one line on stderr naming the problem), 1 internal error.
Environment: ROCELAB_SET="key=value;key=value" (applied before --set), ROCELAB_DEBUG=1 (stack
traces). Scenario reference: docs/scenario.md; commands: docs/cli.md.
`;

const RUN_OPTIONS_HELP = `  --runtime R       virtual (default; deterministic discrete-event engine), local (one process
                    per node on 127.0.0.x), netns (Linux network namespaces, needs root)
  --cc NAME         every host runs algorithm NAME (see rocelab list)
  --set key=value   change the scenario before validation, e.g. --set cc.dcqcn.rai=40Mbps,
                    --set workload[0].size=2MB, --set topology.hosts=17 (repeatable)
  --seed N          replace the scenario's seed (integer 0..4294967295)
  --out DIR         output directory (default results/<scenario name>)
  --json            print results.json instead of the summary table`;

const COMMAND_HELP: Record<string, string> = {
  run: `Usage: rocelab run <scenario.yaml> [options]

Validate the scenario, run it and write DIR/results.json and DIR/report.html (charts: FCT
slowdown by flow size, queues, rates, PFC/CNP counts, why rates dropped); prints a summary
table. A progress line (emulated time, events/s, ETA) is drawn on stderr when it is a terminal.

${RUN_OPTIONS_HELP}
  --pcap            also write the emulated frames of every port as pcap files (DIR/pcap/)
`,
  compare: `Usage: rocelab compare <scenario.yaml> --cc a,b[,c…] [options]

Run the same scenario and seed once per algorithm (every host running it) into
DIR/<algorithm>/, write DIR/compare.json and DIR/report.html (one offline page of charts and
tables comparing them) and print the summaries and the slowdown per flow size side by side.

${RUN_OPTIONS_HELP.replace(/ {2}--cc NAME[^\n]*\n/, '  --cc a,b,…        the algorithms to compare (at least two)\n')}
  --set-for ALG:key=value
                    an override for ALG's run only (repeatable), e.g. DCTCP's step marking:
                    --set-for dctcp:defaults.switch.ecn.kmin=300KB
`,
  reproduce: `Usage: rocelab reproduce <algorithm|all> [--quick] [--check ID,…] [--out DIR] [--json]

Run the paper acceptance checks an algorithm ships (shared/papers/<algorithm>.md) and print one
table: check, paper value, expected, measured, pass/fail. Exit status 0 when every check passed
(a recorded finding counts as passed), 3 when any check failed.

  --quick           only the checks that npm test runs (skip the costly paper-scale ones)
  --check ID,…      only these checks (ids as in the table, e.g. A7 or AC3,AC6), any tier
  --out DIR         scratch and output directory (default results/reproduce); writes
                    reproduce.json and reproduce.html
  --json            print the rows as JSON instead of the table
`,
  list: `Usage: rocelab list [--json]

Registered congestion-control algorithms with their parameters and defaults, and the shipped
scenarios (scenarios/**/*.yaml).
`,
  node: `Usage: rocelab node

Run one node (NIC or switch) of a real-runtime experiment, configured from environment
variables; containers and the local/netns launchers start nodes this way.
`,
  help: 'Usage: rocelab help [command]\n',
};

const RUN_FLAGS = {
  runtime: { type: 'string' },
  cc: { type: 'string' },
  set: { type: 'string', multiple: true },
  seed: { type: 'string' },
  out: { type: 'string' },
  pcap: { type: 'boolean' },
  json: { type: 'boolean' },
  'allow-late': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const COMPARE_FLAGS = {
  runtime: RUN_FLAGS.runtime,
  cc: RUN_FLAGS.cc,
  set: RUN_FLAGS.set,
  'set-for': { type: 'string', multiple: true },
  seed: RUN_FLAGS.seed,
  out: RUN_FLAGS.out,
  json: RUN_FLAGS.json,
  help: RUN_FLAGS.help,
} as const;

const FLAGS: Record<
  string,
  Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>
> = {
  run: RUN_FLAGS,
  compare: COMPARE_FLAGS,
  list: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  reproduce: {
    quick: { type: 'boolean' },
    check: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  node: { help: { type: 'boolean', short: 'h' } },
  help: { help: { type: 'boolean', short: 'h' } },
};

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const loaders = io.loaders ?? defaultLoaders;
  const out = (line: string) => io.stdout(line.endsWith('\n') ? line : `${line}\n`);
  const fail = (line: string) => io.stderr(`rocelab: ${line}\n`);
  let scenarioFile: string | undefined;
  try {
    const first = argv[0];
    if (first === undefined) throw new UsageError('no command given (try rocelab --help)');
    if (first === '--help' || first === '-h') {
      out(HELP);
      return 0;
    }
    if (first === '--version' || first === '-V' || first === '-v') {
      out(packageVersion());
      return 0;
    }
    if (first.startsWith('-'))
      throw new UsageError(`unknown option ${first.split('=')[0]} (see rocelab --help)`);
    if (first === 'deploy') return (await import('./deploy.js')).deployCommand(argv.slice(1), io);
    if (first === 'sweep') return await (await import('./sweep.js')).sweepCommand(argv.slice(1), io);
    if (!(COMMANDS as readonly string[]).includes(first)) {
      const s = suggest(first, COMMANDS);
      throw new UsageError(
        `unknown command "${first}"${s !== undefined ? ` (did you mean ${s}?)` : ''}; commands: run, compare, reproduce, list, node`,
      );
    }
    const command = first;
    const { values, positionals } = parseCommandArgs(command, argv.slice(1));
    if (values.help === true) {
      out(COMMAND_HELP[command]);
      return 0;
    }
    switch (command) {
      case 'help': {
        const topic = positionals[0];
        if (topic === undefined) out(HELP);
        else if (COMMAND_HELP[topic] !== undefined && topic !== 'help') out(COMMAND_HELP[topic]);
        else throw new UsageError(`no help for "${topic}"; commands: run, compare, reproduce, list, node`);
        return 0;
      }
      case 'list':
        noExtraArgs(command, positionals, 0);
        return await listCommand(values.json === true, io, loaders);
      case 'reproduce': {
        const name = positionals[0];
        if (name === undefined) throw new UsageError('reproduce needs an algorithm name or "all"');
        noExtraArgs(command, positionals, 1);
        return await reproduceCommand(name, values, io);
      }
      case 'node':
        noExtraArgs(command, positionals, 0);
        return await nodeCommand(io, loaders);
      case 'run':
      case 'compare': {
        scenarioFile = positionals[0];
        if (scenarioFile === undefined)
          throw new UsageError(`${command} needs a scenario file (rocelab ${command} FILE)`);
        noExtraArgs(command, positionals, 1);
        return await runCommand(command, scenarioFile, values, io, loaders);
      }
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      fail(err.message);
      return 2;
    }
    if (isConfigError(err)) {
      const e = err as ConfigError;
      if (e.file === undefined && scenarioFile !== undefined && typeof e.describe === 'function')
        e.file = scenarioFile;
      fail(typeof e.describe === 'function' ? e.describe() : e.message);
      return 2;
    }
    if (isBadInputError(err)) {
      fail(oneLine((err as Error).message));
      return 2;
    }
    // A real run that could not give a right answer: one line, and the status says which kind.
    const errName = (err as { name?: unknown } | null)?.name;
    if (errName === 'LateRun') {
      fail(oneLine((err as Error).message));
      return 3;
    }
    if (errName === 'RunFailed') {
      fail(oneLine((err as Error).message));
      return 1;
    }
    const message = err instanceof Error ? err.message : String(err);
    fail(`internal error: ${oneLine(message)} (rerun with ROCELAB_DEBUG=1 for the stack trace)`);
    if (io.env.ROCELAB_DEBUG === '1' && err instanceof Error && err.stack !== undefined)
      io.stderr(`${err.stack}\n`);
    return 1;
  }
}

/** Input errors of other modules (topology builder, cc registry, workload) that escaped wrapping. */
function isBadInputError(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TopologyError' || name === 'CcConfigError' || name === 'WorkloadError';
}

function oneLine(s: string): string {
  return s.split('\n')[0].trim();
}

type ArgValues = Record<string, string | boolean | string[] | undefined>;

function parseCommandArgs(
  command: string,
  args: readonly string[],
): { values: ArgValues; positionals: string[] } {
  const options = FLAGS[command];
  try {
    const r = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
    return { values: r.values as ArgValues, positionals: r.positionals };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const flag = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
    switch (e.code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
        const name = flag?.replace(/^-+/, '') ?? '';
        const s = suggest(name, Object.keys(options));
        throw new UsageError(
          `unknown option ${flag ?? ''} for ${command}${s !== undefined ? ` (did you mean --${s}?)` : ''} (see rocelab ${command} --help)`,
        );
      }
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        if (/argument missing/.test(e.message)) throw new UsageError(`${flag ?? 'option'} needs a value`);
        throw new UsageError(`${flag ?? 'option'} does not take a value`);
      default:
        throw new UsageError(oneLine(e.message));
    }
  }
}

function noExtraArgs(command: string, positionals: string[], allowed: number): void {
  if (positionals.length > allowed)
    throw new UsageError(
      `unexpected argument "${positionals[allowed]}" for ${command} (see rocelab ${command} --help)`,
    );
}

// --------------------------------------------------------------------------------------------
// run / compare

function parseSeed(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n <= 2 ** 32 - 1))
    throw new UsageError(`--seed expects an integer in [0, 4294967295], got ${JSON.stringify(v)}`);
  return n;
}

function parseRuntime(v: string | undefined): RuntimeName {
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
function collectOverrides(env: Record<string, string | undefined>, sets: string[] | undefined): string[] {
  const fromEnv = (env.ROCELAB_SET ?? '')
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...fromEnv, ...(sets ?? [])];
}

/**
 * `--set-for ALG:key=value` (compare): overrides that apply to one algorithm's run only, so that
 * e.g. DCTCP gets its step marking while the others keep the scenario's RED ramp.
 */
function parseSetFor(items: string[] | undefined, ccList: readonly string[]): Map<string, string[]> {
  const byCc = new Map<string, string[]>();
  for (const item of items ?? []) {
    const m = /^([^:=\s]+):(.+=.*)$/.exec(item.trim());
    if (m === null) throw new UsageError(`--set-for expects ALG:key=value, got ${JSON.stringify(item)}`);
    const [, cc, kv] = m;
    if (!ccList.includes(cc))
      throw new UsageError(
        `--set-for ${cc}: ${cc} is not one of the compared algorithms (--cc ${ccList.join(',')})`,
      );
    byCc.set(cc, [...(byCc.get(cc) ?? []), kv]);
  }
  return byCc;
}

function registryAdapter(reg: RegistryModule): CcRegistryLike | null {
  const names = reg.listAlgorithms().map((a) => a.name);
  const resolveParams = reg.resolveParams;
  if (resolveParams === undefined) return null;
  return { names, resolveParams: (n, o, p) => resolveParams(n, o, p) };
}

async function runCommand(
  command: 'run' | 'compare',
  file: string,
  values: ArgValues,
  io: CliIo,
  loaders: Loaders,
): Promise<number> {
  const runtime = parseRuntime(values.runtime as string | undefined);
  const seed = parseSeed(values.seed as string | undefined);
  const ccFlag = values.cc as string | undefined;
  let ccList: string[] = [];
  if (command === 'compare') {
    ccList = (ccFlag ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (ccList.length < 2)
      throw new UsageError('compare needs --cc with at least two algorithms, e.g. --cc dcqcn,hpcc');
    const dup = ccList.find((c, i) => ccList.indexOf(c) !== i);
    if (dup !== undefined) throw new UsageError(`--cc lists ${dup} twice`);
  } else if (ccFlag !== undefined) {
    if (ccFlag.trim() === '' || ccFlag.includes(','))
      throw new UsageError(`--cc expects one algorithm name, got ${JSON.stringify(ccFlag)}`);
    ccList = [ccFlag.trim()];
  }

  const overrides = collectOverrides(io.env, values.set as string[] | undefined);
  if (seed !== undefined) overrides.push(`seed=${seed}`);
  const overridesFor = parseSetFor(values['set-for'] as string[] | undefined, ccList);
  const path = resolve(io.cwd, file);
  const load = (extra: readonly string[]): Scenario => {
    try {
      return loadScenario(path, [...overrides, ...extra]);
    } catch (err) {
      // Name the file as the user typed it.
      if (isConfigError(err)) (err as ConfigError).file = file;
      throw err;
    }
  };
  const scenario = load([]);
  // compare: the scenario each algorithm runs (its own when --set-for changes it), all loaded
  // and checked before the first run starts.
  const scenarioFor = new Map(
    ccList.map((cc) => [cc, overridesFor.has(cc) ? load(overridesFor.get(cc) ?? []) : scenario]),
  );

  const registry = await loaders.registry();
  if (registry !== null) {
    const names = registry.listAlgorithms().map((a) => a.name);
    for (const c of ccList) {
      if (!names.includes(c)) {
        const s = suggest(c, names);
        throw new UsageError(
          `--cc: unknown algorithm "${c}" (${s !== undefined ? `did you mean ${s}? ` : ''}known: ${names.join(', ')})`,
        );
      }
    }
    const adapter = registryAdapter(registry);
    for (const sc of new Set([scenario, ...scenarioFor.values()])) {
      try {
        if (adapter !== null) resolveCcParams(sc, adapter);
        else checkCcNames(sc, names);
      } catch (err) {
        if (isConfigError(err)) (err as ConfigError).file = file;
        throw err;
      }
    }
  } else {
    io.stderr(
      'rocelab: note: the congestion-control registry (src/cc/registry.ts) is not built yet; algorithm names and parameters were not checked\n',
    );
  }

  const outDir = resolve(io.cwd, (values.out as string | undefined) ?? join('results', scenario.name));
  const json = values.json === true;
  const runner = await loaders.runner();
  const summary = describeScenario(scenario);
  if (runner === null) {
    io.stdout(`${file}: valid — ${summary}\n`);
    io.stdout('rocelab: the runner (src/runtime/run.ts) is not built yet, so nothing was run\n');
    return 0;
  }

  if (command === 'run') {
    const progress = progressFor(io, json, '');
    let r: unknown;
    try {
      r = await runner.runScenario({
        scenario,
        runtime,
        cc: ccList[0],
        seed,
        outDir,
        pcap: values.pcap === true,
        json,
        allowLate: values['allow-late'] === true,
        print: (t) => {
          progress?.clear();
          io.stdout(t);
        },
        ...(progress !== null ? { onProgress: (p) => progress.update(p) } : {}),
      });
    } finally {
      progress?.clear();
    }
    const results = fullResults(r);
    // A runner that hands back no results (a stub in tests) gets no report.
    if (results !== null) {
      const { writeRunReport } = await import('../report/report.js');
      const name = [...new Set(Object.values(results.ccByHost))].join('+') || 'run';
      const rep = await writeRunReport({ name, results }, outDir);
      if (!json) io.stdout(`report: ${rep.htmlPath}\n`);
    }
    return 0;
  }

  const runs: Array<{
    cc: string;
    outDir: string;
    overrides?: string[];
    summary: Record<string, unknown> | null;
  }> = [];
  const full: Results[] = [];
  for (const [i, cc] of ccList.entries()) {
    const dir = join(outDir, cc);
    if (!json) io.stderr(`rocelab: running ${scenario.name} with ${cc} → ${relative(io.cwd, dir) || '.'}\n`);
    const progress = progressFor(io, json, `${cc} (${i + 1}/${ccList.length})`);
    let r: unknown;
    try {
      r = await runner.runScenario({
        scenario: scenarioFor.get(cc) ?? scenario,
        runtime,
        cc,
        seed,
        outDir: dir,
        pcap: false,
        json,
        print: null,
        ...(progress !== null ? { onProgress: (p) => progress.update(p) } : {}),
      });
    } finally {
      progress?.clear();
    }
    const results = fullResults(r) ?? readResults(dir);
    if (results !== null) full.push(results);
    const summary = (r as { results?: { summary?: Record<string, unknown> } } | null)?.results?.summary;
    runs.push({
      cc,
      outDir: dir,
      ...(overridesFor.has(cc) ? { overrides: overridesFor.get(cc) } : {}),
      summary: summary ?? (results?.summary as Record<string, unknown> | undefined) ?? null,
    });
  }
  const { formatSummaryColumns, formatBucketColumns } = await import('../report/terminal.js');
  let report: {
    htmlPath: string;
    comparePath?: string;
    data: import('../report/data.js').CompareData;
  } | null = null;
  if (full.length === ccList.length) {
    const { writeCompareReport } = await import('../report/report.js');
    report = await writeCompareReport(
      full.map((results, i) => ({ name: ccList[i], results, resultsFile: join(ccList[i], 'results.json') })),
      outDir,
    );
  } else if (!json) io.stderr('rocelab: some runs left no results.json; no compare.json or report written\n');
  if (json) {
    io.stdout(
      `${JSON.stringify({ scenario: scenario.name, runtime, seed: scenario.seed, runs, compare: report?.comparePath ?? null, report: report?.htmlPath ?? null }, null, 2)}\n`,
    );
    return 0;
  }
  let text = `${scenario.name} (seed ${scenario.seed})\n${formatSummaryColumns(runs)}\n`;
  for (const [cc, sets] of overridesFor) text += `${cc} ran with: ${sets.join(', ')}\n`;
  if (report !== null) {
    const d = report.data;
    text += `\nFCT slowdown by flow size\n${formatBucketColumns(d.algorithms.map((a) => ({ cc: a, buckets: d.byAlgorithm[a].buckets })))}\n`;
  }
  text += `results: ${runs.map((r) => r.outDir).join(', ')}\n`;
  if (report !== null) text += `compare: ${report.comparePath}\nreport: ${report.htmlPath}\n`;
  io.stdout(text);
  return 0;
}

/** A progress line on stderr, or null (not a terminal, or --json). */
function progressFor(io: CliIo, json: boolean, label: string): ProgressLine | null {
  if (json || io.stderrIsTTY !== true) return null;
  return progressLine(
    (t) => io.stderr(t),
    label,
    io.columns !== undefined && io.columns > 0 ? io.columns : 100,
  );
}

/** The runner's results when it handed back a complete results object. */
function fullResults(r: unknown): Results | null {
  const x = (r as { results?: Partial<Results> } | null | undefined)?.results;
  if (x === undefined || x === null) return null;
  return Array.isArray(x.flows) && Array.isArray(x.ports) && Array.isArray(x.trace) && x.series !== undefined
    ? (x as Results)
    : null;
}

function readResults(dir: string): Results | null {
  try {
    const parsed = resultsSchema.safeParse(JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')));
    return parsed.success ? (parsed.data as Results) : null;
  } catch {
    return null;
  }
}

function describeScenario(s: Scenario): string {
  const kinds = s.workload.map((w) => w.kind).join(', ') || 'no workload';
  return `${s.name}: ${s.topology.kind} topology with ${s.hostNames.length} hosts, ${formatDuration(s.durationNs)}, ${kinds}, seed ${s.seed}`;
}

// --------------------------------------------------------------------------------------------
// list

/** Format a parameter default by the unit its name carries (rateAiBps, periodNs, …Bytes). */
function formatParam(name: string, v: unknown): string {
  if (typeof v === 'number' && Number.isFinite(v)) {
    if (/Bps$/.test(name)) return formatRate(v);
    if (/Ns$/.test(name)) return formatDuration(v);
    if (/Bytes$/.test(name)) return formatSize(v);
    return String(Number(v.toPrecision(6)));
  }
  if (v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

async function listCommand(json: boolean, io: CliIo, loaders: Loaders): Promise<number> {
  const registry = await loaders.registry();
  const algorithms = registry?.listAlgorithms() ?? null;
  const scenarios = listScenarios();
  if (json) {
    io.stdout(`${JSON.stringify({ algorithms, scenarios }, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = ['Congestion-control algorithms:'];
  if (algorithms === null || algorithms.length === 0) lines.push('  none registered yet');
  else {
    for (const a of algorithms) {
      lines.push(`  ${a.name}${a.summary ? ` — ${a.summary}` : ''}`);
      if (a.profiles !== undefined && a.profiles.length > 0)
        lines.push(
          `    profiles: ${a.profiles.map((p) => (p === a.defaultProfile ? `${p} (default)` : p)).join(', ')}`,
        );
      const aliasOf = new Map(Object.entries(a.aliases ?? {}).map(([alias, target]) => [target, alias]));
      const params = a.params ?? [];
      const names = params.map((p) => (aliasOf.has(p.name) ? `${p.name} (${aliasOf.get(p.name)})` : p.name));
      const defaults = params.map((p) => formatParam(p.name, p.default));
      const w1 = Math.max(0, ...names.map((n) => n.length));
      const w2 = Math.max(0, ...defaults.map((d) => d.length));
      params.forEach((p, i) => {
        lines.push(`    ${names[i].padEnd(w1)}  ${defaults[i].padEnd(w2)}  ${p.description ?? ''}`.trimEnd());
      });
    }
  }
  lines.push('', 'Scenarios:');
  if (scenarios.length === 0) lines.push('  none');
  const w = Math.max(0, ...scenarios.map((s) => s.file.length));
  for (const s of scenarios)
    lines.push(
      `  ${s.file.padEnd(w)}  ${s.error !== undefined ? `(invalid: ${s.error})` : (s.description ?? s.name)}`,
    );
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

interface ScenarioListing {
  file: string;
  name?: string;
  description?: string | null;
  error?: string;
}

function listScenarios(): ScenarioListing[] {
  const root = packageRoot();
  const dir = join(root, 'scenarios');
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/i.test(entry)) files.push(p);
    }
  };
  walk(dir);
  return files.map((f) => {
    const rel = relative(root, f);
    try {
      const s = loadScenario(f);
      return { file: rel, name: s.name, description: s.description };
    } catch (err) {
      return { file: rel, error: isConfigError(err) ? err.message : oneLine(String(err)) };
    }
  });
}

// --------------------------------------------------------------------------------------------
// node

async function nodeCommand(io: CliIo, loaders: Loaders): Promise<number> {
  const mod = await loaders.node();
  if (mod === null) {
    io.stderr('rocelab: node: the real-runtime node (src/runtime/node.ts) is not built yet\n');
    return 1;
  }
  await mod.runNode({ env: io.env });
  return 0;
}

// --------------------------------------------------------------------------------------------

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

// --------------------------------------------------------------------------------------------
// reproduce

/** `--check A7,a8` → the ids as the suites spell them; an id no selected suite has is an error. */
function parseCheckIds(list: string, suites: readonly { checks: readonly { id: string }[] }[]): Set<string> {
  const known = suites.flatMap((s) => s.checks.map((c) => c.id));
  const ids = new Set<string>();
  for (const raw of list.split(',')) {
    const want = raw.trim();
    if (want === '') continue;
    const id = known.find((k) => k.toLowerCase() === want.toLowerCase());
    if (id === undefined) {
      const s = suggest(want, known);
      throw new UsageError(
        `--check: no check "${want}"${s !== undefined ? ` (did you mean ${s}?)` : ''}; known: ${[...new Set(known)].join(', ')}`,
      );
    }
    ids.add(id);
  }
  if (ids.size === 0) throw new UsageError('--check needs at least one check id');
  return ids;
}

async function reproduceCommand(
  name: string,
  values: Record<string, string | boolean | string[] | undefined>,
  io: CliIo,
): Promise<number> {
  const { listReproSuites } = await import('../reproduce/registry.js');
  const { runRepro, selectSuites } = await import('../reproduce/run.js');
  const { formatReproTable, verdict } = await import('../reproduce/table.js');
  const suites = selectSuites(name);
  if (suites.length === 0) {
    const known = listReproSuites().map((s) => s.algorithm);
    const s = suggest(name, known);
    throw new UsageError(
      `no paper checks for "${name}"${s !== undefined ? ` (did you mean ${s}?)` : ''}; known: ${known.length > 0 ? known.join(', ') : 'none yet'}, all`,
    );
  }
  const only = typeof values.check === 'string' ? parseCheckIds(values.check, suites) : undefined;
  const outDir = resolve(io.cwd, typeof values.out === 'string' ? values.out : join('results', 'reproduce'));
  const json = values.json === true;
  const rows = await runRepro(suites, {
    tiers: values.quick === true && only === undefined ? 'default' : 'all',
    only,
    outDir,
    onRow: json
      ? undefined
      : (r) => io.stderr(`  ${r.algorithm} ${r.id}: ${verdict(r)} (${(r.wallMs / 1000).toFixed(1)} s)\n`),
  });
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'reproduce.json'), `${JSON.stringify({ version: 1, rows }, null, 2)}\n`);
  const { reproduceHtml } = await import('../report/reproduce-html.js');
  writeFileSync(join(outDir, 'reproduce.html'), reproduceHtml(rows));
  io.stdout(json ? `${JSON.stringify(rows, null, 2)}\n` : `${formatReproTable(rows)}\n`);
  return rows.some((r) => r.pass === false) ? 3 : 0;
}
