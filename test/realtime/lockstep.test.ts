/**
 * Lockstep (docs/realtime.md): real-time runs that are exact under any load.
 * - The README's incast-8to1 at its own timeScale 1000 completes every flow, and its flows, ports
 *   and hosts are identical to virtual time's.
 * - Overload: at timeScale 10 (a 100 Gbit/s link would need 10 Gbit/s of real datagrams per
 *   port) the results are the same, and the run reports the dilation it achieved instead (> 10).
 * - Wallclock sync at an impossible timeScale fails with exit status 3 and one line; with
 *   --allow-late it writes its results.
 * Each run prints its wall time and dilation; the machine's load shows in those numbers, never in
 * what the runs compute.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/app.js';
import { loadScenario } from '../../src/config/load.js';
import { LocalRun } from '../../src/runtime/local/launcher.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { ensureBuilt, INCAST_4TO1, ROOT, SPRAY_LEAFSPINE, scenario, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const INCAST = join(ROOT, 'scenarios', 'incast-8to1.yaml');

function sections(r: Results) {
  return { flows: r.flows, ports: r.ports, hosts: r.hosts };
}

function describeRun(label: string, r: Results, wallMs: number): string {
  const rt = r.realtime!;
  const d = rt.dilation;
  return `${label}: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, goodput ${(r.summary.goodputBps / 1e9).toFixed(2)} Gbit/s, wall ${(wallMs / 1000).toFixed(1)} s, dilation p50 ${d?.p50} (min ${d?.min}, max ${d?.max}), ${rt.promiseDatagrams} promise datagrams / ${rt.dataFrames} data frames`;
}

describe('lockstep', () => {
  let virtual: Results;

  beforeAll(() => {
    virtual = runScenario({ scenario: loadScenario(INCAST), outDir: tmp(), print: null }).results;
  });

  it('incast-8to1 at its own timeScale: every flow completes, flows/ports/hosts identical to virtual time', async () => {
    const out = await runScenario({
      scenario: loadScenario(INCAST),
      runtime: 'local',
      outDir: tmp(),
      print: null,
    });
    const r = out.results;
    console.log(describeRun('incast-8to1, local, timeScale 1000', r, out.wallMs));
    expect(r.summary.flowsCompleted).toBe(8);
    expect(r.realtime?.sync).toBe('lockstep');
    // processes: auto, the default: nodes share as many processes as the machine has cores.
    expect(r.realtime?.processes).toBe(Math.min(10, availableParallelism()));
    expect(sections(r)).toEqual(sections(virtual));
    expect(r.warnings).toEqual(virtual.warnings);
  });

  it('overload, a process per node: at timeScale 10 the same results, and the achieved dilation (> 10) is reported', async () => {
    const out = await runScenario({
      scenario: loadScenario(INCAST, ['timeScale=10', 'processes=per-node']),
      runtime: 'local',
      outDir: tmp(),
      print: null,
    });
    const r = out.results;
    console.log(describeRun('incast-8to1, local, timeScale 10', r, out.wallMs));
    expect(sections(r)).toEqual(sections(virtual));
    expect(r.timeScale).toBe(10);
    expect(r.realtime?.processes).toBe(10);
    expect(r.realtime?.dilation?.p50).toBeGreaterThan(10);
    // A whole-run check too: wall time over emulated time.
    expect((out.wallMs * 1e6) / r.durationNs).toBeGreaterThan(10);
  });

  it('on a 1500-byte path losing 1 datagram in 50: the overlay resends them, and the results are still identical', async () => {
    const s = scenario(INCAST_4TO1);
    const v = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const run = await LocalRun.create({
      scenario: s,
      outDir: tmp(),
      print: null,
      metricsPort: null,
      // A 1500-byte path, as on a veth or in docker: trains fill their datagrams and split.
      env: { DROP_EVERY: '50', MTU: '1500' },
    });
    const out = await run.run();
    const r = out.results;
    console.log(
      `${describeRun('4-to-1, 1 datagram in 50 lost', r, out.wallMs)}; ${r.realtime?.resentDatagrams} resent`,
    );
    expect(r.realtime?.resentDatagrams).toBeGreaterThan(0);
    expect(r.realtime?.trainDatagrams).toBeGreaterThan(0);
    expect(sections(r)).toEqual(sections(v));
    expect(r.realtime?.linksDown).toEqual([]);
  });

  it('spraying (reps) and trimming over selective repeat on a leaf-spine: flows, ports, hosts (with multipath), summary identical', async () => {
    const s = scenario(SPRAY_LEAFSPINE);
    const v = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const out = await runScenario({ scenario: s, runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    console.log(describeRun('spray + trim leaf-spine, local', r, out.wallMs));
    expect(r.summary.flowsCompleted).toBe(7);
    // The run does spray, reorder, trim and NACK, or the identity would prove little.
    const mp = v.hosts.map((h) => h.multipath!);
    expect(mp.every((m) => m.entropyTxBytes.filter((b) => b > 0).length > 1)).toBe(true);
    expect(Math.max(...mp.map((m) => m.reorderMaxPackets))).toBeGreaterThan(0);
    expect(v.summary.trims).toBeGreaterThan(0);
    expect(mp.reduce((a, m) => a + m.nackRx, 0)).toBe(v.summary.trims);
    expect(sections(r)).toEqual(sections(v));
    expect(r.summary).toEqual(v.summary);
  });

  it('--cc reaches every node: a 4-to-1 incast run under hpcc (INT on every hop, echoed in ACKs) is identical to virtual time under hpcc', async () => {
    // The scenario says dcqcn. The launcher once applied --cc to its own setup only: its results
    // named hpcc while every node ran dcqcn.
    const s = scenario(INCAST_4TO1);
    const v = runScenario({ scenario: s, cc: 'hpcc', outDir: tmp(), print: null }).results;
    const out = await runScenario({ scenario: s, cc: 'hpcc', runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    console.log(describeRun('4-to-1 under --cc hpcc, local', r, out.wallMs));
    expect(Object.values(r.ccByHost)).toEqual(Array(5).fill('hpcc'));
    // The two algorithms differ on this incast, or the identity would not show which one ran.
    const dcqcn = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    expect(dcqcn.flows.map((f) => f.fctNs)).not.toEqual(v.flows.map((f) => f.fctNs));
    expect(sections(r)).toEqual(sections(v));
  });

  it('frames poisoned once given back (POISON_FRAMES=1, every node): spraying and trimming over SR, and an incast under hpcc, still identical to virtual time', async () => {
    // Real switches recycle a frame once sent, real hosts once sent or handled: a read after
    // that would compute with NaN (test/runtime/frame-poisoning.test.ts) and differ.
    for (const [s, cc] of [
      [scenario(SPRAY_LEAFSPINE), undefined],
      [scenario(INCAST_4TO1), 'hpcc'],
    ] as const) {
      const v = runScenario({ scenario: s, cc, outDir: tmp(), print: null }).results;
      const run = await LocalRun.create({
        scenario: s,
        ...(cc !== undefined ? { cc } : {}),
        outDir: tmp(),
        print: null,
        metricsPort: null,
        env: { POISON_FRAMES: '1' },
      });
      const out = await run.run();
      console.log(
        describeRun(
          `${s.name}${cc !== undefined ? ` under ${cc}` : ''}, frames poisoned`,
          out.results,
          out.wallMs,
        ),
      );
      expect(sections(out.results)).toEqual(sections(v));
    }
  });

  it('every node in one process, or three processes: results identical to virtual time', async () => {
    const v = runScenario({ scenario: scenario(INCAST_4TO1), outDir: tmp(), print: null }).results;
    for (const processes of [1, 3]) {
      const out = await runScenario({
        scenario: scenario(INCAST_4TO1, [`processes=${processes}`]),
        runtime: 'local',
        outDir: tmp(),
        print: null,
      });
      const r = out.results;
      console.log(describeRun(`4-to-1, ${processes} processes`, r, out.wallMs));
      expect(r.realtime?.processes).toBe(processes);
      expect(sections(r)).toEqual(sections(v));
    }
  });

  it("flows starting on a sample instant and between other hosts' starts: flows, ports, hosts and series identical", async () => {
    // h1's flow at 30 µs starts on a sample instant; another host starts at 25 µs, after the
    // 20 µs sample. Each host arms its own start timers, so in both runtimes the 30 µs start runs
    // before that sample (its timer was set at 0): a single chain over every host's starts would
    // set it at 25 µs, after the sample's, and virtual time's rate series would miss the flow.
    const s = scenario(`
name: rt-start-ties
seed: 1
duration: 1ms
sampleInterval: 10us
timeScale: 50000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 32MB, ecn: { kmin: 100KB, kmax: 400KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 4 }
workload:
  - kind: flows
    flows:
      - { src: h1, dst: h4, size: 200KB, start: 0 }
      - { src: h2, dst: h4, size: 200KB, start: 25us }
      - { src: h1, dst: h3, size: 100KB, start: 30us }
      - { src: h3, dst: h2, size: 100KB, start: 30us }
      - { src: h4, dst: h1, size: 50KB, start: 35us }
      - { src: h2, dst: h1, size: 50KB, start: 40us }
`);
    const v = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const out = await runScenario({ scenario: s, runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    console.log(describeRun('start ties, local', r, out.wallMs));
    expect(r.summary.flowsCompleted).toBe(6);
    expect(Object.keys(v.series.rate).length).toBeGreaterThan(0);
    expect({ ...sections(r), series: r.series }).toEqual({ ...sections(v), series: v.series });
  });

  it('alltoall with iterations (gated flows) runs in lockstep: flows, ports and hosts identical to virtual time', async () => {
    // Each host opens its next iteration on its own events (its sends acknowledged, its receives
    // arrived): no launcher relay, so lockstep runs it (it exited 2 while iterations waited on a
    // launcher barrier).
    const s = scenario(`
name: rt-alltoall
seed: 1
duration: 2ms
timeScale: 50000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 32MB, ecn: { kmin: 100KB, kmax: 400KB, pmax: 0.2 }, pfc: true }
topology: { kind: leafspine, leaves: 2, hostsPerLeaf: 2, spines: 2 }
workload:
  - { kind: alltoall, messageSize: 30KB, qpsPerPair: 2, iterations: 3, gap: 1us }
`);
    const v = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const out = await runScenario({ scenario: s, runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    console.log(describeRun('alltoall × 3 iterations, local', r, out.wallMs));
    expect(r.realtime?.sync).toBe('lockstep');
    expect(r.summary.flowsCompleted).toBe(3 * 12 * 2);
    expect(sections(r)).toEqual(sections(v));
    expect(r.warnings).toEqual(v.warnings);
  });

  it('wallclock at an impossible timeScale exits 3 with one line; --allow-late writes the results', async () => {
    const args = [
      'run',
      join(ROOT, 'scenarios', 'dumbbell-2flows.yaml'),
      '--runtime',
      'local',
      '--set',
      'duration=3ms',
      '--set',
      'sync=wallclock',
      '--set',
      'timeScale=5',
    ];
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (t: string) => void err.push(t), env: {}, cwd: ROOT };
    const dir1 = tmp();
    const code = await main([...args, '--out', dir1], io);
    const lines = err.join('').trimEnd().split('\n');
    console.log(`wallclock at timeScale 5: exit ${code}: ${lines.join(' | ')}`);
    expect(code).toBe(3);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^rocelab: .*could not keep up.*timeScale \d+ would have held/);

    const dir2 = tmp();
    err.length = 0;
    const code2 = await main([...args, '--allow-late', '--out', dir2, '--json'], io);
    expect(code2).toBe(0);
    const r = JSON.parse(readFileSync(join(dir2, 'results.json'), 'utf8')) as Results;
    expect(r.realtime?.sync).toBe('wallclock');
    expect(r.realtime?.worstLate).not.toBeNull();
  });
});
