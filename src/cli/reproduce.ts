/**
 * `rocelab reproduce <algorithm|all>`: run the paper acceptance checks the algorithms ship and
 * print one table (docs/cli.md "rocelab reproduce"). The checks themselves live with the suites;
 * this file only parses flags, picks suites and writes the rows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { suggest } from '../config/errors.js';
import type { RunProgress } from '../runtime/run.js';
import { HELP_FLAG, noExtraArgs, parseCommandArgs, println, UsageError } from './args.js';
import type { CliIo } from './io.js';
import { progressFor } from './scenario-args.js';

export const REPRODUCE_HELP = `Usage: rocelab reproduce <algorithm|all> [--quick] [--check ID,…] [--out DIR] [--json]

Run the paper acceptance checks an algorithm ships (docs/algorithms/<algorithm>.md) and print one
table: check, paper value, expected, measured, pass/fail. Exit status 0 when every check passed
(a recorded finding counts as passed), 3 when any check failed.

  --quick           only the checks that npm test runs (skip the costly paper-scale ones)
  --check ID,…      only these checks (ids as in the table, e.g. A7 or AC3,AC6), any tier
  --out DIR         scratch and output directory (default results/reproduce); writes
                    reproduce.json and reproduce.html
  --json            print the rows as JSON instead of the table
`;

const FLAGS = {
  quick: { type: 'boolean' },
  check: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  ...HELP_FLAG,
} as const;

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

/**
 * The simulations a long check announces (the MPCC fat-tree runs): a progress line while each
 * runs on a terminal, and one line on stderr when it ends (also in a log), as the checks' own.
 */
function simulationProgress(io: CliIo) {
  return (check: { algorithm: string; id: string }, label: string) => {
    const name = `${check.algorithm} ${check.id} ${label}`;
    const line = progressFor(io, false, name);
    return (p: RunProgress) => {
      line?.update(p);
      if (p.done) io.stderr(`    ${name}: ${(p.wallMs / 1000).toFixed(1)} s\n`);
    };
  };
}

export async function reproduceCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('reproduce', FLAGS, argv);
  if (values.help === true) {
    println(io, REPRODUCE_HELP);
    return 0;
  }
  const name = positionals[0];
  if (name === undefined) throw new UsageError('reproduce needs an algorithm name or "all"');
  noExtraArgs('reproduce', positionals, 1);

  const { listReproSuites } = await import('../../experiments/registry.js');
  const { runRepro, selectSuites } = await import('../../experiments/run.js');
  const { formatReproTable, verdict } = await import('../../experiments/table.js');
  const { reproduceHtml } = await import('../report/reproduce-html.js');

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
    progress: json ? undefined : simulationProgress(io),
  });
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'reproduce.json'), `${JSON.stringify({ version: 1, rows }, null, 2)}\n`);
  writeFileSync(join(outDir, 'reproduce.html'), reproduceHtml(rows));
  io.stdout(json ? `${JSON.stringify(rows, null, 2)}\n` : `${formatReproTable(rows)}\n`);
  return rows.some((r) => r.pass === false) ? 3 : 0;
}
