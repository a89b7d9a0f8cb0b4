/** `rocelab run <scenario.yaml>`: one run, results.json, report.html and a summary (docs/cli.md). */
import { join, resolve } from 'node:path';
import { noExtraArgs, parseCommandArgs, println, UsageError } from './args.js';
import { type CliIo, runnerOf } from './io.js';
import {
  aboutFile,
  checkAlgorithms,
  collectOverrides,
  fullResults,
  loadFor,
  parseRuntime,
  parseSeed,
  progressFor,
  RUN_OPTIONS_HELP,
  SCENARIO_FLAGS,
} from './scenario-args.js';

export const RUN_HELP = `Usage: rocelab run <scenario.yaml> [options]

Validate the scenario, run it and write DIR/results.json and DIR/report.html (charts: FCT
slowdown by flow size, queues, rates, PFC/CNP counts, why rates dropped); prints a summary
table. A progress line (emulated time, events/s, ETA) is drawn on stderr when it is a terminal.

${RUN_OPTIONS_HELP}
  --pcap            also write the emulated frames of every port as pcap files (DIR/pcap/)
`;

const FLAGS = {
  ...SCENARIO_FLAGS,
  pcap: { type: 'boolean' },
  'allow-late': { type: 'boolean' },
} as const;

export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', FLAGS, argv);
  if (values.help === true) {
    println(io, RUN_HELP);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined) throw new UsageError('run needs a scenario file (rocelab run FILE)');
  noExtraArgs('run', positionals, 1);
  return aboutFile(file, () => run(file, values, io));
}

async function run(file: string, values: Record<string, unknown>, io: CliIo): Promise<number> {
  const runtime = parseRuntime(values.runtime as string | undefined);
  const seed = parseSeed(values.seed as string | undefined);
  const ccFlag = values.cc as string | undefined;
  if (ccFlag !== undefined && (ccFlag.trim() === '' || ccFlag.includes(',')))
    throw new UsageError(`--cc expects one algorithm name, got ${JSON.stringify(ccFlag)}`);
  const cc = ccFlag?.trim();
  const overrides = collectOverrides(io.env, values.set as string[] | undefined);
  if (seed !== undefined) overrides.push(`seed=${seed}`);
  const scenario = loadFor(io, file, overrides);
  await checkAlgorithms(io, file, cc !== undefined ? [cc] : [], [scenario]);

  const outDir = resolve(io.cwd, (values.out as string | undefined) ?? join('results', scenario.name));
  const json = values.json === true;
  const runScenario = await runnerOf(io);
  const progress = progressFor(io, json, '');
  let r: unknown;
  try {
    r = await runScenario({
      scenario,
      runtime,
      cc,
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
