/**
 * `npm run parity -- <suite> [--only SUBSTR] [--large] [--list] [--out DIR] [--json FILE]`
 * (docs/parity.md). Runs our equivalents of a peer simulator's validation suite from its recorded
 * data in the repository (the peer need not be installed) and prints reference, ours and ratio per
 * experiment. Exit 0 when every experiment is within tolerance, 1 when one is not, 2 on bad
 * arguments or data (one line).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { loadReference } from './reference.js';
import { parityJson, parityTable, referenceTable } from './table.js';
import { type ExperimentOutcome, runExperiment, selectExperiments } from './uet/suite.js';

const SUITES = ['uet'] as const;

interface Args {
  suite: (typeof SUITES)[number];
  only: string | null;
  large: boolean;
  list: boolean;
  out: string | null;
  json: string | null;
}

function parseArgs(argv: readonly string[]): Args {
  const a: Args = { suite: 'uet', only: null, large: false, list: false, out: null, json: null };
  let suite: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    if (x === '--only') a.only = value();
    else if (x === '--large') a.large = true;
    else if (x === '--list') a.list = true;
    else if (x === '--out') a.out = value();
    else if (x === '--json') a.json = value();
    else if (!x.startsWith('-') && suite === null) suite = x;
    else throw new Error(`unknown argument ${x}`);
  }
  if (suite === null || !(SUITES as readonly string[]).includes(suite))
    throw new Error(`name a suite: ${SUITES.join(', ')}`);
  a.suite = suite as Args['suite'];
  return a;
}

function main(argv: readonly string[]): number {
  let args: Args;
  let dataDir: string;
  let ref: ReturnType<typeof loadReference>;
  try {
    args = parseArgs(argv);
    dataDir = join(packageRoot(), 'parity', args.suite);
    ref = loadReference(join(dataDir, 'reference.json'));
  } catch (err) {
    process.stderr.write(`parity: ${(err as Error).message.split('\n')[0]}\n`);
    return 2;
  }
  const chosen = selectExperiments(ref, { large: args.large, only: args.only });
  if (chosen.length === 0) {
    process.stderr.write('parity: no experiment matches\n');
    return 2;
  }
  if (args.list) {
    process.stdout.write(`${referenceTable(chosen)}\n`);
    return 0;
  }
  const rows: ExperimentOutcome[] = [];
  for (const e of chosen) {
    process.stderr.write(`${e.id} … `);
    const r = runExperiment(e, dataDir, args.out);
    rows.push(r);
    const bad = r.verdicts.filter((v) => !v.pass).map((v) => v.metric);
    process.stderr.write(
      `${r.error ?? (bad.length === 0 ? 'ok' : `outside: ${bad.join(', ')}`)} (${(r.wallS ?? 0).toFixed(1)} s)\n`,
    );
  }
  const errors = rows.filter((r) => r.error !== null);
  if (errors.length === rows.length && new Set(errors.map((r) => r.error)).size === 1) {
    process.stderr.write(`parity: no experiment could run: ${errors[0].error}\n`);
    return 2;
  }
  process.stdout.write(`${parityTable(rows)}\n`);
  if (args.json !== null) writeFileSync(args.json, `${JSON.stringify(parityJson(rows), null, 1)}\n`);
  const failed = rows.filter((r) => r.error === null && r.verdicts.some((v) => !v.pass));
  process.stdout.write(
    `${rows.length - errors.length - failed.length} of ${rows.length} within tolerance; ${failed.length} outside; ${errors.length} not run\n`,
  );
  return errors.length + failed.length === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
