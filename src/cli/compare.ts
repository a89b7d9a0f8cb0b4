/**
 * `rocelab compare <scenario.yaml> --cc a,b[,…]`: the same scenario and seed once per algorithm,
 * then compare.json, report.html and the summaries side by side (docs/cli.md).
 */
import { join, relative } from 'node:path';
import type { Scenario } from '../config/scenario.js';
import type { Results } from '../stats/results.js';
import { type ArgValues, UsageError } from './args.js';
import { type CliIo, runnerOf } from './io.js';
import {
  checkAlgorithms,
  fullResults,
  loadFor,
  outDirOf,
  progressFor,
  RUN_OPTIONS_HELP,
  readResults,
  runArgsOf,
  SCENARIO_FLAGS,
  scenarioCommand,
} from './scenario-args.js';

export const COMPARE_HELP = `Usage: rocelab compare <scenario.yaml> --cc a,b[,c…] [options]

Run the same scenario and seed once per algorithm (every host running it) into
DIR/<algorithm>/, write DIR/compare.json and DIR/report.html (one offline page of charts and
tables comparing them) and print the summaries and the slowdown per flow size side by side.

${RUN_OPTIONS_HELP.replace(/ {2}--cc NAME[^\n]*\n/, '  --cc a,b,…        the algorithms to compare (at least two)\n')}
  --set-for ALG:key=value
                    an override for ALG's run only (repeatable), e.g. DCTCP's step marking:
                    --set-for dctcp:defaults.switch.ecn.kmin=300KB
`;

const FLAGS = { ...SCENARIO_FLAGS, 'set-for': { type: 'string', multiple: true } } as const;

export function compareCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return scenarioCommand('compare', FLAGS, COMPARE_HELP, argv, io, (file, values) =>
    compare(file, values, io),
  );
}

/**
 * `--set-for ALG:key=value`: overrides that apply to one algorithm's run only, so that e.g. DCTCP
 * gets its step marking while the others keep the scenario's RED ramp.
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

async function compare(file: string, values: ArgValues, io: CliIo): Promise<number> {
  const { runtime, seed, overrides, json } = runArgsOf(io, values);
  const ccList = ((values.cc as string | undefined) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (ccList.length < 2)
    throw new UsageError('compare needs --cc with at least two algorithms, e.g. --cc dcqcn,hpcc');
  const dup = ccList.find((c, i) => ccList.indexOf(c) !== i);
  if (dup !== undefined) throw new UsageError(`--cc lists ${dup} twice`);

  const overridesFor = parseSetFor(values['set-for'] as string[] | undefined, ccList);
  const scenario = loadFor(io, file, overrides);
  // The scenario each algorithm runs (its own when --set-for changes it), all loaded and
  // checked before the first run starts.
  const scenarioFor = new Map<string, Scenario>(
    ccList.map((cc) => {
      const extra = overridesFor.get(cc);
      return [cc, extra !== undefined ? loadFor(io, file, [...overrides, ...extra]) : scenario];
    }),
  );
  await checkAlgorithms(io, file, ccList, [scenario, ...scenarioFor.values()]);

  const outDir = outDirOf(io, values, scenario);
  const runScenario = await runnerOf(io);
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
      r = await runScenario({
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
  const { formatSummaryColumns, formatBucketColumns, formatCollectiveColumns } = await import(
    '../report/terminal.js'
  );
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
    if (d.algorithms.some((a) => d.byAlgorithm[a].collectives !== undefined))
      text += `\nCollective jobs: bus bandwidth\n${formatCollectiveColumns(d.algorithms.map((a) => ({ cc: a, collectives: d.byAlgorithm[a].collectives })))}\n`;
  }
  text += `results: ${runs.map((r) => r.outDir).join(', ')}\n`;
  if (report !== null) text += `compare: ${report.comparePath}\nreport: ${report.htmlPath}\n`;
  io.stdout(text);
  return 0;
}
