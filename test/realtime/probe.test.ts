/**
 * Probe bins in real time (docs/results.md "probes"): each node bins what its own firmware sees
 * on its emulated clock and the launcher sums the parts, so a lockstep run of the local runtime
 * writes the same `probes` section as virtual time, bin for bin.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/runtime/run.js';
import { ensureBuilt, scenario, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const INCAST = `
name: rt-probe-incast
duration: 400us
timeScale: 1000
topology: { kind: star, hosts: 3 }
defaults: { nic: { cc: dcqcn }, switch: { ecn: { kmin: 5KB, kmax: 50KB, pmax: 0.5 } } }
workload:
  - kind: incast
    senders: [h1, h2]
    receiver: h3
    size: 100KB
probes: { bin: 10us, ports: all, qpState: [rateBps, alpha] }
`;

describe('probes in a real run', () => {
  it('local lockstep bins equal virtual time bins', async () => {
    const virtual = runScenario({ scenario: scenario(INCAST), outDir: tmp(), print: null }).results;
    const real = (
      await runScenario({ scenario: scenario(INCAST), runtime: 'local', outDir: tmp(), print: null })
    ).results;
    expect(real.realtime?.sync).toBe('lockstep');
    expect(virtual.probes?.flows.some((f) => f.cnpRx.some((n) => n > 0))).toBe(true);
    expect(real.probes).toEqual(virtual.probes);
  });
});
