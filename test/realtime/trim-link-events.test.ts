/**
 * Trimming and link events in lockstep (docs/switch.md "Trimming" and "Link events"): a real
 * local run of an incast whose lossy priority trims at the bottleneck, which is slowed, fails and
 * comes back mid-run, has the same flows, ports and hosts as virtual time. The switches apply the
 * link events with their own timers (the node owning the port, at the emulated instant), and
 * trimmed frames cross the real wire as header-only frames with option 0x30.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { ensureBuilt, scenario, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const YAML = `
name: trim-link-events
duration: 2ms
defaults:
  nic: { rto: 100us }
  switch:
    pfc: { priorities: [4] }
    trim: { queueBytes: 20KB, kmin: 5KB, kmax: 15KB }
topology: { kind: dumbbell, left: 4, right: 1 }
links:
  - { a: s1, b: s2, at: 10us, rate: 50Gbps }
  - { a: s1, b: s2, at: 30us, down: true }
  - { a: s1, b: s2, at: 34us, down: false }
workload:
  - { kind: incast, senders: [h1, h2, h3, h4], receiver: h5, size: 64KB }
`;

const sections = (r: Results) => ({ flows: r.flows, ports: r.ports, hosts: r.hosts, summary: r.summary });

describe('trimming and link events, lockstep on local', () => {
  it('trim, lose to the failed link and recover exactly as in virtual time', async () => {
    const virtual = runScenario({ scenario: scenario(YAML), outDir: tmp(), print: null }).results;
    expect(virtual.summary.trims).toBeGreaterThan(100);
    expect(virtual.summary.linkDownDrops).toBeGreaterThan(0);
    const out = await runScenario({ scenario: scenario(YAML), runtime: 'local', outDir: tmp(), print: null });
    const r = out.results;
    console.log(
      `trim + link events, local lockstep: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, ${r.summary.trims} trims, ${r.summary.linkDownDrops} lost to the failed link, wall ${(out.wallMs / 1000).toFixed(1)} s`,
    );
    expect(r.realtime?.sync).toBe('lockstep');
    expect(sections(r)).toEqual(sections(virtual));
  });
});
