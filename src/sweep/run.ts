/**
 * Running a sweep: one point (a task: `rocelab sweep FILE --task`, the index from the
 * environment), every point on local cores (a pool of task processes, so a local point and a
 * cluster task run the very same code), and collecting the points' results into one report.
 *
 * Output layout (OUT): sweep.json (the plan), <point dir>/results.json + point.json per point,
 * sweep-summary.json, compare.json and report.html of every point that has results.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/errors.js';
import { loadScenario } from '../config/load.js';
import { packageRoot } from '../package-root.js';
import type { Results } from '../stats/results.js';
import type { Sweep, SweepPoint } from './spec.js';

export interface SweepPlanFile {
  name: string;
  sweepFile: string;
  scenario: string;
  runtime: string;
  points: SweepPoint[];
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function writePlan(sweep: Sweep, out: string): void {
  mkdirSync(out, { recursive: true });
  const plan: SweepPlanFile = {
    name: sweep.name,
    sweepFile: sweep.file,
    scenario: sweep.scenario,
    runtime: sweep.runtime,
    points: sweep.points,
  };
  writeAtomic(join(out, 'sweep.json'), `${JSON.stringify(plan, null, 2)}\n`);
}

/** Run one point into OUT/<point dir>; returns its directory. */
export async function runPoint(sweep: Sweep, index: number, out: string): Promise<string> {
  const p = sweep.points[index];
  const dir = join(out, p.dir);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(out, 'sweep.json'))) writePlan(sweep, out);
  const scenario = loadScenario(sweep.scenario, [...p.sets, ...(p.seed !== null ? [`seed=${p.seed}`] : [])]);
  const { runScenario } = await import('../runtime/run.js');
  await runScenario({
    scenario,
    runtime: sweep.runtime,
    ...(p.cc !== null ? { cc: p.cc } : {}),
    ...(p.seed !== null ? { seed: p.seed } : {}),
    outDir: dir,
    pcap: false,
    json: true,
    print: null,
  });
  writeAtomic(join(dir, 'point.json'), `${JSON.stringify(p, null, 2)}\n`);
  return dir;
}

export interface PoolEvents {
  /** A point finished (ok or not); done of total. */
  onDone?(p: SweepPoint, ok: boolean, done: number, total: number, error: string): void;
}

/**
 * Every point, at most `jobs` at a time, each in its own `rocelab sweep FILE --task` process
 * (ROCELAB_RUN_INDEX=i). Resolves to the points that failed.
 */
export async function runPool(
  sweep: Sweep,
  out: string,
  jobs: number,
  ev: PoolEvents = {},
): Promise<SweepPoint[]> {
  writePlan(sweep, out);
  const queue = [...sweep.points];
  const failed: SweepPoint[] = [];
  let done = 0;
  const bin = join(packageRoot(), 'bin', 'rocelab.js');
  const env = { ...process.env };
  delete env.JOB_COMPLETION_INDEX;
  delete env.SLURM_ARRAY_TASK_ID;
  const worker = async () => {
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      const point = p;
      const { ok, error } = await new Promise<{ ok: boolean; error: string }>((res) => {
        const child = spawn(process.execPath, [bin, 'sweep', sweep.file, '--task', '--out', out], {
          env: { ...env, ROCELAB_RUN_INDEX: String(point.index) },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          if (err.length < 4000) err += d.toString();
        });
        child.on('error', (e) => res({ ok: false, error: e.message }));
        child.on('close', (code) => res({ ok: code === 0, error: err.trim().split('\n').at(-1) ?? '' }));
      });
      done++;
      if (!ok) failed.push(point);
      ev.onDone?.(point, ok, done, sweep.points.length, error);
    }
  };
  const n = Math.max(1, Math.min(jobs, sweep.points.length));
  await Promise.all(Array.from({ length: n }, () => worker()));
  return failed;
}

export function defaultJobs(): number {
  return availableParallelism();
}

export interface Collected {
  plan: SweepPlanFile;
  found: { point: SweepPoint; results: Results }[];
  missing: SweepPoint[];
  reportPath: string | null;
  table: string;
}

/** Merge the points' results under OUT: sweep-summary.json, compare.json, report.html. */
export async function collect(out: string): Promise<Collected> {
  const planPath = join(out, 'sweep.json');
  if (!existsSync(planPath))
    throw new ConfigError('', `${out}: no sweep.json (not a sweep's output directory)`);
  let plan: SweepPlanFile;
  try {
    plan = JSON.parse(readFileSync(planPath, 'utf8')) as SweepPlanFile;
  } catch (err) {
    throw new ConfigError('', `${planPath}: ${(err as Error).message}`);
  }
  if (!Array.isArray(plan.points)) throw new ConfigError('', `${planPath}: no points`);
  const found: Collected['found'] = [];
  const missing: SweepPoint[] = [];
  for (const p of plan.points) {
    const f = join(out, p.dir, 'results.json');
    if (!existsSync(f)) {
      missing.push(p);
      continue;
    }
    found.push({ point: p, results: JSON.parse(readFileSync(f, 'utf8')) as Results });
  }
  const summary = {
    name: plan.name,
    scenario: plan.scenario,
    runtime: plan.runtime,
    points: plan.points.map((p) => ({
      ...p,
      summary: found.find((x) => x.point.index === p.index)?.results.summary ?? null,
    })),
  };
  writeAtomic(join(out, 'sweep-summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  let reportPath: string | null = null;
  if (found.length > 0) {
    const { writeCompareReport } = await import('../report/report.js');
    const r = await writeCompareReport(
      found.map((x) => ({
        name: x.point.label,
        results: x.results,
        resultsFile: join(x.point.dir, 'results.json'),
      })),
      out,
    );
    reportPath = r.htmlPath;
  }
  const { formatSummaryColumns } = await import('../report/terminal.js');
  const table = formatSummaryColumns(
    found.map((x) => ({
      cc: x.point.label,
      summary: x.results.summary as unknown as Record<string, unknown>,
    })),
  );
  return { plan, found, missing, reportPath, table };
}
