/**
 * Running a sweep: one point (a task: `rocelab sweep FILE --task`, the index from the
 * environment), every point on local cores (a pool of worker processes that each run many points
 * through the same `runPoint` a cluster task runs), and collecting the points' results into one
 * report.
 *
 * Output layout (OUT): sweep.json (the plan), <point dir>/results.json + point.json per point,
 * sweep-summary.json, compare.json and report.html of every point that has results.
 */
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/errors.js';
import { loadScenario } from '../config/load.js';
import { packageRoot } from '../package-root.js';
import type { Results } from '../stats/results.js';
import { readResultsFile } from '../stats/results-read.js';
import type { Sweep, SweepPoint } from './spec.js';
import type { FromWorker, ToWorker } from './worker-main.js';

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
  /** A worker finished its share; `cpuMs` is its process CPU time (start-up included). */
  onWorkerEnd?(cpuMs: number): void;
}

/**
 * Every point, at most `jobs` at a time, on `jobs` long-lived worker processes
 * (worker-main.ts), each running one point after another through `runPoint`, the code a
 * cluster task runs. A worker takes its next point when it finishes one. A worker that dies
 * fails its point and is replaced. Resolves to the points that failed.
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
  // The compiled worker, as the task path runs bin/rocelab.js → dist (also when this module runs from src/ in tests).
  const entry = join(packageRoot(), 'dist', 'src', 'sweep', 'worker-main.js');
  const env = { ...process.env };
  delete env.ROCELAB_RUN_INDEX;
  delete env.JOB_COMPLETION_INDEX;
  delete env.SLURM_ARRAY_TASK_ID;
  const finish = (p: SweepPoint, ok: boolean, error: string) => {
    done++;
    if (!ok) failed.push(p);
    ev.onDone?.(p, ok, done, sweep.points.length, error);
  };
  /** One worker process; resolves when the queue is empty or the worker died (its point failed). */
  const serve = () =>
    new Promise<void>((res) => {
      const child = fork(entry, [], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
      let current: SweepPoint | undefined;
      let err = '';
      child.stderr?.on('data', (d: Buffer) => {
        err = (err + d.toString()).slice(-4000);
      });
      const next = () => {
        current = queue.shift();
        if (current === undefined) child.send({ stop: true } satisfies ToWorker);
        else child.send({ index: current.index } satisfies ToWorker);
      };
      child.on('message', (m: FromWorker) => {
        if ('cpuMs' in m) {
          ev.onWorkerEnd?.(m.cpuMs);
          return;
        }
        if (current === undefined || m.index !== current.index) return;
        finish(current, m.ok, m.error);
        next();
      });
      let ended = false;
      const end = (why: string) => {
        if (ended) return;
        ended = true;
        if (current !== undefined) {
          const p = current;
          current = undefined;
          const lines = err.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('Node.js v'));
          finish(
            p,
            false,
            lines
              .at(-1)
              ?.trim()
              .replace(/^rocelab: /, '') ?? why,
          );
        }
        res();
      };
      child.on('error', (e) => end(e.message));
      // 'close', not 'exit': by then the worker's last stderr line has been read.
      child.on('close', (code, signal) => end(`worker exited (${signal ?? code})`));
      child.send({ init: { sweep, out } } satisfies ToWorker);
      next();
    });
  const worker = async () => {
    // A dead worker is replaced while points remain.
    while (queue.length > 0) await serve();
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
    // Refused by name if cut short or not of this version, never merged as if it were a run's.
    found.push({ point: p, results: readResultsFile(f) });
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
