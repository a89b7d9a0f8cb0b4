/**
 * HPCC INT's rate codes on the real wire (docs/wire.md "Rate codes"): a star whose hosts run at
 * 10, 40 and 100 Gbit/s has the table [10G, 40G, 100G], so codes 0, 1, 2 mean rates that the
 * HPCC simulator's table names 25, 50 and 100G. Every real node (one process each, real UDP)
 * derives the table from the same scenario and codes the stack with it, so a local lockstep run
 * equals virtual time; a node that read the codes with another table would see another B and
 * send differently.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/runtime/run.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { ensureBuilt, scenario, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const MIXED = `
name: rt-hpcc-rates
seed: 1
duration: 1ms
timeScale: 1000
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: hpcc, mtu: 1000 }
topology:
  kind: explicit
  nodes: [h1, h2, h3, { name: s1, kind: switch }]
  links: [{ a: h1, b: s1, rate: 40Gbps }, { a: h2, b: s1, rate: 10Gbps }, { a: h3, b: s1, rate: 100Gbps }]
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 200KB }, { src: h3, dst: h2, size: 200KB }, { src: h3, dst: h1, size: 300KB }]
`;

describe('HPCC INT at 10, 40 and 100 Gbit/s on the real wire', () => {
  it('a local lockstep run (a process per node) equals virtual time', async () => {
    const s = scenario(MIXED, ['processes=per-node']);
    expect(setupRun(s).intRatesBps).toEqual([10e9, 40e9, 100e9]);
    const v = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const out = await runScenario({ scenario: s, runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    console.log(
      `hpcc 10/40/100G, local: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, wall ${(out.wallMs / 1000).toFixed(1)} s`,
    );
    expect(r.summary.flowsCompleted).toBe(3);
    expect(r.realtime?.sync).toBe('lockstep');
    expect({ flows: r.flows, ports: r.ports, hosts: r.hosts }).toEqual({
      flows: v.flows,
      ports: v.ports,
      hosts: v.hosts,
    });
  });
});
