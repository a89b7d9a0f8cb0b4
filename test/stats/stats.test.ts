import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jainIndex, percentile } from '../../src/stats/aggregate.js';
import { idealFctNs, messageWireBytes, slowdown } from '../../src/stats/fct.js';
import {
  buildResults,
  type ResultsInput,
  type SeriesResult,
  serializeResults,
  seriesFromJson,
  seriesPoints,
} from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';

describe('percentiles (HPCC fct_analysis rule: sorted[floor(n·p)])', () => {
  it('picks sample values by index', () => {
    const v = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(v, 0.5)).toBe(6);
    expect(percentile(v, 0.95)).toBe(10);
    expect(percentile(v, 0.99)).toBe(10);
    expect(percentile(v, 0)).toBe(1);
    expect(percentile([42], 0.99)).toBe(42);
    expect(percentile([], 0.5)).toBeNull();
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 0.99)).toBe(100);
    expect(percentile(hundred, 0.5)).toBe(51);
  });

  it('is monotone in p and always a sample (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1 }), (v) => {
        const p50 = percentile(v, 0.5)!;
        const p99 = percentile(v, 0.99)!;
        expect(p50).toBeLessThanOrEqual(p99);
        expect(v).toContain(p99);
      }),
    );
  });
});

describe("Jain's index", () => {
  it('is 1 for equal shares and 1/n when one takes all', () => {
    expect(jainIndex([3, 3, 3, 3])).toBeCloseTo(1, 12);
    expect(jainIndex([1, 0, 0, 0])).toBeCloseTo(0.25, 12);
    expect(jainIndex([1, 2])).toBeCloseTo(0.9, 12);
    expect(jainIndex([])).toBeNull();
  });

  it('lies in [1/n, 1] (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1e11, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (v) => {
          const j = jainIndex(v)!;
          expect(j).toBeLessThanOrEqual(1 + 1e-12);
          expect(j).toBeGreaterThanOrEqual(1 / v.length - 1e-12);
        },
      ),
    );
  });
});

describe('ideal FCT and slowdown', () => {
  it('wire bytes: 62 B of headers per packet, pad, RETH once for WRITE', () => {
    expect(messageWireBytes(1000, 1000)).toBe(1062);
    expect(messageWireBytes(1001, 1000)).toBe(1000 + 1 + 2 * 62 + 3);
    expect(messageWireBytes(1000, 1000, 'write')).toBe(1078);
    expect(messageWireBytes(1e6, 1000)).toBe(1e6 + 1000 * 62);
  });

  it('HPCC form: base RTT + wire bytes at the bottleneck', () => {
    // Star 100G/1us: HPCC base RTT 4160 ns; 1 MB SEND = 1 062 000 B on the wire = 84 960 ns.
    expect(
      idealFctNs({ sizeBytes: 1e6, mtuBytes: 1000, hpccBaseRttNs: 4160, bottleneckRateBps: 100e9 }),
    ).toBe(4160 + 84960);
    expect(slowdown(null, 100)).toBeNull();
    expect(slowdown(50, 100)).toBe(1);
    expect(slowdown(250, 100)).toBe(2.5);
  });
});

function sampleInput(): ResultsInput {
  return {
    scenario: 'unit',
    runtime: 'virtual',
    seed: 1,
    timeScale: 1,
    durationNs: 1_000_000,
    ccByHost: { h1: 'dcqcn', h2: 'dcqcn' },
    flows: [
      {
        id: 0,
        src: 'h1',
        dst: 'h2',
        cc: 'dcqcn',
        sizeBytes: 1000,
        startNs: 0,
        endNs: 5000,
        idealFctNs: 4000,
        deliveredBytes: 1000,
        started: true,
      },
      {
        id: 1,
        src: 'h2',
        dst: 'h1',
        cc: 'dcqcn',
        sizeBytes: 1e6,
        startNs: 10,
        endNs: null,
        idealFctNs: 90000,
        deliveredBytes: 5e5,
        started: true,
      },
    ],
    ports: [
      {
        cnmTx: 0,
        node: 's1',
        port: 0,
        txBytes: 10,
        maxQueueBytes: 3000,
        meanQueueBytes: 12,
        ecnMarked: 1,
        pfcPauseTx: 2,
        pfcPauseRx: 0,
        pausedNs: 0,
        drops: 1,
      },
    ],
    hosts: [{ node: 'h1', cnpTx: 0, cnpRx: 1, nackTx: 0, retransmits: 0, rxBytes: 5 }],
    series: {
      queue: {
        's1:0': [0, 0, 500, 3000],
      },
      rate: { '1': [0, 1e11], '0': [0, 1e11] },
    },
    warnings: ['1 of 2 flows did not complete by 1000000 ns'],
    isSwitchPort: (p) => p.node.startsWith('s'),
  };
}

describe('results.json', () => {
  it('assembles §6 exactly and validates against the strict schema', () => {
    const r = buildResults(sampleInput());
    expect(() => resultsSchema.parse(JSON.parse(serializeResults(r)))).not.toThrow();
    expect(Object.keys(r)).toEqual([
      'version',
      'scenario',
      'runtime',
      'seed',
      'timeScale',
      'durationNs',
      'ccByHost',
      'flows',
      'ports',
      'hosts',
      'series',
      'trace',
      'summary',
      'warnings',
    ]);
    expect(r.flows[0]).toMatchObject({ fctNs: 5000, slowdown: 1.25 });
    expect(r.flows[1]).toMatchObject({ endNs: null, fctNs: null, slowdown: null });
    expect(Object.keys(r.ports[0])[0]).toBe('node');
    expect(r.summary).toEqual({
      flowsTotal: 2,
      flowsCompleted: 1,
      slowdownP50: 1.25,
      slowdownP99: 1.25,
      maxQueueBytes: 3000,
      pfcPauseTx: 2,
      drops: 1,
      goodputBps: Math.round((501000 * 8e9) / 1e6),
      jain: r.summary.jain,
    });
    // Throughputs 1.6 Gbps and 4.00004 Gbps.
    expect(r.summary.jain).toBeCloseTo(jainIndex([(1000 * 8e9) / 5000, (5e5 * 8e9) / (1e6 - 10)])!, 6);
  });

  it('serialises deterministically to valid JSON that parses back to the same object', () => {
    const a = serializeResults(buildResults(sampleInput()));
    const b = serializeResults(buildResults(sampleInput()));
    expect(a).toBe(b);
    const back = JSON.parse(a);
    const inMemory = buildResults(sampleInput());
    // The file writes each flat series [t, v, t, v, …] as [[t, v], …] points.
    expect(back).toEqual(JSON.parse(JSON.stringify({ ...inMemory, series: pointsOf(inMemory.series) })));
    expect(seriesFromJson(back.series)).toEqual(inMemory.series);
    expect(() => resultsSchema.parse(back)).not.toThrow();
    expect(a.endsWith('}\n')).toBe(true);
    // One flow per line.
    expect(a.split('\n').filter((l) => l.includes('"src"'))).toHaveLength(2);
  });
});

/** A result's series as results.json writes them: [[t, v], …] per key. */
function pointsOf(s: SeriesResult) {
  const each = (m: Record<string, number[]>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, seriesPoints(v)]));
  return { queue: each(s.queue), rate: each(s.rate) };
}
