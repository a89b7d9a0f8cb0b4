/** results.json `trace`: the slowest flows' rate-change causes (src/stats/trace.ts, virtual runtime). */
import { describe, expect, it } from 'vitest';
import { serializeResults } from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { buildTrace, slownessKey, TRACE_CHANGES, TRACE_FLOWS } from '../../src/stats/trace.js';
import { makeRun } from '../runtime/helpers.js';

// Enough flows that the streaming top-N of completed flows has to evict, and a duration short
// enough that some flows do not complete (they rank by their lower-bound slowdown).
const HADOOP = `
name: trace-hadoop
seed: 3
duration: 400us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 32MB, ecn: { kmin: 40KB, kmax: 160KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 6 }
workload:
  - { kind: poisson, cdf: fb_hadoop, load: 0.6, start: 0, stop: 400us }
`;

describe('trace ranking', () => {
  it('ranks completed flows by slowdown and unfinished ones by the slowdown they have at least', () => {
    const log = {
      changeCount: 1,
      drops: {},
      changes: [[5, 1e9, null, 'init']] as [number, number, null, string][],
    };
    const t = buildTrace(
      [
        { id: 0, startNs: 0, endNs: 200, idealFctNs: 100, rateLog: log }, // slowdown 2
        { id: 1, startNs: 0, endNs: null, idealFctNs: 100, rateLog: log }, // ≥ 10 at run end 1000
        { id: 2, startNs: 950, endNs: null, idealFctNs: 100, rateLog: log }, // ≥ 1 (clamped)
        { id: 3, startNs: 0, endNs: 200, idealFctNs: 100, rateLog: log }, // tie with 0: lower id first
        { id: 4, startNs: 0, endNs: 900, idealFctNs: 100 }, // no log: not ranked
      ],
      1000,
    );
    expect(t.map((x) => x.flow)).toEqual([1, 0, 3, 2]);
    expect(slownessKey(950, null, 1000, 100)).toBe(1);
  });

  it('keeps the last TRACE_CHANGES changes, rounds rate and window, sorts the drop causes', () => {
    const changes = Array.from(
      { length: 40 },
      (_, i) => [i, 1e9 + 0.4, i % 2 === 0 ? 1000.6 : null, 'x'] as [number, number, number | null, string],
    );
    const [t] = buildTrace(
      [
        {
          id: 0,
          startNs: 0,
          endNs: 10,
          idealFctNs: 5,
          rateLog: { changeCount: 40, drops: { b: 1, a: 2 }, changes },
        },
      ],
      10,
    );
    expect(t.changes).toHaveLength(TRACE_CHANGES);
    expect(t.changes[0]).toEqual([40 - TRACE_CHANGES, 1e9, 1001, 'x']);
    expect(t.changes.at(-1)).toEqual([39, 1e9, null, 'x']);
    expect(Object.keys(t.drops)).toEqual(['a', 'b']);
  });
});

describe('trace in a virtual run', () => {
  it('is the slowest flows in full-sort order, with causes, deterministic and schema-valid', () => {
    const go = () => makeRun(HADOOP).run.run();
    const r = go();
    expect(() => resultsSchema.parse(JSON.parse(serializeResults(r)))).not.toThrow();
    const started = r.flows.filter((f) => f.startNs <= r.durationNs);
    expect(started.length).toBeGreaterThan(3 * TRACE_FLOWS);
    expect(r.flows.some((f) => f.endNs === null)).toBe(true);
    // The runtime keeps rings only for the slowest completed flows so far; the result must be
    // what a full ranking of every started flow gives.
    const expected = started
      .map((f) => ({ id: f.id, key: slownessKey(f.startNs, f.endNs, r.durationNs, f.idealFctNs) }))
      .sort((a, b) => b.key - a.key || a.id - b.id)
      .slice(0, TRACE_FLOWS)
      .map((x) => x.id);
    expect(r.trace.map((t) => t.flow)).toEqual(expected);
    for (const t of r.trace) {
      const f = r.flows[t.flow];
      expect(t.changes.length).toBe(Math.min(t.changeCount, TRACE_CHANGES));
      for (const [tNs] of t.changes) {
        expect(tNs).toBeGreaterThanOrEqual(f.startNs);
        expect(tNs).toBeLessThanOrEqual(f.endNs ?? r.durationNs);
      }
    }
    // DCQCN under this load cuts rates on CNPs: the slowest flows show it.
    expect(r.trace.some((t) => Object.keys(t.drops).some((why) => why.startsWith('cnp')))).toBe(true);
    expect(serializeResults(go())).toBe(serializeResults(r));
  });
});
