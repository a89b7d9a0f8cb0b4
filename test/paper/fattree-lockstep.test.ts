/**
 * Paper tier: the HPCC 320-host fat tree (scenarios/websearch-fattree320.yaml, 376 nodes, 11 711
 * WebSearch flows) run whole on the local real-time runtime in lockstep gives exactly virtual
 * time's flows, ports, hosts and series (docs/realtime.md "Known limits"). npm test runs its first
 * 3.1 ms (test/realtime/shipped-scenarios); the whole run takes about 23 min of a quiet 2-core
 * machine plus 7 min for virtual time, and needs about 1.3 GB.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/config/load.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { ensureBuilt, ROOT, tmp } from '../realtime/helpers.js';

beforeAll(() => ensureBuilt());

const FATTREE = join(ROOT, 'scenarios', 'websearch-fattree320.yaml');

function sections(r: Results) {
  return { flows: r.flows, ports: r.ports, hosts: r.hosts, series: r.series };
}

describe('the 320-host fat tree in lockstep', () => {
  it('completes every flow, identical to virtual time (flows, ports, hosts, series)', async () => {
    const virtual = runScenario({ scenario: loadScenario(FATTREE), outDir: tmp(), print: null }).results;
    const out = await runScenario({
      scenario: loadScenario(FATTREE),
      runtime: 'local',
      outDir: tmp(),
      print: null,
    });
    const r = out.results;
    const d = r.realtime?.dilation;
    console.log(
      `fat tree, local lockstep: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, ${r.realtime?.processes} processes, wall ${(out.wallMs / 60_000).toFixed(1)} min, dilation p50 ${d?.p50}`,
    );
    expect(r.summary.flowsCompleted).toBe(r.summary.flowsTotal);
    expect(r.durationNs).toBe(virtual.durationNs);
    expect(sections(r)).toEqual(sections(virtual));
  }, 5_400_000);
});
