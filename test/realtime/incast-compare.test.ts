/**
 * --runtime local runs a 4-to-1 DCQCN incast at 100 Gbps emulated (timeScale 50 000, so real
 * links carry 2 Mbit/s) to completion in lockstep (the default sync), and the flows, ports and
 * hosts of its results.json are those of the same scenario in virtual time, exactly: both
 * runtimes handle the same events in the same order. Both are printed side by side.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/report.js';
import type { NodeMessage } from '../../src/runtime/real/protocol.js';
import { runScenario } from '../../src/runtime/run.js';
import { kernelAllowsRealtimePriority } from '../support/kernel-allows-rr.js';
import { ensureBuilt, INCAST_4TO1, scenario, survivors, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('local runtime vs virtual time: 4-to-1 DCQCN incast', () => {
  it('completes every flow, with flows, ports and hosts identical to virtual time', async () => {
    const s = scenario(INCAST_4TO1);
    const virtual = runScenario({ scenario: s, outDir: tmp(), print: null });
    const pids: number[] = [];
    const localDir = tmp();
    const local = await runScenario({
      scenario: s,
      runtime: 'local',
      outDir: localDir,
      print: null,
      keepLogs: true,
      // test hook of the local launcher: collect the node PIDs
      ...({ onMessage: (m: NodeMessage) => m.t === 'ready' && pids.push(m.pid) } as object),
    });
    const v = virtual.results.summary;
    const l = local.results.summary;
    const row = (k: string, a: string, b: string) => `  ${k.padEnd(16)}${a.padStart(16)}${b.padStart(16)}`;
    console.log(
      [
        `4-to-1 incast, DCQCN, 100 Gbps, timeScale ${local.results.timeScale} (real links ${100e9 / local.results.timeScale / 1e6} Mbit/s)`,
        row('', 'virtual', 'local'),
        row('flows completed', `${v.flowsCompleted}/${v.flowsTotal}`, `${l.flowsCompleted}/${l.flowsTotal}`),
        row(
          'goodput',
          `${(v.goodputBps / 1e9).toFixed(2)} Gbit/s`,
          `${(l.goodputBps / 1e9).toFixed(2)} Gbit/s`,
        ),
        row(
          'max queue',
          `${(v.maxQueueBytes / 1e3).toFixed(1)} KB`,
          `${(l.maxQueueBytes / 1e3).toFixed(1)} KB`,
        ),
        row(
          'duration',
          `${(virtual.results.durationNs / 1e3).toFixed(1)} µs`,
          `${(local.results.durationNs / 1e3).toFixed(1)} µs`,
        ),
        row(
          'CNPs',
          String(virtual.results.hosts.reduce((a, h) => a + h.cnpTx, 0)),
          String(local.results.hosts.reduce((a, h) => a + h.cnpTx, 0)),
        ),
        `  local wall time ${(local.wallMs / 1000).toFixed(1)} s; warnings: ${JSON.stringify(local.results.warnings)}`,
      ].join('\n'),
    );
    expect(local.results.runtime).toBe('local');
    expect(l.flowsCompleted).toBe(l.flowsTotal);
    expect(Math.abs(l.goodputBps - v.goodputBps) / v.goodputBps).toBeLessThanOrEqual(0.1);
    expect(Math.abs(l.maxQueueBytes - v.maxQueueBytes) / v.maxQueueBytes).toBeLessThanOrEqual(0.25);
    // same results.json shape as virtual time, plus the real-time section
    expect(Object.keys(local.results).filter((k) => k !== 'realtime')).toEqual(Object.keys(virtual.results));
    expect(local.results.realtime?.sync).toBe('lockstep');
    // --keep-logs: every process's log stays in OUT/logs, with each of its nodes' start line.
    const logs = readdirSync(join(localDir, 'logs')).map((f) =>
      readFileSync(join(localDir, 'logs', f), 'utf8'),
    );
    expect(logs.length).toBe(local.results.realtime?.processes);
    for (const n of ['h1', 'h2', 'h3', 'h4', 'h5', 's1'])
      expect(logs.some((text) => text.includes(`"node":"${n}"`) && text.includes('"msg":"started"'))).toBe(
        true,
      );
    expect(local.results.flows).toEqual(virtual.results.flows);
    expect(local.results.ports).toEqual(virtual.results.ports);
    expect(local.results.hosts).toEqual(virtual.results.hosts);
    expect(local.results.ports.map((p) => `${p.node}:${p.port}`)).toEqual(
      virtual.results.ports.map((p) => `${p.node}:${p.port}`),
    );
    // The shared host application keeps the slowest flows' rate-change trace in both runtimes;
    // DCQCN cuts every sender's rate at least once in a 4-to-1 incast.
    expect(local.results.trace.map((t) => t.flow).sort()).toEqual(
      virtual.results.trace.map((t) => t.flow).sort(),
    );
    for (const t of local.results.trace) expect(t.changeCount).toBeGreaterThan(0);
    expect(pids.length).toBe(6);
    expect(await survivors(pids)).toEqual([]);
  });

  it('with the nodes of a process linked in memory (inProcessLinks: memory) and bundles between the processes, identical to virtual time too', async () => {
    const s = scenario(INCAST_4TO1, ['inProcessLinks=memory', 'processes=2']);
    const virtual = runScenario({ scenario: s, outDir: tmp(), print: null });
    const local = await runScenario({ scenario: s, runtime: 'local', outDir: tmp(), print: null });
    expect(local.results.realtime?.processes).toBe(2);
    // What each process sent the other left in bundles, several datagrams to a bundle.
    const rt = local.results.realtime!;
    expect(rt.bundles).toBeGreaterThan(0);
    expect(rt.bundledDatagrams).toBeGreaterThan(rt.bundles);
    expect(local.results.summary.flowsCompleted).toBe(local.results.summary.flowsTotal);
    expect(local.results.flows).toEqual(virtual.results.flows);
    expect(local.results.ports).toEqual(virtual.results.ports);
    expect(local.results.hosts).toEqual(virtual.results.hosts);
    expect(local.results.series).toEqual(virtual.results.series);
  });
});

describe('a wallclock run that lasts its whole duration', () => {
  it('counts nothing after the duration, though the launcher ends it later in real time', async () => {
    // 40 µs of the incast: no flow completes, so the launcher ends the run at the duration,
    // with a message the nodes get some real time later.
    const s = scenario(INCAST_4TO1, ['duration=40us', 'sync=wallclock', 'timeScale=5000']);
    const virtual = runScenario({ scenario: s, outDir: tmp(), print: null });
    const local = await runScenario({
      scenario: s,
      runtime: 'local',
      outDir: tmp(),
      print: null,
      allowLate: true,
    });
    const v = virtual.results.summary;
    const l = local.results.summary;
    expect(v.flowsCompleted).toBe(0);
    expect(local.results.durationNs).toBe(40_000);
    // The receiver's link caps it at 100 Gbit/s. The bytes delivered between the duration and the
    // launcher's message must not count.
    console.log(
      `40 µs of the incast, wallclock at timeScale 5000: goodput ${(l.goodputBps / 1e9).toFixed(2)} Gbit/s, virtual ${(v.goodputBps / 1e9).toFixed(2)}`,
    );
    expect(l.goodputBps).toBeLessThanOrEqual(100e9);
    // Measured: equal to virtual time's (89.20 Gbit/s); 110-113 Gbit/s before the fix. A host
    // that could not keep up (late frames: a loaded machine) delivers less in the 40 µs, never
    // more, so equality is asked only of a run that kept up.
    if (local.results.realtime!.lateFrames === 0)
      expect(Math.abs(l.goodputBps - v.goodputBps) / v.goodputBps).toBeLessThanOrEqual(0.02);
    else expect(l.goodputBps).toBeLessThanOrEqual(v.goodputBps * 1.02);
    // Every collection over 1 ms is listed (so few here that none is left off), inside the run,
    // in emulated-time order.
    const pauses = local.results.realtime!.pauses;
    // Its processes fit the cores (processes: auto): their main threads ran under SCHED_RR where
    // the kernel allows it (root), and a warning says why not elsewhere.
    const allowed = kernelAllowsRealtimePriority();
    expect(local.results.realtime!.mainThreadPriority).toBe(allowed ? 'realtime' : 'normal');
    if (!allowed) expect(local.results.warnings.join('\n')).toMatch(/main thread left at normal priority/);
    const long = pauses.longGc ?? [];
    console.log(`collections over 1 ms: ${pauses.gcOver1Ms}, longest ${pauses.gcMaxMs} ms`);
    expect(long.length).toBe(pauses.gcOver1Ms);
    for (const g of long) {
      expect(g.durationMs).toBeGreaterThan(1);
      expect(g.durationMs).toBeLessThanOrEqual(pauses.gcMaxMs);
      expect(g.atNs).toBeLessThanOrEqual(local.results.durationNs);
    }
    expect(long.map((g) => g.atNs)).toEqual(long.map((g) => g.atNs).sort((a, b) => a - b));
    // Late frames by the time they were due add up to the count, over the bins the run lasted.
    const rt = local.results.realtime!;
    const late = rt.lateOverTime!;
    expect(late.counts.reduce((a, b) => a + b, 0)).toBe(rt.lateFrames);
    expect(late.binNs * late.counts.length).toBeGreaterThanOrEqual(local.results.durationNs);
    expect(late.binNs * (late.counts.length - 1)).toBeLessThan(local.results.durationNs);
    // The report shows the run's realtime numbers, and charts its late frames and long
    // collections when it had any.
    const report = await buildReport([{ name: 'run', results: local.results }]);
    expect(report.data.byAlgorithm.run.realtime).toMatchObject({
      timeScale: 5000,
      lateFrames: rt.lateFrames,
    });
    expect(report.html).toContain(`data-key="lateFrames" data-value="${rt.lateFrames}"`);
    expect(report.html.includes('id="chart-late"')).toBe(rt.lateFrames > 0 || long.length > 0);
  }, 60_000);
});
