/** Shared helpers of the real-time suite: a fresh build for the child processes, scenarios, process checks. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadScenario } from '../../src/config/load.js';
import type { Scenario } from '../../src/config/scenario.js';
import type { Results } from '../../src/stats/results.js';

export const ROOT = join(import.meta.dirname, '..', '..');

function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSourceMs(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Node processes run the compiled dist/ (as `rocelab node` does). `npm test` builds first; a
 * direct `vitest run test/realtime` rebuilds here when a source is newer than the build.
 */
export function ensureBuilt(): void {
  const entry = join(ROOT, 'dist', 'src', 'runtime', 'real', 'node-main.js');
  const built = existsSync(entry) ? statSync(entry).mtimeMs : 0;
  const newest = Math.max(...['src', 'nic', 'switch'].map((d) => newestSourceMs(join(ROOT, d))));
  if (built >= newest) return;
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: ROOT, stdio: 'pipe' },
    );
  } catch {
    // tsc still emits when some other file has type errors; only a missing entry is fatal
    if (!existsSync(entry)) throw new Error('the build did not produce dist/src/runtime/real/node-main.js');
  }
}

export function scenario(yaml: string, overrides: string[] = []): Scenario {
  return loadScenario({ text: yaml, file: 'test.yaml', dir: ROOT }, overrides);
}

export function tmp(prefix = 'rocelab-rt-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Wait until none of `pids` is alive (children reaped); returns the survivors. */
export async function survivors(pids: number[], waitMs = 3000): Promise<number[]> {
  const t0 = Date.now();
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() - t0 < waitMs) {
    await new Promise((r) => setTimeout(r, 50));
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** 4-to-1 incast on one 100 Gbps switch (acceptance a), DCQCN. */
/**
 * Spraying and trimming over selective repeat (issue 34): a 2-leaf, 2-spine leaf-spine (every
 * cross-leaf flow has two paths), a permutation plus a 3-to-1 incast under DCQCN, REPS over 16
 * entropies, 4 KB MTU; the data priority is lossy and trims (the trim defaults' RED marks ACKs),
 * so REPS, DCQCN, SACK coalescing, NACKs of trimmed packets and their resends all act.
 */
export const SPRAY_LEAFSPINE = `
name: rt-spray-leafspine
seed: 3
duration: 2ms
timeScale: 50000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 4096, transport: rocev2-sr, paths: { policy: reps, count: 16 } }
  switch: { buffer: 32MB, pfc: { priorities: [4] }, trim: true }
topology: { kind: leafspine, leaves: 2, spines: 2, hostsPerLeaf: 2 }
workload:
  - { kind: permutation, size: 300KB }
  - { kind: incast, senders: [h1, h2, h3], receiver: h4, size: 100KB, start: 20us }
`;

/**
 * UET's congestion controls over spraying (issue 35): a 2-leaf, 2-spine leaf-spine, transport uet
 * with the reference's default path policy (mixed, 16 entropies), trimming and no PFC. NSCC on
 * every sender but h3 (cc none); h4 receives with RCCC, so its incast runs NSCC + RCCC (h1, h2)
 * and RCCC alone (h3), while the permutation's other flows run NSCC alone. ECN marks, trims, NACKs,
 * pulls and the speculative start all act.
 */
export const UET_CC_LEAFSPINE = `
name: rt-uet-cc
seed: 5
duration: 2ms
timeScale: 50000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: nscc, mtu: 4096, transport: uet, paths: { policy: mixed, count: 16 } }
  switch: { pfc: false, trim: true }
hosts:
  h3: { cc: none }
  h4: { rccc: true }
topology: { kind: leafspine, leaves: 2, spines: 2, hostsPerLeaf: 2 }
workload:
  - { kind: permutation, size: 300KB }
  - { kind: incast, senders: [h1, h2, h3], receiver: h4, size: 200KB, start: 20us }
`;

/** The run does what it is meant to exercise, or its identity would prove little. */
/** What a real run of UET_CC_LEAFSPINE must give exactly as virtual time does. */
export const uetCcSections = (r: Results) => ({
  flows: r.flows,
  ports: r.ports,
  hosts: r.hosts,
  summary: r.summary,
  series: r.series,
});

export function expectUetCcActs(v: Results): void {
  expect(v.summary.flowsCompleted).toBe(7);
  expect(new Set(v.flows.map((f) => f.cc))).toEqual(new Set(['nscc', 'none']));
  // NSCC sees ECN; spraying uses several entropies per sender.
  expect(v.ports.reduce((a, p) => a + p.ecnMarked, 0)).toBeGreaterThan(0);
  const mp = v.hosts.map((h) => h.multipath!);
  expect(mp.every((m) => m.entropyTxBytes.filter((b) => b > 0).length > 1)).toBe(true);
  // RCCC: h4 pulls, and its senders (h1, h2 with NSCC, h3 alone) receive them.
  const host = (n: string) => v.hosts.find((h) => h.node === n)!.multipath!;
  expect(host('h4').pullTx).toBeGreaterThan(0);
  for (const n of ['h1', 'h2', 'h3']) expect(host(n).pullRx).toBeGreaterThan(0);
  // Trims at h4's ToR come back as NACKs and resends.
  expect(v.summary.trims).toBeGreaterThan(0);
  expect(mp.reduce((a, m) => a + m.nackRx, 0)).toBe(v.summary.trims);
}

export const INCAST_4TO1 = `
name: rt-incast-4to1
seed: 1
duration: 2ms
timeScale: 50000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 32MB, ecn: { kmin: 100KB, kmax: 400KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 5 }
workload:
  - { kind: incast, senders: [h1..h4], receiver: h5, size: 150KB, start: 0 }
`;

/** Two collective jobs for the real runtimes (docs/collectives.md, RT-LOCAL). */
export const COLLECTIVES_RT = join(ROOT, 'scenarios', 'papers', 'collectives', 'rt-two-jobs.yaml');
