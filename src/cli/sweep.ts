/**
 * `rocelab sweep SWEEP.yaml [--out DIR] [--jobs N] [--emit k8s|slurm]`, `rocelab sweep SWEEP.yaml
 * --task`, `rocelab sweep collect DIR` (src/sweep/, docs/deploy.md). Bad sweep files and flags:
 * ConfigError, one line, exit 2 (by the dispatcher in app.ts). Points that fail: exit 1.
 */

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { ConfigError } from '../config/errors.js';
import { emitK8s, emitSlurm } from '../sweep/emit.js';
import { collect, defaultJobs, runPoint, runPool, writePlan } from '../sweep/run.js';
import { loadSweep, taskIndex } from '../sweep/spec.js';
import { writeFileSet } from './deploy.js';

export const SWEEP_HELP = `Usage:
  rocelab sweep <sweep.yaml> [--out DIR] [--jobs N]   every point on local cores, then one report
  rocelab sweep <sweep.yaml> --emit k8s|slurm [--out DIR] [--jobs N] [--image REF] [--pvc NAME]
                                                     a Kubernetes Indexed Job or an sbatch --array script
  rocelab sweep <sweep.yaml> --task [--out DIR]      one point: ROCELAB_RUN_INDEX, else
                                                     JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID
  rocelab sweep collect <DIR>                        merge the points' results (summary, report)
Default DIR results/sweeps/<name>; --jobs defaults to the number of cores. docs/deploy.md.
`;

export interface SweepIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  stderrIsTTY?: boolean;
}

function parse(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: 'string' },
        jobs: { type: 'string' },
        emit: { type: 'string' },
        task: { type: 'boolean' },
        image: { type: 'string' },
        pvc: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new ConfigError('sweep', (err as Error).message.split('\n')[0]);
  }
}

export async function sweepCommand(argv: readonly string[], io: SweepIo): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.help === true) {
    io.stdout(SWEEP_HELP);
    return 0;
  }
  if (positionals[0] === 'collect') {
    if (positionals.length !== 2) throw new ConfigError('sweep collect', 'needs exactly one directory');
    return await collectAndPrint(resolve(io.cwd, positionals[1]), io);
  }
  if (positionals.length !== 1)
    throw new ConfigError('sweep', 'needs exactly one sweep file (see rocelab sweep --help)');
  const sweep = loadSweep(resolve(io.cwd, positionals[0]));
  const out = resolve(io.cwd, values.out ?? join('results', 'sweeps', sweep.name));
  let jobs = defaultJobs();
  if (values.jobs !== undefined) {
    jobs = Number(values.jobs);
    if (!Number.isInteger(jobs) || jobs < 1 || jobs > 1024)
      throw new ConfigError('--jobs', `expected a whole number 1…1024, got ${JSON.stringify(values.jobs)}`);
  }
  const shown = relative(io.cwd, out) || '.';

  if (values.task === true) {
    if (values.emit !== undefined) throw new ConfigError('sweep', '--task and --emit do not go together');
    const i = taskIndex(io.env, sweep.points.length);
    const dir = await runPoint(sweep, i, out);
    io.stdout(`point ${i} (${sweep.points[i].label}): ${relative(io.cwd, dir) || '.'}\n`);
    return 0;
  }

  if (values.emit !== undefined) {
    if (values.emit !== 'k8s' && values.emit !== 'slurm')
      throw new ConfigError('--emit', `expected k8s or slurm, got ${JSON.stringify(values.emit)}`);
    writePlan(sweep, out);
    if (values.emit === 'k8s') {
      const dir = join(out, 'k8s');
      writeFileSet(dir, emitK8s(sweep, { image: values.image, pvc: values.pvc, parallelism: jobs }));
      io.stdout(
        `${relative(io.cwd, dir)}: an Indexed Job of ${sweep.points.length} points (kubectl apply -k ${relative(io.cwd, dir)})\n`,
      );
    } else {
      mkdirSync(out, { recursive: true });
      const f = join(out, 'sweep.sbatch');
      writeFileSync(f, emitSlurm(sweep, { parallelism: jobs, out }));
      chmodSync(f, 0o755);
      io.stdout(
        `${relative(io.cwd, f)}: a job array of ${sweep.points.length} points (sbatch ${relative(io.cwd, f)}; then rocelab sweep collect ${shown})\n`,
      );
    }
    return 0;
  }
  if (values.image !== undefined || values.pvc !== undefined)
    throw new ConfigError('sweep', '--image and --pvc are for --emit k8s');

  const n = Math.min(jobs, sweep.points.length);
  io.stderr(`rocelab: sweep ${sweep.name}: ${sweep.points.length} points on ${n} workers → ${shown}\n`);
  const bar =
    io.stderrIsTTY === true
      ? new SingleBar({ format: '{bar} {value}/{total} points | {last}', hideCursor: true })
      : null;
  bar?.start(sweep.points.length, 0, { last: '' });
  const t0 = Date.now();
  const failed = await runPool(sweep, out, jobs, {
    onDone: (p, ok, done, total, error) => {
      if (bar !== null) bar.update(done, { last: `${ok ? '' : 'FAILED '}${p.label}` });
      else
        io.stderr(
          `rocelab: [${done}/${total}] ${ok ? 'done' : 'FAILED'} ${p.label}${ok ? '' : `: ${error}`}\n`,
        );
    },
  });
  bar?.stop();
  io.stderr(`rocelab: sweep took ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  const code = await collectAndPrint(out, io);
  if (failed.length > 0) {
    io.stderr(
      `rocelab: ${failed.length} of ${sweep.points.length} points failed: ${failed.map((p) => p.index).join(', ')}\n`,
    );
    return 1;
  }
  return code;
}

async function collectAndPrint(out: string, io: SweepIo): Promise<number> {
  const c = await collect(out);
  const shown = relative(io.cwd, out) || '.';
  let text = `${c.plan.name}: ${c.found.length}/${c.plan.points.length} points with results\n`;
  if (c.found.length > 0 && c.found.length <= 12) text += `${c.table}\n`;
  text += `summary: ${join(shown, 'sweep-summary.json')}\n`;
  if (c.reportPath !== null) text += `report: ${relative(io.cwd, c.reportPath)}\n`;
  io.stdout(text);
  if (c.missing.length > 0) {
    io.stderr(
      `rocelab: ${c.missing.length} points have no results.json: ${c.missing.map((p) => p.dir).join(', ')}\n`,
    );
    return 1;
  }
  return 0;
}
