/** `rocelab run <scenario.yaml>`: one run, results.json, report.html and a summary (docs/cli.md). */
import { type ArgValues, UsageError } from './args.js';
import { type CliIo, runnerOf } from './io.js';
import {
  checkAlgorithms,
  fullResults,
  loadFor,
  outDirOf,
  progressFor,
  RUN_OPTIONS_HELP,
  runArgsOf,
  SCENARIO_FLAGS,
  scenarioCommand,
} from './scenario-args.js';

export const RUN_HELP = `Usage: rocelab run <scenario.yaml> [options]

Validate the scenario, run it and write DIR/results.json and DIR/report.html (charts: FCT
slowdown by flow size, queues, rates, PFC/CNP counts, why rates dropped); prints a summary
table. A progress line (emulated time, events/s, ETA) is drawn on stderr when it is a terminal.

${RUN_OPTIONS_HELP}
  --pcap            also write the emulated frames of every port as pcap files (DIR/pcap/)
  --keep-logs       local and netns runtimes: keep each node process's log in DIR/logs/
`;

const FLAGS = {
  ...SCENARIO_FLAGS,
  pcap: { type: 'boolean' },
  'allow-late': { type: 'boolean' },
  'keep-logs': { type: 'boolean' },
} as const;

export function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return scenarioCommand('run', FLAGS, RUN_HELP, argv, io, (file, values) => run(file, values, io));
}

async function run(file: string, values: ArgValues, io: CliIo): Promise<number> {
  const { runtime, seed, overrides, json } = runArgsOf(io, values);
  const ccFlag = values.cc as string | undefined;
  if (ccFlag !== undefined && (ccFlag.trim() === '' || ccFlag.includes(',')))
    throw new UsageError(`--cc expects one algorithm name, got ${JSON.stringify(ccFlag)}`);
  const cc = ccFlag?.trim();
  const keepLogs = values['keep-logs'] === true;
  if (keepLogs && runtime === 'virtual')
    throw new UsageError(
      '--keep-logs needs a real runtime (--runtime local or netns): virtual time has no node processes',
    );
  const scenario = loadFor(io, file, overrides);
  await checkAlgorithms(io, file, cc !== undefined ? [cc] : [], [scenario]);

  const outDir = outDirOf(io, values, scenario);
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
      keepLogs,
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
