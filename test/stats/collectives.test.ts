/**
 * results.json `collectives` (docs/results.md): completion times, nccl-tests bandwidths and the
 * analytic ideal of docs/scenario.md "Ideal times", on the virtual runtime with the real NIC and
 * switch. On an idle fabric (no congestion control, no contention) each collective must take its
 * ideal time: that is what the ideal claims.
 */
import { describe, expect, it } from 'vitest';
import { serializeResults } from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { makeRun } from '../runtime/helpers.js';

const BASE = `
seed: 1
duration: 20ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, mtu: 1000 }
topology: { kind: leafspine, leaves: 2, spines: 4, hostsPerLeaf: 4 }
`;

const run = (workload: string) => makeRun(`${BASE}workload:\n${workload}`).run.run();

describe('collectives in results.json', () => {
  it("ring all-reduce on an idle 1:1 leaf-spine: CCT, algbw, busbw, and every iteration within 1 % of its ideal beyond its ranks' start skew", () => {
    const r = run(
      '  - { kind: collective, job: ar, op: allreduce, ranks: all, size: 800KB, iterations: 3, gap: 2us }',
    );
    expect(() => resultsSchema.parse(JSON.parse(serializeResults(r)))).not.toThrow();
    const c = r.collectives!;
    expect(c.ops).toHaveLength(3);
    expect(r.flows).toHaveLength(3 * 14 * 8);
    for (const o of c.ops) {
      expect(o.cctNs).toBe(o.endNs! - o.startNs);
      expect(o.algbwBps).toBe(Math.round((800_000 * 8e9) / o.cctNs!));
      expect(o.busbwBps).toBe(Math.round(o.algbwBps! * (14 / 8)));
      // Each rank starts an iteration on its own (gap after its own previous one), so a later
      // iteration's CCT also spans how far apart its ranks started: the ideal assumes together.
      const fs = r.flows.slice(o.iteration * 112, (o.iteration + 1) * 112);
      const firstPost = new Map<string, number>();
      for (const f of fs) firstPost.set(f.src, Math.min(firstPost.get(f.src) ?? Infinity, f.startNs));
      const skewNs = Math.max(...firstPost.values()) - Math.min(...firstPost.values());
      console.log(
        `ring all-reduce 800 KB, iteration ${o.iteration}: CCT ${o.cctNs} ns (ranks started within ${skewNs} ns), ideal ${o.idealNs} ns, ×${o.ratio}`,
      );
      expect((o.cctNs! - skewNs) / o.idealNs).toBeGreaterThan(0.99);
      expect((o.cctNs! - skewNs) / o.idealNs).toBeLessThan(1.01);
      if (o.iteration === 0) expect(skewNs).toBe(0);
    }
    // The iterations follow each other (each rank starts its next one gap after its own end).
    expect(c.ops[1].startNs).toBeGreaterThan(c.ops[0].startNs + 0.9 * c.ops[0].cctNs!);
    const [job] = c.jobs;
    expect(job).toMatchObject({ job: 'ar', ops: 1, iterations: 3, completedIterations: 3 });
    const ccts = c.ops.map((o) => o.cctNs!);
    expect(job.meanCctNs).toBe(Math.round(ccts.reduce((a, b) => a + b) / 3));
    expect(job.p99CctNs).toBe(Math.max(...ccts));
    // The slowest rank's sends: 14 steps of its slowest iteration, in step order.
    const [slow] = c.slowest;
    expect(slow.iteration).toBe(ccts.indexOf(Math.max(...ccts)));
    expect(slow.sends.map((x) => x[1])).toEqual([...Array(14).keys()]);
    expect(slow.sends.every((x) => x[2] === `h${((slow.rank + 1) % 8) + 1}`)).toBe(true);
    // 2 leaves × 4 uplinks + 4 spines × 2 downlinks; the ring crosses the spine twice per step.
    expect(c.fabricLinks).toHaveLength(16);
    const used = c.fabricLinks.filter((l) => l.txBytes > 0);
    expect(used.length).toBeGreaterThanOrEqual(2);
    for (const l of used)
      expect(l.utilisation).toBeCloseTo((l.txBytes * 8e9) / (l.rateBps * r.durationNs), 5);
  });

  it('pipelined ring (chunk, channels), skewed all-to-all and halving-doubling: within 3 % of their ideals when idle', () => {
    // The ring and halving-doubling within one leaf: several QPs per rank crossing the spines
    // could share an uplink by ECMP, which is contention, not what the ideal is about.
    const r =
      run(`  - { kind: collective, job: a, op: allreduce, ranks: [h1, h2, h3, h4], size: 2MB, chunk: 50KB, channels: 2 }
  - { kind: collective, job: b, op: alltoall, ranks: all, size: 800KB, skew: 1, start: 2ms }
  - { kind: collective, job: c, op: reducescatter, algorithm: halving-doubling, ranks: [h1, h2, h3, h4], size: 1MB, start: 4ms }`);
    for (const o of r.collectives!.ops) {
      console.log(`${o.op} ${o.algorithm}: CCT ${o.cctNs} ns, ideal ${o.idealNs} ns, ×${o.ratio}`);
      expect(o.ratio!).toBeGreaterThan(0.97);
      expect(o.ratio!).toBeLessThan(1.03);
    }
    // The skewed all-to-all is bound by its hot destination, h1, receiving 7 × 800 KB × 0.368.
    const skewed = r.collectives!.ops[1];
    const uniform = (800_000 * (7 / 8) * 1128 * 8) / 1000 / 100;
    expect(skewed.idealNs).toBeGreaterThan(2.5 * uniform);
  });

  it('broadcast chains and pipelined double binary trees are within 3 % of their ideals when idle; an unchunked tree is not (its levels wait for whole halves)', () => {
    const r = makeRun(`
seed: 1
duration: 20ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, mtu: 1000 }
topology: { kind: star, hosts: 8 }
workload:
  - { kind: collective, job: a, op: broadcast, ranks: all, size: 1MB }
  - { kind: collective, job: b, op: broadcast, ranks: all, size: 1MB, chunk: 50KB, start: 2ms }
  - { kind: collective, job: c, op: allreduce, algorithm: double-binary-tree, ranks: all, size: 1MB, chunk: 25KB, start: 4ms }
  - { kind: collective, job: d, op: broadcast, algorithm: double-binary-tree, ranks: all, size: 1MB, chunk: 25KB, start: 6ms }
  - { kind: collective, job: e, op: allreduce, algorithm: double-binary-tree, ranks: all, size: 1MB, start: 8ms }
`).run.run();
    const ops = r.collectives!.ops;
    for (const o of ops)
      console.log(`${o.job}: ${o.op} ${o.algorithm}: CCT ${o.cctNs} ns, ideal ${o.idealNs} ns, ×${o.ratio}`);
    for (const o of ops.slice(0, 4)) {
      expect(o.ratio!).toBeGreaterThan(0.97);
      expect(o.ratio!).toBeLessThan(1.03);
    }
    expect(ops[4].ratio!).toBeGreaterThan(1.2);
  });
});
