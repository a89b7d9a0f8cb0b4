/**
 * Virtual-runtime throughput: wall and CPU time, events/s and simulated packet-hops/s of the
 * emulation on the shipped incast and WebSearch scenarios, each run in a process of its own
 * (bench/virtual-child.ts), with the ratio to the HPCC ns-3 simulator (optimized build) on the
 * same kind of run measured on this class of machine (2 cores):
 * - websearch-leafspine (16 hosts, WebSearch 50 %, ~600 flows, DCQCN): ns-3 takes 12.0 s;
 * - websearch-fattree320 (the HPCC 320-host fat tree, ~11 k flows): ns-3 takes 1,230 s. Opt-in
 *   (minutes of CPU): `npm run bench -- virtual --fattree`, or ROCELAB_BENCH_FATTREE=1.
 *
 * The same run also builds the engine of an earlier commit (PREVIOUS_ENGINE, or
 * `--previous <rev>`; `--previous none` skips it) in a temporary git worktree and runs
 * websearch-leafspine on both, alternately (`--pairs N`, default 1), so the speed-up is a ratio
 * measured side by side on the same machine at the same time, not against a figure from another
 * day.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildFigures } from './virtual-child.js';

/** The landed commit before the engine work of issue 19: the baseline of the side-by-side ratio. */
const PREVIOUS_ENGINE = 'fe29abc';
/** ns-3 (HPCC code line, ns-3.39, -O3 -march=native) wall times on this class of machine. */
const NS3_WALL_S: Record<string, number> = {
  'websearch-leafspine.yaml': 12.0,
  'websearch-fattree320.yaml': 1230,
};

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

function describe(label: string, f: ChildFigures): string {
  return (
    `${label.padEnd(26)} flows ${f.flowsCompleted}/${f.flowsTotal}  wall ${f.wallS.toFixed(2)} s  ` +
    `cpu ${f.cpuS.toFixed(2)} s  ${(f.events / f.wallS / 1e6).toFixed(2)} M events/s  ` +
    `${(f.packetHops / f.wallS / 1e6).toFixed(2)} M packet-hops/s  rss ${(f.maxRssBytes / 2 ** 20).toFixed(0)} MB ` +
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

function sideBySide(rev: string, pairs: number): void {
  const scenario = 'websearch-leafspine.yaml';
  console.log(`\nside by side with the engine of ${rev} on ${scenario} (${pairs} pair(s), alternating):`);
  const prev = buildPrevious(rev);
  if (prev === null) return;
  try {
    const wallRatios: number[] = [];
    const cpuRatios: number[] = [];
    for (let i = 0; i < pairs; i++) {
      const before = runChild(prev.root, scenario);
      const after = runChild(ROOT, scenario);
      if (before.events !== after.events || before.packetHops !== after.packetHops)
        console.log(`  note: the runs differ (${before.events} vs ${after.events} events)`);
      console.log(describe(`  ${rev}`, before));
      console.log(describe('  this checkout', after));
      wallRatios.push(before.wallS / after.wallS);
      cpuRatios.push(before.cpuS / after.cpuS);
    }
    console.log(
      `  speed-up over ${rev}: ${median(wallRatios).toFixed(2)}x by wall time, ${median(cpuRatios).toFixed(2)}x by CPU time` +
        (pairs > 1 ? ', medians of the pairs' : ''),
    );
  } finally {
    prev.cleanup();
  }
}

export async function benchVirtual(args: string[] = []): Promise<void> {
  const fattree = args.includes('--fattree') || process.env.ROCELAB_BENCH_FATTREE === '1';
  for (const f of ['incast-8to1.yaml', 'websearch-leafspine.yaml']) runScenarioBench(f);
  if (fattree) runScenarioBench('websearch-fattree320.yaml');
  else console.log('(the 320-host fat tree is opt-in: npm run bench -- virtual --fattree)');
  const rev = option(args, '--previous') ?? PREVIOUS_ENGINE;
  const pairs = Math.max(1, Number(option(args, '--pairs') ?? 1) || 1);
  if (rev !== 'none' && existsSync(join(ROOT, '.git'))) sideBySide(rev, pairs);
}
