/**
 * Sweep parallelism: a 2-algorithm × 4-seed sweep (8 virtual-time runs) on 2 workers against the same 8 points on 1 worker (one after another), both
 * through the same pool (src/sweep/run.ts runPool: long-lived worker processes, one runPoint a
 * point), measured in this run on this machine, in the order 1, 2, 2, 1 workers. Target:
 * parallel ≤ 0.6 × sequential wall time. The ideal on 2 free cores is 0.5; each worker's fixed
 * cost (process start, module loading, JIT warm-up on its first point), paid once on either
 * side, and a busy machine push it up.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/package-root.js';
import { runPool } from '../src/sweep/run.js';
import { loadSweep } from '../src/sweep/spec.js';

/**
 * Two sweeps: the dumbbell (0.2 s points, so each worker's fixed cost weighs most: the floor of
 * what a pool can do) and WebSearch on the 16-host leaf-spine (~4 s points, a sweep as
 * researchers run them). ROCELAB_BENCH_SWEEP_SCENARIO=file.yaml runs one scenario instead.
 */
export async function benchSweep(): Promise<void> {
  const only = process.env.ROCELAB_BENCH_SWEEP_SCENARIO;
  for (const scenario of only !== undefined ? [only] : ['dumbbell-2flows.yaml', 'websearch-leafspine.yaml']) {
    console.log(`${scenario} × cc [dcqcn, none] × 4 seeds:`);
    await benchSweepOf(scenario);
  }
}

async function benchSweepOf(scenario: string): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'rocelab-bench-sweep-'));
  try {
    const file = join(tmp, 'sweep.yaml');
    writeFileSync(
      file,
      `scenario: ${join(packageRoot(), 'scenarios', scenario)}\ngrid: { cc: [dcqcn, none] }\nseeds: 4\n`,
    );
    const sweep = loadSweep(file);
    let round = 0;
    // Process CPU seconds of each round's workers: unlike wall time, not inflated by waiting for
    // a core that other work holds, so it still says something on a busy machine.
    const cpu: Record<number, number[][]> = { 1: [], 2: [] };
    const time = async (jobs: number) => {
      const workers: number[] = [];
      const t0 = performance.now();
      const failed = await runPool(sweep, join(tmp, `jobs${jobs}-${round++}`), jobs, {
        onWorkerEnd: (cpuMs) => workers.push(cpuMs / 1000),
      });
      if (failed.length > 0) throw new Error(`${failed.length} points failed`);
      cpu[jobs].push(workers);
      return (performance.now() - t0) / 1000;
    };
    // A B B A: a machine whose load drifts during the bench weighs on both sides alike.
    const seqA = await time(1);
    const parA = await time(2);
    const parB = await time(2);
    const seqB = await time(1);
    const seq = (seqA + seqB) / 2;
    const par = (parA + parB) / 2;
    const ratio = par / seq;
    console.log(
      `  rounds: 1 worker ${seqA.toFixed(1)} / ${seqB.toFixed(1)} s, 2 workers ${parA.toFixed(1)} / ${parB.toFixed(1)} s`,
    );
    console.log(
      `sweep of ${sweep.points.length} points: 1 worker ${seq.toFixed(1)} s, 2 workers ${par.toFixed(1)} s`,
    );
    console.log(
      `parallel / sequential wall time: ${ratio.toFixed(2)} (target ≤ 0.60) ${ratio <= 0.6 ? 'OK' : 'ABOVE TARGET'}`,
    );
    // The same 8 runs one after another as a user would start them without a sweep: one
    // `rocelab run` process each (start-up, loading and JIT warm-up paid every time).
    const t1 = performance.now();
    for (const p of sweep.points) {
      const args = [join(packageRoot(), 'bin', 'rocelab.js'), 'run', sweep.scenario, '--json'];
      if (p.cc !== null) args.push('--cc', p.cc);
      if (p.seed !== null) args.push('--seed', String(p.seed));
      for (const kv of p.sets) args.push('--set', kv);
      args.push('--out', join(tmp, 'separate', p.dir));
      const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
      if (r.status !== 0) throw new Error(`rocelab run of point ${p.label} exited ${r.status}`);
    }
    const separate = (performance.now() - t1) / 1000;
    console.log(
      `  the same 8 runs as separate rocelab run processes, one after another: ${separate.toFixed(1)} s; the 2-worker sweep takes ${(par / separate).toFixed(2)} of that`,
    );
    const show = (rounds: number[][]) =>
      rounds.map((w) => w.map((x) => x.toFixed(2)).join(' + ')).join(' / ');
    const seqCpu = cpu[1].reduce((a, w) => a + w[0], 0) / cpu[1].length;
    const busiest = cpu[2].reduce((a, w) => a + Math.max(...w), 0) / cpu[2].length;
    console.log(
      `  process CPU s: 1 worker ${show(cpu[1])}, 2 workers ${show(cpu[2])}; busiest of 2 / the 1 worker: ${(busiest / seqCpu).toFixed(2)} (a hint, not the target: wall time on a quiet machine decides)`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
