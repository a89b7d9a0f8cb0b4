/**
 * Collectives on `--runtime netns` (root): one namespace per node, tc-shaped veths, lockstep.
 * scenarios/papers/collectives/rt-two-jobs.yaml (as in test/realtime/collectives.test.ts) gives the flows, ports, hosts and
 * collectives of virtual time exactly: each rank decides its next step from its own NIC's
 * completions, with nothing relayed by the launcher.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/config/load.js';
import { NetnsRun } from '../../src/runtime/netns/launcher.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { COLLECTIVES_RT, ensureBuilt } from '../realtime/helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'rocelab-netns-coll-'));
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function sections(r: Results) {
  return { flows: r.flows, ports: r.ports, hosts: r.hosts, collectives: r.collectives };
}

describe('collectives on netns (needs root)', () => {
  it('three jobs, two iterations, lockstep in namespaces: identical to virtual time', async () => {
    const scenario = loadScenario(COLLECTIVES_RT);
    const virtual = runScenario({ scenario, outDir: join(tmp, 'virtual'), print: null }).results;
    const out = await NetnsRun.create({ scenario, outDir: join(tmp, 'netns'), print: null }).run();
    const r = out.results;
    const d = r.realtime?.dilation;
    console.log(
      `collectives, netns lockstep: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, wall ${(out.wallMs / 1000).toFixed(1)} s, dilation p50 ${d?.p50}`,
    );
    expect(r.realtime?.sync).toBe('lockstep');
    expect(r.summary.flowsCompleted).toBe(r.summary.flowsTotal);
    expect(sections(r)).toEqual(sections(virtual));
  });
});
