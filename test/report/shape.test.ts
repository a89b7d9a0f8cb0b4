/** Data shaping of the report: buckets, percentiles, CDFs, thinning, busiest ports, compare data. */
import { describe, expect, it } from 'vitest';
import { LADDER_BASE_BYTES, sizeBuckets, sizeLabel, slowdownByBucket } from '../../src/report/buckets.js';
import { reportCharts } from '../../src/report/charts.js';
import { busiestPorts, compareData, type RunInput } from '../../src/report/data.js';
import { reportHtml } from '../../src/report/html.js';
import { renderSvg } from '../../src/report/render-svg.js';
import { CDF_STEPS, cdfPoints, thin } from '../../src/report/series.js';
import { percentile } from '../../src/stats/aggregate.js';
import {
  buildResults,
  type FlowRecord,
  type PortResult,
  type Results,
  serializeResults,
} from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';

const KiB = 1024;
const MiB = 1024 * 1024;

describe('flow-size buckets', () => {
  it('uses the HPCC ladder (3 KiB × 4^k) for a spread of sizes, keeping rungs with flows', () => {
    const sizes = [100, 2000, 5 * KiB, 13 * KiB, 200 * KiB, 800 * KiB, 3 * MiB, 20 * MiB, 30 * MiB];
    const { rule, buckets } = sizeBuckets(sizes);
    expect(rule).toBe('ladder');
    expect(buckets.map((b) => b.label)).toEqual([
      '< 3 KiB',
      '3–12 KiB',
      '12–48 KiB',
      '192–768 KiB',
      '768 KiB–3 MiB',
      '3–12 MiB',
      '12–48 MiB',
    ]);
    // Lower bound inclusive, upper exclusive: 3 MiB is in 3–12 MiB.
    expect(buckets[5]).toEqual({ label: '3–12 MiB', minBytes: 3 * MiB, maxBytes: 12 * MiB });
    expect(buckets[0]).toEqual({ label: '< 3 KiB', minBytes: 0, maxBytes: LADDER_BASE_BYTES });
  });

  it('gives each size its own bucket when there are few distinct sizes (incast, fixed sizes)', () => {
    const { rule, buckets } = sizeBuckets([10e6, 10e6, 64e3, 10e6]);
    expect(rule).toBe('distinct');
    expect(buckets.map((b) => b.label)).toEqual(['64 KB', '10 MB']);
    expect(sizeLabel(1234567)).toBe('1.23 MB');
  });

  it('computes p50/p95/p99 per bucket exactly as src/stats does, unfinished flows counted apart', () => {
    const flows = [
      ...Array.from({ length: 37 }, (_, i) => ({ sizeBytes: 1000 + i, slowdown: 1 + ((i * 7) % 37) / 10 })),
      { sizeBytes: 2000, slowdown: null },
      ...Array.from({ length: 5 }, (_, i) => ({ sizeBytes: 50 * KiB, slowdown: 2 + i })),
    ];
    const { buckets } = sizeBuckets(flows.map((f) => f.sizeBytes));
    const stats = slowdownByBucket(flows, buckets);
    const small = flows
      .filter((f) => f.sizeBytes < LADDER_BASE_BYTES && f.slowdown !== null)
      .map((f) => f.slowdown!);
    expect(stats[0]).toMatchObject({
      bucket: '< 3 KiB',
      count: 37,
      unfinished: 1,
      p50: percentile(small, 0.5),
      p95: percentile(small, 0.95),
      p99: percentile(small, 0.99),
    });
    expect(stats[1]).toMatchObject({ bucket: '48–192 KiB', count: 5, unfinished: 0, p50: 4, p95: 6, p99: 6 });
  });
});

describe('series shaping', () => {
  it('CDF points are src/stats percentiles at fixed fractions, runs of equal values collapsed', () => {
    const values = [...Array(80).fill(0), ...Array.from({ length: 20 }, (_, i) => (i + 1) * 1000)];
    const pts = cdfPoints(values);
    expect(pts[0]).toEqual([0, 0]);
    expect(pts.at(-1)).toEqual([20000, 1]);
    for (const [v, q] of pts) expect(v).toBe(percentile(values, q));
    // The empty 80 % is one vertical step: first and last point at 0 only.
    expect(pts.filter((p) => p[0] === 0)).toHaveLength(2);
    expect(pts.length).toBeLessThanOrEqual(CDF_STEPS + 1);
  });

  it('thinning keeps every stretch’s minimum and maximum in time order', () => {
    const pts = Array.from({ length: 10_000 }, (_, i) => [i, i % 97 === 0 ? 5000 : i % 13]).flat();
    const t = thin(pts, 600);
    expect(t.length).toBeLessThanOrEqual(600);
    expect(Math.max(...t.map((p) => p[1]))).toBe(5000);
    for (let i = 1; i < t.length; i++) expect(t[i][0]).toBeGreaterThan(t[i - 1][0]);
    expect(thin(pts.slice(0, 20), 600)).toHaveLength(10);
  });
});

function port(node: string, p: number, meanQueueBytes: number, maxQueueBytes: number): PortResult {
  return {
    node,
    port: p,
    txBytes: 0,
    maxQueueBytes,
    meanQueueBytes,
    ecnMarked: 1,
    pfcPauseTx: 2,
    pfcPauseRx: 3,
    pausedNs: 400,
    drops: 0,
    cnmTx: 5,
  };
}

function results(cc: string, slow: number): Results {
  const flows: FlowRecord[] = [0, 1, 2].map((id) => ({
    id,
    src: `h${id + 1}`,
    dst: 'h4',
    cc,
    sizeBytes: 10_000 * (id + 1),
    startNs: 0,
    endNs: id === 2 ? null : 1000 * slow * (id + 1),
    idealFctNs: 1000,
    deliveredBytes: 1,
    started: true,
    rateLog: { changeCount: 2, drops: { cnp: 1 }, changes: [[10, 5e10, null, 'cnp']] },
  }));
  const r = buildResults({
    scenario: 'unit',
    runtime: 'virtual',
    seed: 1,
    timeScale: 1,
    durationNs: 10_000,
    ccByHost: { h1: cc, h2: cc, h3: cc, h4: cc },
    flows,
    ports: [port('h1', 0, 0, 0), port('s1', 0, 100, 5000), port('s1', 1, 300, 900), port('s1', 2, 0, 78)],
    hosts: ['h1', 'h4'].map((node) => ({ node, cnpTx: 7, cnpRx: 6, nackTx: 0, retransmits: 0, rxBytes: 1 })),
    series: {
      queue: {
        's1:0': [0, 0, 5000, 4000],
        's1:1': [0, 900, 5000, 100],
      },
      rate: {
        '0': [0, 1e11, 500, 5e10],
      },
    },
    warnings: [],
    isSwitchPort: (p) => p.node.startsWith('s'),
  });
  resultsSchema.parse(JSON.parse(serializeResults(r)));
  return r;
}

describe('compare data', () => {
  const runs: RunInput[] = [
    { name: 'a', results: results('a', 2) },
    { name: 'b', results: results('b', 3) },
  ];

  it('busiest ports: by mean queue, then max; only ports with a sampled queue; hosts never', () => {
    expect(busiestPorts(runs)).toEqual(['s1:1', 's1:0']);
  });

  it('carries summaries, bucket stats, port and counter numbers and the slow-flow trace per algorithm', () => {
    const d = compareData(runs);
    expect(d).toMatchObject({
      version: 1,
      scenario: 'unit',
      seed: 1,
      algorithms: ['a', 'b'],
      bucketRule: 'distinct',
    });
    expect(d.byAlgorithm.b.summary).toEqual(runs[1].results.summary);
    expect(d.byAlgorithm.b.buckets.map((b) => [b.bucket, b.count, b.unfinished, b.p50])).toEqual([
      ['10 KB', 1, 0, 3],
      ['20 KB', 1, 0, 6],
      ['30 KB', 0, 1, null],
    ]);
    expect(d.byAlgorithm.a.counters).toMatchObject({
      pfcPausedNs: 1600,
      pfcPauseTx: 6, // switch ports only
      pfcPauseRx: 12,
      cnpTx: 14,
      cnmTx: 20,
    });
    expect(d.byAlgorithm.a.ports[0]).toMatchObject({ port: 's1:1', meanQueueBytes: 300, maxQueueBytes: 900 });
    // The unfinished flow ranks first (≥ 10× its ideal at the end of the run).
    expect(d.byAlgorithm.a.slowFlows.map((f) => f.flow)).toEqual([2, 1, 0]);
    expect(d.byAlgorithm.a.slowFlows[0]).toMatchObject({ src: 'h3', fctNs: null, drops: { cnp: 1 } });
  });

  it('every chart lists the series it must draw, and every series has rows', () => {
    const d = compareData(runs);
    const charts = reportCharts(d, runs);
    expect(charts.map((c) => c.id)).toEqual([
      'slowdown',
      'queue-cdf',
      'queue-time',
      'rate-0',
      'rate-1',
      'counters',
      'why-0',
      'why-1',
    ]);
    for (const c of charts) {
      const rows = (c.vl.data as { values: { desc: string }[] }).values;
      for (const s of c.series) expect(rows.some((r) => r.desc.startsWith(`${s} — `))).toBe(true);
    }
  });
});

describe('real runs in the report', () => {
  /** A wallclock run: results('a', 2) with the realtime section a real runtime adds. */
  function wallclock(): Results {
    const r = results('a', 2);
    r.runtime = 'local';
    r.timeScale = 1000;
    r.realtime = {
      sync: 'wallclock',
      processes: 2,
      dilation: null,
      promiseDatagrams: 0,
      dataFrames: 500,
      datagrams: 400,
      trainDatagrams: 20,
      bundles: 0,
      bundledDatagrams: 0,
      linksDown: [],
      lateFrames: 12,
      worstLate: { node: 's1', maxLateNs: 2500 },
      minLinkDelayNs: 1000,
      pauses: {
        gcMaxMs: 3.5,
        gcOver1Ms: 2,
        eventLoopMaxMs: 4.25,
        longGc: [
          { node: 's1', atNs: 150, durationMs: 3.5, kind: 'minor' },
          { node: 'h1', atNs: 4200, durationMs: 1.25, kind: 'major' },
        ],
      },
      resentDatagrams: 3,
      lateOverTime: { binNs: 100, counts: [0, 10, 0, 2] },
    };
    resultsSchema.parse(JSON.parse(serializeResults(r)));
    return r;
  }

  it('carries the realtime section with the timeScale; virtual runs have none, so their compare.json is unchanged', () => {
    const d = compareData([
      { name: 'real', results: wallclock() },
      { name: 'virtual', results: results('b', 3) },
    ]);
    expect(d.byAlgorithm.real.realtime).toMatchObject({ timeScale: 1000, sync: 'wallclock', lateFrames: 12 });
    expect('realtime' in d.byAlgorithm.virtual).toBe(false);
  });

  it('charts late frames by due time (only bins with some) and the long collections of each run', async () => {
    const runs: RunInput[] = [{ name: 'real', results: wallclock() }];
    const late = reportCharts(compareData(runs), runs).find((c) => c.id === 'late');
    expect(late?.series).toEqual(['late real', 'gc real']);
    const rows = (late!.vl.data as { values: Record<string, unknown>[] }).values;
    expect(rows.filter((r) => r.layer === 'late').map((r) => [r.t, r.t2, r.count])).toEqual([
      [0.1, 0.2, 10],
      [0.3, 0.4, 2],
    ]);
    expect(rows.filter((r) => r.layer === 'gc').map((r) => [r.t, r.ms])).toEqual([
      [0.15, 3.5],
      [4.2, 1.25],
    ]);
    // Both layers draw: every mark carries its row's description.
    const svg = await renderSvg(late!.vl);
    expect(svg.match(/aria-label="[^"]*late real — /g)?.length).toBe(2);
    expect(svg.match(/aria-label="[^"]*gc real — /g)?.length).toBe(2);
    // No late frame and no long collection: nothing to chart.
    const quiet = wallclock();
    quiet.realtime!.lateFrames = 0;
    quiet.realtime!.lateOverTime = { binNs: 100, counts: [0, 0] };
    quiet.realtime!.pauses.longGc = [];
    const q: RunInput[] = [{ name: 'q', results: quiet }];
    expect(reportCharts(compareData(q), q).map((c) => c.id)).not.toContain('late');
  });

  it('the page has a Real time section with the numbers for real runs only', () => {
    const real = compareData([{ name: 'real', results: wallclock() }]);
    const html = reportHtml(real, [], 'test');
    expect(html).toContain('<h2 id="realtime">Real time</h2>');
    expect(html).toContain('data-alg="real" data-table="realtime" data-key="lateFrames" data-value="12"');
    expect(html).toContain('data-key="gcMaxMs" data-value="3.5"');
    const virtual = compareData([{ name: 'v', results: results('b', 3) }]);
    expect(reportHtml(virtual, [], 'test')).not.toContain('id="realtime"');
  });
});
