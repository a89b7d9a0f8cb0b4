/**
 * The real-time benches that run whole scenarios on the local runtime (bench/realtime.ts runs
 * them after its forwarding measurements): lockstep's lowest dilation, issue 36's wallclock
 * target, and the search for the lowest timeScale at which wallclock holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadScenario } from '../src/config/load.js';
import { packageRoot } from '../src/package-root.js';
import { runLocal } from '../src/runtime/local/launcher.js';
import { type RunOutput, runScenario } from '../src/runtime/run.js';

/**
 * One `sync: wallclock` run of `file` at `timeScale` on the local runtime, its results kept even
 * when it was late (to say what it lacked; the caller judges whether it held), or the error that
 * ended it.
 */
function runWallclock(file: string, timeScale: number): Promise<RunOutput | Error> {
  return runLocal({
    scenario: loadScenario(file, [`timeScale=${timeScale}`, 'sync=wallclock']),
    outDir: mkdtempSync(join(tmpdir(), 'rocelab-bench-wc-')),
    print: null,
    metricsPort: null,
    allowLate: true,
  }).catch((err: Error) => err);
}

/** Issue 36's real-time targets (docs/performance.md). */
const TARGET_LOCKSTEP_P50 = 220;
/** The target layout runs this many times in a row: a median of six or seven 250 ms windows, three of them the JIT's ramp, moves by 10-20 % from run to run. */
const TARGET_LOCKSTEP_RUNS = 3;
const TARGET_WALLCLOCK_SCALE = 2000;
const TARGET_WALLCLOCK_RUNS = 3;
/** Late frames at most this fraction of the data frames, goodput and max queue this close to virtual time. */
const TARGET_LATE_FRACTION = 1e-4;
const TARGET_WALLCLOCK_CLOSENESS = 0.03;

/**
 * The lowest dilation lockstep reaches: scenarios run on the local runtime at timeScale 1, so the
 * wall clock never holds a node back and emulated time goes as fast as promises and the CPU let
 * it. Each scenario runs with a process per node, with `processes: auto` (as many processes as
 * cores), and with `processes: auto` and the nodes of a process linked in memory
 * (`inProcessLinks: memory`), side by side. Prints real time per emulated time (median window and whole run) and
 * null messages per data frame. ROCELAB_BENCH_LOCKSTEP=0 skips it.
 */
export async function benchLockstep(): Promise<void> {
  if (process.env.ROCELAB_BENCH_LOCKSTEP === '0') return;
  const cases = [
    { file: join(packageRoot(), 'scenarios', 'incast-8to1.yaml'), label: 'incast-8to1' },
    { file: join(packageRoot(), 'deploy', 'scenarios', 'mini-testbed.yaml'), label: 'mini testbed' },
  ];
  console.log('\nlockstep, local runtime at timeScale 1 (the lowest dilation it reaches here):');
  for (const c of cases) {
    // Side by side: bundles between the processes (the default) and each datagram alone.
    for (const [processes, links, bundles] of [
      ['per-node', 'socket', true],
      ['auto', 'socket', true],
      ['auto', 'memory', false],
      ['auto', 'memory', true],
    ] as const) {
      // Issue 36's target: the default layout (processes auto: 2 on the 2-core machine, linked in memory).
      const target = c.label === 'incast-8to1' && processes === 'auto' && links === 'memory' && bundles;
      const p50s: (number | null)[] = [];
      let procs = 0;
      for (let run = 0; run < (target ? TARGET_LOCKSTEP_RUNS : 1); run++) {
        const out = await runLocal({
          scenario: loadScenario(c.file, [
            'timeScale=1',
            `processes=${processes}`,
            `inProcessLinks=${links}`,
          ]),
          outDir: mkdtempSync(join(tmpdir(), 'rocelab-bench-ls-')),
          print: null,
          metricsPort: null,
          ...(bundles ? {} : { env: { BUNDLES: '0' } }),
        });
        const r = out.results;
        const rt = r.realtime!;
        const whole = (out.wallMs * 1e6) / Math.max(1, r.durationNs);
        const layout = [
          `${rt.processes} processes`,
          ...(links === 'memory' ? ['in memory'] : []),
          ...(rt.bundles > 0 ? ['bundles'] : !bundles ? ['no bundles'] : []),
        ];
        const label = `${c.label} (${layout.join(', ')})`;
        console.log(
          `  ${label.padEnd(50)} ${(r.durationNs / 1e6).toFixed(2)} ms emulated in ${(out.wallMs / 1000).toFixed(1)} s: dilation ${Math.round(whole)} over the run, p50 window ${rt.dilation?.p50 ?? '—'} (min ${rt.dilation?.min ?? '—'}); ${(rt.promiseDatagrams / Math.max(1, rt.dataFrames)).toFixed(2)} promise datagrams per data frame (${rt.promiseDatagrams} / ${rt.dataFrames}); ${rt.bundles} bundles carrying ${rt.bundledDatagrams} datagrams; flows ${r.summary.flowsCompleted}/${r.summary.flowsTotal}`,
        );
        p50s.push(rt.dilation?.p50 ?? null);
        procs = rt.processes;
        rmSync(out.outDir, { recursive: true, force: true });
      }
      if (target) {
        const held = p50s.filter((x) => x !== null && x <= TARGET_LOCKSTEP_P50).length;
        console.log(
          `    lockstep dilation p50 on incast-8to1, ${procs} processes, timeScale 1, ${TARGET_LOCKSTEP_RUNS} runs: ${p50s.map((x) => x ?? '—').join(', ')} (target ≤ ${TARGET_LOCKSTEP_P50}; held in ${held} of ${TARGET_LOCKSTEP_RUNS})`,
        );
      }
    }
  }
}

/**
 * Issue 36's wallclock target (`--wallclock`; minutes): incast-8to1 on the local runtime at
 * timeScale 2000, TARGET_WALLCLOCK_RUNS runs one after another, each holding: late frames ≤ 1 in
 * 10^4 data frames, goodput and the largest switch queue within 3 % of virtual time's. Then one
 * run at timeScale 1000, to say where that stands.
 */
export async function benchWallclockTarget(): Promise<void> {
  const file = join(packageRoot(), 'scenarios', 'incast-8to1.yaml');
  const reference = (await runScenario({
    scenario: loadScenario(file),
    outDir: mkdtempSync(join(tmpdir(), 'rocelab-bench-wc-virtual-')),
    print: null,
  })) as RunOutput;
  rmSync(reference.outDir, { recursive: true, force: true });
  const v = reference.results.summary;
  console.log(
    `\nwallclock, local runtime, incast-8to1 (virtual time: goodput ${(v.goodputBps / 1e9).toFixed(2)} Gbit/s, max queue ${v.maxQueueBytes} B):`,
  );
  const scales = [
    ...Array.from({ length: TARGET_WALLCLOCK_RUNS }, () => TARGET_WALLCLOCK_SCALE),
    TARGET_WALLCLOCK_SCALE / 2,
  ];
  let held = 0;
  for (const [i, ts] of scales.entries()) {
    const out = await runWallclock(file, ts);
    if (out instanceof Error) {
      console.log(`  timeScale ${ts}: failed (${out.message})`);
      continue;
    }
    rmSync(out.outDir, { recursive: true, force: true });
    const r = out.results;
    const rt = r.realtime!;
    const late = rt.lateFrames / Math.max(1, rt.dataFrames);
    const goodput = r.summary.goodputBps / v.goodputBps - 1;
    const queue = r.summary.maxQueueBytes / v.maxQueueBytes - 1;
    const ok =
      late <= TARGET_LATE_FRACTION &&
      Math.abs(goodput) <= TARGET_WALLCLOCK_CLOSENESS &&
      Math.abs(queue) <= TARGET_WALLCLOCK_CLOSENESS &&
      r.summary.flowsCompleted === r.summary.flowsTotal;
    if (ok && i < TARGET_WALLCLOCK_RUNS) held++;
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
    console.log(
      `  timeScale ${String(ts).padStart(5)} run ${i < TARGET_WALLCLOCK_RUNS ? i + 1 : '-'}: ${ok ? 'holds' : 'does not hold'}; late frames ${rt.lateFrames} of ${rt.dataFrames} data frames (${(late * 1e4).toFixed(2)} per 10^4)${rt.worstLate === null ? '' : `, worst ${(rt.worstLate.maxLateNs / 1e3).toFixed(1)} µs`}; goodput ${(r.summary.goodputBps / 1e9).toFixed(2)} Gbit/s (${pct(goodput)}), max queue ${r.summary.maxQueueBytes} B (${pct(queue)}); flows ${r.summary.flowsCompleted}/${r.summary.flowsTotal}; GC over 1 ms ${rt.pauses.gcOver1Ms}, longest ${rt.pauses.gcMaxMs} ms; main threads at ${rt.mainThreadPriority ?? 'normal'} priority; wall ${(out.wallMs / 1000).toFixed(1)} s`,
    );
  }
  console.log(
    `  timeScale ${TARGET_WALLCLOCK_SCALE}: held in ${held} of ${TARGET_WALLCLOCK_RUNS} consecutive runs (target: all; late frames ≤ 1 per 10^4 data frames, goodput and max queue within ${100 * TARGET_WALLCLOCK_CLOSENESS} % of virtual time)`,
  );
}

/**
 * The lowest timeScale at which `sync: wallclock` holds (`--wallclock-search`; minutes of wall time): incast-8to1 and the mini testbed on the local
 * runtime, at rising timeScales until a run has no late frame (the condition under which a
 * wallclock run exits 0 without --allow-late), with what each failing run lacked.
 */
export async function benchWallclock(): Promise<void> {
  const cases = [
    {
      file: join(packageRoot(), 'scenarios', 'incast-8to1.yaml'),
      label: 'incast-8to1',
      scales: [1000, 2000, 5000, 10_000, 20_000, 50_000],
    },
    {
      file: join(packageRoot(), 'deploy', 'scenarios', 'mini-testbed.yaml'),
      label: 'mini testbed',
      scales: [1000, 2000, 4000, 8000, 16_000, 32_000],
    },
  ];
  console.log('\nwallclock, local runtime: the lowest timeScale with no late frame');
  for (const c of cases) {
    for (const ts of c.scales) {
      const out = await runWallclock(c.file, ts);
      if (out instanceof Error) {
        console.log(`  ${c.label.padEnd(14)} timeScale ${String(ts).padStart(6)}: failed (${out.message})`);
        continue;
      }
      const r = out.results;
      const rt = r.realtime!;
      const held = rt.worstLate === null;
      const late = held
        ? ''
        : `, ${rt.lateFrames} late frames, worst ${rt.worstLate!.node} ${(rt.worstLate!.maxLateNs / 1e3).toFixed(1)} µs emulated`;
      console.log(
        `  ${c.label.padEnd(14)} timeScale ${String(ts).padStart(6)}: ${held ? 'holds' : 'late'}; flows ${r.summary.flowsCompleted}/${r.summary.flowsTotal}, goodput ${(r.summary.goodputBps / 1e9).toFixed(1)} Gbit/s, ${r.summary.drops} drops${late}; resent ${rt.resentDatagrams}; longest GC ${rt.pauses?.gcMaxMs ?? '—'} ms; wall ${(out.wallMs / 1000).toFixed(1)} s`,
      );
      rmSync(out.outDir, { recursive: true, force: true });
      if (held) break;
    }
  }
}
