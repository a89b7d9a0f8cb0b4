/**
 * Virtual-runtime throughput: wall and CPU time, events/s, simulated packet-hops/s and peak RSS of
 * the emulation on the shipped incast and WebSearch scenarios, each run in a process of its own
 * (bench/virtual-child.ts), with the ratio to the HPCC ns-3 simulator (optimized build) on the
 * same kind of run measured on this class of machine (2 cores):
 * - websearch-leafspine (16 hosts, WebSearch 50 %, ~600 flows, DCQCN): ns-3 takes 12.0 s;
 * - websearch-fattree320 (the HPCC 320-host fat tree, ~11 k flows): ns-3 takes 1,230 s. Opt-in
 *   (minutes of CPU): `npm run bench -- virtual --fattree`, or ROCELAB_BENCH_FATTREE=1.
 * - websearch-fattree1024 (k = 16, 1024 hosts, WebSearch 30 % for 5 ms): opt-in with
 *   `--fattree1024` (ROCELAB_BENCH_FATTREE1024=1), this checkout only, with what a frame, a QP
 *   and a port cost in memory (a heap census of its first millisecond, scripts/heap-census.mjs).
 *
 * The same run also builds the engine of an earlier commit (PREVIOUS_ENGINE, or
 * `--previous <rev>`; `--previous none` skips it) in a temporary git worktree and runs
 * websearch-leafspine (and with `--fattree` the fat tree) on both, alternately (`--pairs N`,
 * default 1), so the speed-up is a ratio measured side by side on the same machine at the same
 * time, not against a figure from another day. With `--fattree` it prints issue 36's targets:
 * the fat tree ≥ 1.6× faster than PREVIOUS_ENGINE, peak RSS ≤ 450 MB, and its events/s ≥ 60 %
 * of the leaf-spine's. Timings mean something only on a quiet machine (docs/performance.md).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildFigures } from './virtual-child.js';

/**
 * main when issue 36 (frames off the V8 heap) started: the baseline of its side-by-side ratios.
 * (Before it, fe29abc, the landed commit before the engine work of issue 19.)
 */
const PREVIOUS_ENGINE = '2622e3d';
/** ns-3 (HPCC code line, ns-3.39, -O3 -march=native) wall times on this class of machine. */
const NS3_WALL_S: Record<string, number> = {
  'websearch-leafspine.yaml': 12.0,
  'websearch-fattree320.yaml': 1230,
};
const LEAFSPINE = 'websearch-leafspine.yaml';
const FATTREE = 'websearch-fattree320.yaml';
const FATTREE1024 = 'websearch-fattree1024.yaml';
/** Issue 36's targets for the fat tree. */
const TARGET_SPEEDUP = 1.6;
const TARGET_RSS_MB = 450;
const TARGET_EVENTS_FRACTION = 0.6;
const TARGET_1024_WALL_S = 20 * 60;
const TARGET_1024_RSS_MB = 2048;

const ROOT = join(import.meta.dirname, '../..');

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Run `scenario` with the engine built at `root`, in a child process. */
function runChild(root: string, scenario: string): ChildFigures {
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'dist/bench/virtual-child.js'), root, join(ROOT, 'scenarios', scenario)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (r.status !== 0) throw new Error(`bench run of ${scenario} failed: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as ChildFigures;
}

const mb = (bytes: number) => bytes / 2 ** 20;
const eventsPerS = (f: ChildFigures) => f.events / f.wallS;

function describe(label: string, f: ChildFigures): string {
  return (
    `${label.padEnd(28)} flows ${f.flowsCompleted}/${f.flowsTotal}  wall ${f.wallS.toFixed(2)} s  ` +
    `cpu ${f.cpuS.toFixed(2)} s  ${(eventsPerS(f) / 1e6).toFixed(2)} M events/s  ` +
    `${(f.packetHops / f.wallS / 1e6).toFixed(2)} M packet-hops/s  peak rss ${mb(f.maxRssBytes).toFixed(0)} MB ` +
    `(${f.packetHops} hops, ${f.events} events)`
  );
}

function runScenarioBench(scenario: string): ChildFigures {
  const f = runChild(ROOT, scenario);
  console.log(describe(scenario, f));
  const ns3 = NS3_WALL_S[scenario];
  if (ns3 !== undefined) {
    console.log(
      `  speed vs ns-3 (${ns3} s wall): ${(ns3 / f.wallS).toFixed(2)}x by wall time, ${(ns3 / f.cpuS).toFixed(2)}x by CPU time`,
    );
  }
  return f;
}

/**
 * Build `rev` in a temporary worktree (sharing this checkout's node_modules) and return its
 * root, or null with a note when that is impossible (no git history, unknown commit).
 */
function buildPrevious(rev: string): { root: string; cleanup: () => void } | null {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-prev-engine-'));
  const wt = join(dir, 'wt');
  const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { stdio: 'pipe' });
  const cleanup = () => {
    try {
      git('worktree', 'remove', '--force', wt);
    } catch {
      // Not registered (the add failed): the directory below is all there is.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    git('worktree', 'add', '--detach', wt, rev);
    symlinkSync(join(ROOT, 'node_modules'), join(wt, 'node_modules'), 'dir');
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(wt, 'tsconfig.build.json')],
      { stdio: 'pipe' },
    );
    return { root: wt, cleanup };
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    console.log(`  previous engine ${rev}: cannot build it here (${msg}); side-by-side ratio skipped`);
    cleanup();
    return null;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs of one scenario on both builds, pair by pair. */
interface Pairs {
  before: ChildFigures[];
  after: ChildFigures[];
}

function sideBySide(rev: string, pairs: number, fattree: boolean): void {
  const scenarios = fattree ? [LEAFSPINE, FATTREE] : [LEAFSPINE];
  console.log(
    `\nside by side with the engine of ${rev} on ${scenarios.join(' and ')} (${pairs} pair(s), alternating):`,
  );
  const prev = buildPrevious(rev);
  if (prev === null) return;
  const runs = new Map<string, Pairs>(scenarios.map((s) => [s, { before: [], after: [] }]));
  try {
    for (let i = 0; i < pairs; i++) {
      for (const scenario of scenarios) {
        const before = runChild(prev.root, scenario);
        const after = runChild(ROOT, scenario);
        if (before.events !== after.events || before.packetHops !== after.packetHops)
          console.log(`  note: the runs differ (${before.events} vs ${after.events} events)`);
        console.log(describe(`  ${scenario.replace('.yaml', '')} ${rev}`, before));
        console.log(describe(`  ${scenario.replace('.yaml', '')} this checkout`, after));
        runs.get(scenario)!.before.push(before);
        runs.get(scenario)!.after.push(after);
      }
    }
  } finally {
    prev.cleanup();
  }
  const many = pairs > 1 ? ', medians of the pairs' : '';
  for (const scenario of scenarios) {
    const r = runs.get(scenario)!;
    const wall = median(r.before.map((b, i) => b.wallS / r.after[i].wallS));
    const cpu = median(r.before.map((b, i) => b.cpuS / r.after[i].cpuS));
    const target = scenario === FATTREE ? ` (target ≥ ${TARGET_SPEEDUP}x)` : '';
    console.log(
      `  ${scenario}: speed-up over ${rev} ${wall.toFixed(2)}x by wall time${target}, ${cpu.toFixed(2)}x by CPU time${many}`,
    );
    const ns3 = NS3_WALL_S[scenario];
    if (ns3 !== undefined)
      console.log(
        `    this checkout vs ns-3 (${ns3} s wall): ${(ns3 / median(r.after.map((f) => f.wallS))).toFixed(2)}x by wall time`,
      );
  }
  if (!fattree) return;
  const ls = runs.get(LEAFSPINE)!;
  const ft = runs.get(FATTREE)!;
  const fraction = (which: 'before' | 'after') =>
    median(ft[which].map((f, i) => eventsPerS(f) / eventsPerS(ls[which][i])));
  const rss = median(ft.after.map((f) => mb(f.maxRssBytes)));
  console.log(
    `  fat tree events/s ÷ leaf-spine events/s: ${(100 * fraction('after')).toFixed(0)} % (target ≥ ${100 * TARGET_EVENTS_FRACTION} %; ${rev}: ${(100 * fraction('before')).toFixed(0)} %)`,
  );
  console.log(
    `  fat tree peak RSS: ${rss.toFixed(0)} MB (target ≤ ${TARGET_RSS_MB} MB; ${rev}: ${median(ft.before.map((f) => mb(f.maxRssBytes))).toFixed(0)} MB)`,
  );
}

/**
 * What a frame, a QP and a port cost on the 1024-host fat tree: a heap snapshot after its first
 * millisecond (bench/anatomy.ts) read by scripts/heap-census.mjs. Minutes, and a few GB of
 * memory for the snapshot's parse.
 */
function census1024(): void {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-bench-census-'));
  try {
    const snapshot = join(dir, 'cut.heapsnapshot');
    const cut = spawnSync(
      process.execPath,
      [
        '--expose-gc',
        join(ROOT, 'dist/bench/anatomy.js'),
        join(ROOT, 'scenarios', FATTREE1024),
        '--from',
        '0.9ms',
        '--to',
        '1ms',
        '--snapshot',
        snapshot,
      ],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (cut.status !== 0) throw new Error(`census run failed: ${cut.stderr.trim()}`);
    const run = JSON.parse(cut.stdout) as { framesInFreeList: number; framesOnLinksAtEnd: number };
    const c = spawnSync(process.execPath, [join(ROOT, 'scripts/heap-census.mjs'), snapshot, '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (c.status !== 0) throw new Error(`heap census failed: ${c.stderr.trim()}`);
    const h = JSON.parse(c.stdout) as HeapCensus;
    console.log(
      `  at 1 ms: ${h.frames.count - run.framesInFreeList} frames live (${run.framesOnLinksAtEnd} on links, ` +
        `${run.framesInFreeList} more kept for reuse): ${h.frames.bytesPerFrame.toFixed(0)} B per frame ` +
        `(object ${h.frames.objectBytes.toFixed(0)}, boxed numbers ${h.frames.numberBytes.toFixed(0)}, sub-objects ${h.frames.subObjectBytes.toFixed(0)})`,
    );
    for (const k of ['Qp', 'Port', 'Link'] as const) {
      const x = h.classes[k];
      if (x !== undefined)
        console.log(
          `  per ${k === 'Qp' ? 'QP' : k === 'Port' ? 'switch port' : 'link'}: ${x.ownedBytes.toFixed(0)} B (${x.count} of them; the object itself ${x.selfBytes.toFixed(0)} B)`,
        );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** scripts/heap-census.mjs --json. */
export interface HeapCensus {
  frames: {
    count: number;
    objectBytes: number;
    numberBytes: number;
    subObjectBytes: number;
    bytesPerFrame: number;
  };
  classes: Record<string, { count: number; selfBytes: number; ownedBytes: number }>;
}

function bench1024(): void {
  console.log(`\n${FATTREE1024} (this checkout; issue 36: ≤ 20 min and ≤ 2 GB peak RSS here):`);
  const f = runChild(ROOT, FATTREE1024);
  console.log(describe(`  ${FATTREE1024.replace('.yaml', '')}`, f));
  console.log(
    `  wall ${(f.wallS / 60).toFixed(1)} min (target ≤ ${TARGET_1024_WALL_S / 60}), peak RSS ${mb(f.maxRssBytes).toFixed(0)} MB (target ≤ ${TARGET_1024_RSS_MB})`,
  );
  census1024();
}

export async function benchVirtual(args: string[] = []): Promise<void> {
  const fattree = args.includes('--fattree') || process.env.ROCELAB_BENCH_FATTREE === '1';
  const big = args.includes('--fattree1024') || process.env.ROCELAB_BENCH_FATTREE1024 === '1';
  const rev = option(args, '--previous') ?? PREVIOUS_ENGINE;
  const pairs = Math.max(1, Number(option(args, '--pairs') ?? 1) || 1);
  const withPrevious = rev !== 'none' && existsSync(join(ROOT, '.git'));
  for (const f of ['incast-8to1.yaml', LEAFSPINE]) runScenarioBench(f);
  // Side by side, the fat tree runs there (minutes each); alone only without a previous engine.
  if (fattree && !withPrevious) runScenarioBench(FATTREE);
  if (!fattree) console.log('(the 320-host fat tree is opt-in: npm run bench -- virtual --fattree)');
  if (withPrevious) sideBySide(rev, pairs, fattree);
  if (big) bench1024();
  else console.log('(the 1024-host fat tree is opt-in: npm run bench -- virtual --fattree1024)');
}
