/**
 * Acceptance (e): a node started with CLOCK_SKEW_NS=5000000 (its clock 5 ms real ahead) converges
 * through the PTP-like exchange to a residual below 100 µs real. Every process reads the same host
 * CLOCK_MONOTONIC, so the true error of a node's corrected clock against the reference is known
 * exactly: (skew + correction) − the reference's, in emulated ns, × timeScale in real ns.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LocalRun } from '../../src/runtime/local/launcher.js';
import type { NodeMessage } from '../../src/runtime/real/protocol.js';
import { ensureBuilt, scenario, survivors, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const SKEWED = `
name: rt-clock
seed: 1
duration: 4ms
timeScale: 1000
defaults:
  link: { rate: 10Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
topology: { kind: star, hosts: 3 }
workload:
  - { kind: flows, flows: [ { src: h1, dst: h2, size: 20KB, start: 2ms }, { src: h3, dst: h2, size: 20KB, start: 2ms } ] }
`;

describe('clock sync', () => {
  it('removes a 5 ms injected skew down to a residual below 100 µs real', async () => {
    const pids: number[] = [];
    const synced: NodeMessage[] = [];
    const run = await LocalRun.create({
      scenario: scenario(SKEWED),
      outDir: tmp(),
      print: null,
      metricsPort: null,
      nodeEnv: { h1: { CLOCK_SKEW_NS: '5000000' } },
      onMessage: (m) => {
        if (m.t === 'ready') pids.push(m.pid);
        if (m.t === 'synced') synced.push(m);
      },
    });
    const out = await run.run();
    const reports = run.coordinator.nodeReports();
    const ref = reports.get('s1')!;
    const tdf = out.results.timeScale;
    const lines: string[] = [];
    const checks: [number, number, number][] = [];
    for (const name of ['h1', 'h2', 'h3']) {
      const c = reports.get(name)!.clock;
      const trueErrRealNs = (c.skewNs + c.correctionNs - (ref.clock.skewNs + ref.clock.correctionNs)) * tdf;
      const reportedRealNs = (c.residualNs ?? Number.NaN) * tdf;
      lines.push(
        `  ${name}: injected ${(c.skewNs * tdf) / 1e3} µs, correction ${((c.correctionNs * tdf) / 1e3).toFixed(1)} µs, ` +
          `true residual ${(trueErrRealNs / 1e3).toFixed(1)} µs real, last measured residual ${(reportedRealNs / 1e3).toFixed(1)} µs real, ${c.rounds} rounds`,
      );
      checks.push([c.rounds, trueErrRealNs, reportedRealNs]);
    }
    console.log(`clock sync (timeScale ${tdf}, reference s1):\n${lines.join('\n')}`);
    for (const [rounds, trueErr, reported] of checks) {
      expect(rounds).toBeGreaterThanOrEqual(2);
      expect(Math.abs(trueErr)).toBeLessThan(100_000);
      expect(Math.abs(reported)).toBeLessThan(100_000);
    }
    const h1 = synced.find((m) => m.t === 'synced' && m.node === 'h1') as Extract<
      NodeMessage,
      { t: 'synced' }
    >;
    console.log(`  h1 first applied round measured ${((h1.residualNs * tdf) / 1e3).toFixed(1)} µs real`);
    expect(out.results.summary.flowsCompleted).toBe(2);
    expect(await survivors(pids)).toEqual([]);
  });
});
