/**
 * Acceptance b: `--runtime netns` (root). A 4-to-1 DCQCN incast at 100 Gbps emulated, with a
 * timeScale that keeps the real links at 2 Mbit/s (≤ 100 Mbit/s; the local acceptance's scenario), runs in one namespace per node
 * over tc-shaped veths, in lockstep: every flow completes, and flows, ports and hosts are those of
 * virtual time exactly (summaries printed side by side); a tbf qdisc sits on both ends of every
 * link while it runs; afterwards no namespace, veth or node process remains. The README's
 * incast-8to1 at its own timeScale is identical to virtual time too. Also: Ctrl-C (SIGINT to
 * `rocelab run`) and a failing node leave nothing behind, and without root the CLI exits 2 with
 * one line.
 *
 * This suite needs root (CI runs as root). Without root it fails here, loudly, instead of skipping.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, parseScenarioText } from '../../src/config/load.js';
import { NetnsRun } from '../../src/runtime/netns/launcher.js';
import {
  checkNetnsAvailable,
  listNamespaces,
  namespacePids,
  qdiscShow,
  runCommand,
} from '../../src/runtime/netns/sys.js';
import { rootQdiscs } from '../../src/runtime/netns/tc.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { ensureBuilt, INCAST_4TO1, SPRAY_LEAFSPINE } from '../realtime/helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'rocelab.js');

// The scenario of the local acceptance test (test/realtime): 100 Gbps ÷ 50 000 = 2 Mbit/s on the
// real wire, a 4-to-1 incast of 150 KB per sender.
const INCAST = INCAST_4TO1;
const TIME_SCALE = parseScenarioText(INCAST, { file: 'x.yaml', dir: '.' }).timeScale;

const tmp = mkdtempSync(join(tmpdir(), 'rocelab-netns-test-'));
// The non-root check reads the scenario as nobody.
chmodSync(tmp, 0o755);
// Node processes run the compiled dist/.
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function rootVeths(): string[] {
  return runCommand('ip', ['-o', 'link', 'show', 'type', 'veth'])
    .stdout.split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split(':')[1].trim().split('@')[0])
    .sort();
}

/** Running and not a zombie. */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function ours(prefix: string): string[] {
  return listNamespaces().filter((n) => n.startsWith(`${prefix}-`));
}

function sideBySide(v: Results, n: Results): string {
  const row = (k: string, a: string, b: string, d = '') =>
    `  ${k.padEnd(20)}${a.padStart(16)}${b.padStart(16)}${d.padStart(10)}`;
  const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)}%`;
  return [
    row('', 'virtual', 'netns', 'diff'),
    row(
      'flows completed',
      `${v.summary.flowsCompleted}/${v.summary.flowsTotal}`,
      `${n.summary.flowsCompleted}/${n.summary.flowsTotal}`,
    ),
    row(
      'goodput',
      `${(v.summary.goodputBps / 1e9).toFixed(2)} Gbps`,
      `${(n.summary.goodputBps / 1e9).toFixed(2)} Gbps`,
      pct(n.summary.goodputBps, v.summary.goodputBps),
    ),
    row(
      'max switch queue',
      `${(v.summary.maxQueueBytes / 1e3).toFixed(0)} KB`,
      `${(n.summary.maxQueueBytes / 1e3).toFixed(0)} KB`,
      pct(n.summary.maxQueueBytes, v.summary.maxQueueBytes),
    ),
    row('slowdown p50', String(v.summary.slowdownP50), String(n.summary.slowdownP50)),
    row('slowdown p99', String(v.summary.slowdownP99), String(n.summary.slowdownP99)),
    row(
      'CNPs (h5 sent)',
      String(v.hosts.find((h) => h.node === 'h5')?.cnpTx),
      String(n.hosts.find((h) => h.node === 'h5')?.cnpTx),
    ),
  ].join('\n');
}

describe('netns runtime (needs root)', () => {
  it('has root, ip netns and tc', () => {
    expect(
      () => checkNetnsAvailable(),
      'the netns suite needs root and iproute2 (CI runs it as root)',
    ).not.toThrow();
  });

  it('4-to-1 DCQCN incast: all flows complete, identical to virtual time; tbf on every link; nothing left', async () => {
    const scenario = parseScenarioText(INCAST, { file: 'netns-incast.yaml', dir: tmp });
    const virtual = runScenario({ scenario, outDir: join(tmp, 'virtual'), print: null }).results;
    expect(virtual.summary.flowsCompleted).toBe(4);
    const vethsBefore = rootVeths();

    /** One netns run, watched: qdiscs seen on link ends, node pids; then the cleanup checks. */
    const attempt = async (n: number) => {
      const run = NetnsRun.create({ scenario, outDir: join(tmp, `netns-${n}`), print: null });
      const ends = run.plan.links.flatMap((l) => [l.a, l.b]);
      expect(ends).toHaveLength(10);
      // Every link is shaped to 100 Gbps ÷ timeScale ≤ 100 Mbit/s.
      for (const l of run.plan.links) expect(l.rateBps / TIME_SCALE).toBeLessThanOrEqual(100e6);
      const seen = new Set<string>();
      const pids = new Set<number>();
      let polls = 0;
      let stop = false;
      const watcher = (async () => {
        while (!stop) {
          for (const e of ends) {
            const q = rootQdiscs(qdiscShow(e.ns));
            if (q.get(e.dev) === 'tbf') seen.add(`${e.ns}/${e.dev}`);
          }
          for (const p of run.coordinator.pids()) pids.add(p);
          polls++;
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      let out: Awaited<ReturnType<NetnsRun['run']>>;
      try {
        out = await run.run();
      } finally {
        stop = true;
        await watcher;
      }
      const netns = out.results;
      console.log(
        `netns acceptance (timeScale ${TIME_SCALE}, links ${100e9 / TIME_SCALE / 1e6} Mbit/s real), run ${n}:\n${sideBySide(virtual, netns)}`,
      );
      console.log(
        `  qdiscs: tbf seen on ${seen.size}/${ends.length} link ends over ${polls} polls; ${pids.size} node processes`,
      );
      if (netns.warnings.length > 0) console.log(`  warnings: ${netns.warnings.join('; ')}`);

      expect(netns.runtime).toBe('netns');
      expect(JSON.parse(readFileSync(out.resultsPath, 'utf8')).runtime).toBe('netns');
      expect(netns.summary.flowsTotal).toBe(4);
      expect(netns.summary.flowsCompleted).toBe(4);
      expect([...seen].sort()).toEqual(ends.map((e) => `${e.ns}/${e.dev}`).sort());
      expect(pids.size).toBe(6);
      // Nothing left: namespaces (and with them veths and qdiscs), processes, root-namespace veths.
      expect(ours(run.plan.runPrefix)).toEqual([]);
      for (const p of pids) expect(running(p), `node process ${p}`).toBe(false);
      expect(rootVeths()).toEqual(vethsBefore);
      return netns;
    };

    const netns = await attempt(1);
    expect(netns.realtime?.sync).toBe('lockstep');
    expect(netns.flows).toEqual(virtual.flows);
    expect(netns.ports).toEqual(virtual.ports);
    expect(netns.hosts).toEqual(virtual.hosts);
  });

  it('incast-8to1 at its own timeScale in namespaces: every flow completes, identical to virtual time', async () => {
    const scenario = loadScenario(join(ROOT, 'scenarios', 'incast-8to1.yaml'));
    const virtual = runScenario({ scenario, outDir: join(tmp, 'virtual-8'), print: null }).results;
    const out = await NetnsRun.create({ scenario, outDir: join(tmp, 'netns-8'), print: null }).run();
    const r = out.results;
    const d = r.realtime?.dilation;
    console.log(
      `netns incast-8to1 (timeScale ${r.timeScale}): ${r.summary.flowsCompleted}/8 flows, wall ${(out.wallMs / 1000).toFixed(1)} s, dilation p50 ${d?.p50} (${d?.min}–${d?.max}), ${r.realtime?.datagrams} datagrams`,
    );
    expect(r.summary.flowsCompleted).toBe(8);
    expect(r.flows).toEqual(virtual.flows);
    expect(r.ports).toEqual(virtual.ports);
    expect(r.hosts).toEqual(virtual.hosts);
  });

  it('spraying (reps) and trimming over selective repeat on a leaf-spine in namespaces: identical to virtual time', async () => {
    // The reference's 4 KB MTU: the launcher sizes the veths for the largest frame and tells the
    // nodes (docs/netns.md "MTU").
    const scenario = parseScenarioText(SPRAY_LEAFSPINE, { file: 'spray.yaml', dir: '.' });
    expect(scenario.defaults.nic.mtuBytes).toBe(4096);
    const virtual = runScenario({ scenario, outDir: join(tmp, 'virtual-spray'), print: null }).results;
    const out = await NetnsRun.create({ scenario, outDir: join(tmp, 'netns-spray'), print: null }).run();
    const r = out.results;
    console.log(
      `netns spray + trim leaf-spine: ${r.summary.flowsCompleted}/7 flows, ${r.summary.trims} trims, wall ${(out.wallMs / 1000).toFixed(1)} s, ${r.realtime?.datagrams} datagrams`,
    );
    expect(r.summary.flowsCompleted).toBe(7);
    expect(r.warnings.filter((w) => /not be encoded/.test(w))).toEqual([]);
    expect(virtual.hosts.every((h) => h.multipath !== undefined)).toBe(true);
    expect(virtual.summary.trims).toBeGreaterThan(0);
    expect(r.summary).toEqual(virtual.summary);
    expect(r.flows).toEqual(virtual.flows);
    expect(r.ports).toEqual(virtual.ports);
    expect(r.hosts).toEqual(virtual.hosts);
  });

  it('a node that dies fails the run and still leaves nothing behind', async () => {
    const scenario = parseScenarioText(INCAST, { file: 'netns-incast.yaml', dir: tmp });
    const run = NetnsRun.create({ scenario, outDir: join(tmp, 'netns-fail'), print: null });
    const p = run.run();
    // Kill h5's process from outside the launcher once every node runs (an unexpected death).
    const until = Date.now() + 30_000;
    while (run.coordinator.pids().length < 6 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    const pids = run.coordinator.pids();
    expect(pids).toHaveLength(6);
    const h5 = run.plan.namespaces.get('h5')!;
    // The node's process may not be in its namespace yet when the launcher has its pid. And an
    // empty list must never become pid 0: process.kill(0) signals this whole process group
    // (vitest and the CI script with it, which then died without a word).
    let inside = namespacePids(h5);
    while (inside.length === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      inside = namespacePids(h5);
    }
    expect(inside.length).toBeGreaterThan(0);
    process.kill(inside[0], 'SIGKILL');
    await expect(p).rejects.toThrow(/h5/);
    expect(ours(run.plan.runPrefix)).toEqual([]);
    for (const pid of pids) expect(running(pid), `node process ${pid}`).toBe(false);
  });

  it('Ctrl-C on `rocelab run --runtime netns` removes namespaces and processes; without root it exits 2 with one line', async () => {
    const file = join(tmp, 'incast.yaml');
    // Long flows, so the run is surely still going when the signal comes.
    writeFileSync(file, INCAST.replace(/size: \w+/, 'size: 50MB'));
    const before = new Set(listNamespaces());
    const child = spawn(
      process.execPath,
      [CLI, 'run', file, '--runtime', 'netns', '--out', join(tmp, 'cli')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    // Wait for this run's namespaces and node processes.
    let mine: string[] = [];
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      mine = listNamespaces().filter((n) => !before.has(n) && n.startsWith(`rl-${child.pid}-`));
      if (mine.length === 6 && mine.every((n) => runCommand('ip', ['netns', 'pids', n]).stdout.trim() !== ''))
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(mine, stderr).toHaveLength(6);
    const pids = mine.flatMap((n) =>
      runCommand('ip', ['netns', 'pids', n]).stdout.trim().split('\n').map(Number),
    );
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).not.toBe(0);
    expect(listNamespaces().filter((n) => n.startsWith(`rl-${child.pid}-`))).toEqual([]);
    for (const p of pids) expect(running(p), `node process ${p}`).toBe(false);

    // Not root: one line, exit 2 (runuser drops to nobody).
    const r = spawnSync(
      'runuser',
      [
        '-u',
        'nobody',
        '--',
        process.execPath,
        CLI,
        'run',
        file,
        '--runtime',
        'netns',
        '--out',
        join(tmpdir(), 'rocelab-nobody'),
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/netns.*root/);
  });
});
