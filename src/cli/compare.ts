/**
 * `rocelab compare <scenario.yaml> --cc a,b[,…]`: the same scenario and seed once per algorithm,
 * or once per named variant (the scenario's `variants`, `--variant`): then compare.json,
 * report.html and the summaries side by side (docs/cli.md).
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
       rocelab compare <scenario.yaml> [--variants a,b,…] [--variant NAME:key=value]… [options]

Run the same scenario and seed once per algorithm (every host running it), or once per named
variant (a set of --set overrides: the scenario's \`variants\` key and --variant), into
DIR/<algorithm or variant>/, write DIR/compare.json and DIR/report.html (one offline page of
charts and tables comparing them) and print the summaries and the slowdown per flow size side
by side.

${RUN_OPTIONS_HELP.replace(/ {2}--cc NAME[^\n]*\n/, '  --cc a,b,…        the algorithms to compare (at least two)\n')}
  --set-for NAME:key=value
                    an override for one algorithm's or variant's run only (repeatable), e.g.
                    DCTCP's step marking: --set-for dctcp:defaults.switch.ecn.kmin=300KB
  --variants a,b,…  the scenario's named variants to compare (default: all of them)
  --variant NAME:key=value
                    define a variant, or add an override to one (repeatable)
`;

const FLAGS = {
  ...SCENARIO_FLAGS,
  'set-for': { type: 'string', multiple: true },
  variants: { type: 'string' },
  variant: { type: 'string', multiple: true },
} as const;

export function compareCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return scenarioCommand('compare', FLAGS, COMPARE_HELP, argv, io, (file, values) =>
    compare(file, values, io),
  );
}

/** `NAME:key=value` items (--set-for, --variant) grouped by NAME, in order. */
function byName(flag: string, items: string[] | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const item of items ?? []) {
    const m = /^([^:=\s]+):(.+=.*)$/.exec(item.trim());
    if (m === null) throw new UsageError(`${flag} expects NAME:key=value, got ${JSON.stringify(item)}`);
    const [, name, kv] = m;
    out.set(name, [...(out.get(name) ?? []), kv]);
  }
  return out;
}

/** One run of a comparison: its name, the algorithm every host is forced to (--cc) and its overrides. */
interface CompareEntry {
  name: string;
  cc: string | undefined;
  sets: string[];
}

const namesOf = (v: unknown): string[] =>
  ((v as string | undefined) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * What to compare: `--cc a,b` (every host running each algorithm), or named variants (the
 * scenario's `variants`, extended or defined by --variant, chosen by --variants). `--set-for`
 * adds overrides to one entry by name.
 */
function compareEntries(values: ArgValues, scenario: Scenario): CompareEntry[] {
  const ccList = namesOf(values.cc);
  const inline = byName('--variant', values.variant as string[] | undefined);
  const chosen = namesOf(values.variants);
  let entries: CompareEntry[];
  if (ccList.length > 0) {
    if (inline.size > 0 || chosen.length > 0)
      throw new UsageError(
        '--cc compares algorithms, --variant/--variants named variants: use one or the other',
      );
    if (ccList.length < 2)
      throw new UsageError('compare needs --cc with at least two algorithms, e.g. --cc dcqcn,hpcc');
    entries = ccList.map((cc) => ({ name: cc, cc, sets: [] }));
  } else {
    const declared = new Map<string, string[]>(Object.entries(scenario.variants ?? {}));
    for (const [name, sets] of inline) declared.set(name, [...(declared.get(name) ?? []), ...sets]);
    const names = chosen.length > 0 ? chosen : [...declared.keys()];
    for (const n of names) {
      if (!declared.has(n))
        throw new UsageError(
          `--variants: no variant "${n}" (${declared.size > 0 ? `known: ${[...declared.keys()].join(', ')}` : 'the scenario has none'})`,
        );
    }
    if (names.length < 2)
      throw new UsageError(
        "compare needs --cc with at least two algorithms (e.g. --cc dcqcn,hpcc) or at least two variants (the scenario's `variants`, --variant)",
      );
    entries = names.map((n) => ({ name: n, cc: undefined, sets: [...(declared.get(n) ?? [])] }));
  }
  const dup = entries.find((e, i) => entries.findIndex((x) => x.name === e.name) !== i);
  if (dup !== undefined)
    throw new UsageError(`${ccList.length > 0 ? '--cc' : '--variants'} lists ${dup.name} twice`);
  for (const [name, sets] of byName('--set-for', values['set-for'] as string[] | undefined)) {
    const e = entries.find((x) => x.name === name);
    if (e === undefined)
      throw new UsageError(
        `--set-for ${name}: ${name} is not one of the compared ${ccList.length > 0 ? `algorithms (--cc ${ccList.join(',')})` : `variants (${entries.map((x) => x.name).join(', ')})`}`,
      );
    e.sets.push(...sets);
  }
  return entries;
}

async function compare(file: string, values: ArgValues, io: CliIo): Promise<number> {
  const { runtime, seed, overrides, json } = runArgsOf(io, values);
  const scenario = loadFor(io, file, overrides);
  const entries = compareEntries(values, scenario);
  // The scenario each entry runs (its own when its overrides change it), all loaded and checked
  // before the first run starts.
  const scenarioFor = new Map<string, Scenario>(
    entries.map((e) => [e.name, e.sets.length > 0 ? loadFor(io, file, [...overrides, ...e.sets]) : scenario]),
  );
  const ccList = entries.flatMap((e) => (e.cc !== undefined ? [e.cc] : []));
  await checkAlgorithms(io, file, ccList, [scenario, ...scenarioFor.values()]);

  const outDir = outDirOf(io, values, scenario);
  const runScenario = await runnerOf(io);
  const runs: Array<{
    cc: string;
    variant?: string;
    outDir: string;
    overrides?: string[];
    summary: Record<string, unknown> | null;
  }> = [];
  const full: Results[] = [];
  for (const [i, e] of entries.entries()) {
    const dir = join(outDir, e.name);
    const sc = scenarioFor.get(e.name) ?? scenario;
    if (!json)
      io.stderr(`rocelab: running ${scenario.name} with ${e.name} → ${relative(io.cwd, dir) || '.'}\n`);
    const progress = progressFor(io, json, `${e.name} (${i + 1}/${entries.length})`);
    let r: unknown;
    try {
      r = await runScenario({
        scenario: sc,
        runtime,
        ...(e.cc !== undefined ? { cc: e.cc } : {}),
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
      // A variant's column is its name; its `cc` the algorithm of its NIC defaults.
      cc: e.cc ?? sc.defaults.nic.cc,
      ...(e.cc === undefined ? { variant: e.name } : {}),
      outDir: dir,
      ...(e.sets.length > 0 ? { overrides: e.sets } : {}),
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
  if (full.length === entries.length) {
    const { writeCompareReport } = await import('../report/report.js');
    report = await writeCompareReport(
      full.map((results, i) => ({
        name: entries[i].name,
        results,
        resultsFile: join(entries[i].name, 'results.json'),
      })),
      outDir,
    );
  } else if (!json) io.stderr('rocelab: some runs left no results.json; no compare.json or report written\n');
  if (json) {
    io.stdout(
      `${JSON.stringify({ scenario: scenario.name, runtime, seed: scenario.seed, runs, compare: report?.comparePath ?? null, report: report?.htmlPath ?? null }, null, 2)}\n`,
    );
    return 0;
  }
  let text = `${scenario.name} (seed ${scenario.seed})\n${formatSummaryColumns(runs.map((r) => ({ ...r, cc: r.variant ?? r.cc })))}\n`;
  for (const e of entries) if (e.sets.length > 0) text += `${e.name} ran with: ${e.sets.join(', ')}\n`;
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
