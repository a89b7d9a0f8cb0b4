/**
 * Link events end to end in virtual time (docs/scenario.md "links", docs/switch.md "Link
 * events"): a bottleneck slowed mid-flow stretches the flow by what the slower rate predicts; a
 * link that fails and comes back loses frames (results.json `linkDownDrops`), which go-back-N
 * resends; results without link events carry no such key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../src/runtime/run.js';
import { serializeResults } from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { scenario } from './helpers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-link-events-'));

// h1 - s1 - s2 - h2, 100G, 1 µs links; one 1 MB flow at line rate (no congestion control).
const BASE = `
name: link-events
duration: 5ms
defaults: { nic: { cc: none, rto: 100us } }
topology: { kind: dumbbell, left: 1, right: 1 }
workload:
  - { kind: flows, flows: [{ src: h1, dst: h2, size: 1MB }] }
`;

function run(links: string) {
  const o = runScenario({ scenario: scenario(`${BASE}${links}`), outDir: tmp(), print: null });
  resultsSchema.parse(JSON.parse(serializeResults(o.results)));
  return o.results;
}

describe('links that change at a time (virtual)', () => {
  it('a bottleneck slowed to 25 Gbit/s at 40 µs: the rest of the flow goes at a quarter of the rate', () => {
    const fast = run('');
    const fromStart = run('links: [{ a: s1, b: s2, at: 0us, rate: 25Gbps }]');
    const slowed = run('links: [{ a: s1, b: s2, at: 40us, rate: 25Gbps }]');
    const [fctFast, fct0, fct40] = [fast, fromStart, slowed].map((r) => r.flows[0].fctNs!);
    // At 25G from the start the flow takes about 4 × as long (its fixed delays do not stretch).
    expect(fct0 / fctFast).toBeGreaterThan(3.7);
    expect(fct0 / fctFast).toBeLessThan(4);
    // Slowed at 40 µs: the bottleneck had been sending at 100G from ~1.1 µs (one hop and one frame
    // after the start) to 40 µs, a quarter of the time it would have needed at 25G; so the flow
    // ends 3 × that time earlier than when slowed from the start.
    const gainNs = fct0 - fct40;
    expect(gainNs).toBeGreaterThan(3 * (40_000 - 2_000));
    expect(gainNs).toBeLessThan(3 * 40_000);
    expect(fast.ports.some((p) => 'linkDownDrops' in p)).toBe(false);
    expect(fast.summary.linkDownDrops).toBeUndefined();
    // Both switches' ports of the link carry the key (the run has link events), with nothing lost.
    expect(slowed.summary.linkDownDrops).toBe(0);
    expect(slowed.ports.filter((p) => p.node.startsWith('s')).every((p) => p.linkDownDrops === 0)).toBe(true);
  });

  it('a link down from 20 to 60 µs: frames are lost and counted, go-back-N resends them, the flow completes', () => {
    const r = run(`links:
  - { a: s1, b: s2, at: 20us, down: true }
  - { a: s1, b: s2, at: 60us, down: false }
`);
    expect(r.summary.flowsCompleted).toBe(1);
    expect(r.summary.linkDownDrops).toBeGreaterThan(0);
    const s1 = r.ports.filter((p) => p.node === 's1');
    const lost = s1.reduce((n, p) => n + (p.linkDownDrops ?? 0), 0);
    expect(lost).toBeGreaterThan(0);
    // Every loss is in drops too.
    expect(r.summary.drops).toBeGreaterThanOrEqual(r.summary.linkDownDrops!);
    // Go-back-N resends at least what was lost (the receiver NAKs the gap once the link is back).
    expect(r.hosts.find((h) => h.node === 'h1')!.retransmits).toBeGreaterThanOrEqual(
      r.summary.linkDownDrops!,
    );
    // The 40 µs outage adds to the undisturbed flow's time.
    const fctFast = run('').flows[0].fctNs!;
    expect(r.flows[0].fctNs!).toBeGreaterThan(fctFast + 40_000);
  });
});
