/**
 * Collectives in real time (issue "AI training traffic"): every dependency of a collective is a
 * gate of its own rank (its sends acknowledged, its receives arrived as its NIC reports them), so
 * a lockstep run of the local runtime gives the flows, ports, hosts and collectives of virtual
 * time exactly: scenarios/papers/collectives/rt-two-jobs.yaml, a pipelined ring all-reduce
 * across the spine, a skewed all-to-all and an alltoall (the shorthand kind), two iterations
 * each, side by side.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/config/load.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { COLLECTIVES_RT, ensureBuilt, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

function sections(r: Results) {
  return { flows: r.flows, ports: r.ports, hosts: r.hosts, collectives: r.collectives };
}

describe('collectives in lockstep (local runtime)', () => {
  it('three jobs, two iterations: flows, ports, hosts and collectives identical to virtual time', async () => {
    const s = loadScenario(COLLECTIVES_RT);
    const v = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    expect(v.summary.flowsCompleted).toBe(v.summary.flowsTotal);
    const out = await runScenario({ scenario: s, runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    const d = r.realtime?.dilation;
    console.log(
      `collectives, local lockstep: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, wall ${(out.wallMs / 1000).toFixed(1)} s, dilation p50 ${d?.p50}; ${r.collectives?.ops.map((o) => `${o.job}#${o.iteration} ${o.cctNs} ns ×${o.ratio}`).join(', ')}`,
    );
    expect(r.realtime?.sync).toBe('lockstep');
    expect(r.collectives?.ops).toHaveLength(6);
    expect(sections(r)).toEqual(sections(v));
    expect(r.warnings).toEqual(v.warnings);
  });
});
