import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/env/rng.js';
import { buildLeafSpine, buildStar } from '../../src/topology/build.js';
import {
  cdfMeanBytes,
  cdfQuantile,
  loadCdf,
  parseCdf,
  sampleFlowSize,
  WorkloadError,
} from '../../src/workload/cdf.js';
import { derangement, generateWorkload, type WorkloadSpec } from '../../src/workload/generate.js';
import { alltoallSpec, flowsSpec, hostRange, incastSpec, permutationSpec, poissonSpec } from './specs.js';

const L100 = { rateBps: 100e9, delayNs: 1000 };
const leafspine = buildLeafSpine({ leaves: 4, hostsPerLeaf: 4, spines: 4, hostLink: L100 });

describe('CDFs', () => {
  it('built-in CDFs load, with the trapezoid means of the HPCC simulator CDFs', () => {
    expect(cdfMeanBytes(loadCdf('websearch'))).toBeCloseTo(1711250, 6);
    // 120 420.8 to 0.1 B.
    expect(Math.abs(cdfMeanBytes(loadCdf('fb_hadoop')) - 120420.8)).toBeLessThan(0.1);
  });

  it("the Dolce-RC paper's workloads have the statistics it quotes (§V-C: 701 KB / 71 %, 7.41 MB / 91 %)", () => {
    // Cache Follower: the Homa simulator's file states its mean, 718 204.9 B = 701.4 KiB.
    const cf = loadCdf('cache_follower');
    expect(Math.abs(cdfMeanBytes(cf) - 718204.9)).toBeLessThan(0.1);
    expect(cdfQuantile(cf, 0.7138)).toBe(588724);
    expect(cdfQuantile(cf, 0.7139)).toBe(1385457);
    // Data Mining (ExpressPass's VL2 CDF): 7.49 MB by linear interpolation, 1.1 % above the paper's 7.41 MB.
    const dm = loadCdf('data_mining');
    expect(Math.abs(cdfMeanBytes(dm) / 7.41e6 - 1)).toBeLessThan(0.012);
    expect(cdfQuantile(dm, 0.91)).toBeLessThan(1e6);
    expect(cdfQuantile(dm, 0.913)).toBeGreaterThan(1e6);
  });

  it('inverse CDF interpolates linearly between points', () => {
    const ws = loadCdf('websearch');
    expect(cdfQuantile(ws, 0)).toBe(0);
    expect(cdfQuantile(ws, 0.15)).toBe(10000);
    expect(cdfQuantile(ws, 0.175)).toBeCloseTo(15000, 6);
    expect(cdfQuantile(ws, 0.985)).toBeCloseTo(20e6, 3);
    expect(cdfQuantile(ws, 1)).toBe(30e6);
  });

  it('sampled mean matches the CDF mean (every built-in distribution)', () => {
    for (const name of ['websearch', 'fb_hadoop', 'cache_follower']) {
      const cdf = loadCdf(name);
      const rng = createRng(7);
      const n = 400_000;
      let sum = 0;
      for (let i = 0; i < n; i++) sum += sampleFlowSize(cdf, rng);
      // Sizes are truncated to whole bytes (−0.5 B on average); the tail makes the SE ~0.3 %.
      expect(Math.abs(sum / n / cdfMeanBytes(cdf) - 1)).toBeLessThan(0.015);
    }
  });

  it('accepts percent files (HPCC format) and rejects malformed ones', () => {
    const c = parseCdf('0 0\n100 50\n200 100\n', 'pct');
    expect(cdfMeanBytes(c)).toBeCloseTo(100, 9);
    expect(() => parseCdf('10 0.5\n20 1\n', 'x')).toThrow(WorkloadError);
    expect(() => parseCdf('0 0\n20 0.5\n', 'x')).toThrow(/last/);
    expect(() => parseCdf('0 0\n20 0.7\n10 1\n', 'x')).toThrow(/decrease/);
    expect(() => parseCdf('0 0\nabc 1\n', 'x')).toThrow(/line 2/);
    expect(() => loadCdf('no/such/file.cdf')).toThrow(/cannot read/);
  });
});

describe('workload generators', () => {
  const rng = createRng(1);

  it('incast: one flow per sender, rounds intervalNs apart, optional seeded start spread', () => {
    const star = buildStar({ hosts: 9, link: L100 });
    const senders = hostRange(8);
    const w = generateWorkload(star, [incastSpec({ senders, receiver: 'h9', sizeBytes: 1e6, startNs: 5 })], {
      rng,
    });
    expect(w.flows).toHaveLength(8);
    expect(w.flows.every((f) => f.dst === 'h9' && f.sizeBytes === 1e6 && f.startNs === 5)).toBe(true);
    expect(new Set(w.flows.map((f) => f.qpKey)).size).toBe(8);
    const timed = generateWorkload(
      star,
      [
        incastSpec({
          senders,
          receiver: 'h9',
          sizeBytes: 1000,
          count: 3,
          intervalNs: 100,
          flowsPerSender: 2,
        }),
      ],
      { rng },
    );
    expect(timed.flows.map((f) => f.startNs)).toEqual([
      ...Array(16).fill(0),
      ...Array(16).fill(100),
      ...Array(16).fill(200),
    ]);
    const spread = generateWorkload(
      star,
      [incastSpec({ senders, receiver: 'h9', sizeBytes: 1000, startNs: 1000, startSpreadNs: 500 })],
      { rng: createRng(4) },
    );
    const starts = spread.flows.map((f) => f.startNs);
    expect(starts.every((t) => t >= 1000 && t < 1500)).toBe(true);
    expect(new Set(starts).size).toBeGreaterThan(4);
  });

  it('permutation: a derangement (nobody sends to itself, everyone receives once)', () => {
    for (let s = 0; s < 50; s++) {
      const p = derangement(16, createRng(s));
      expect(new Set(p).size).toBe(16);
      expect(p.some((v, i) => v === i)).toBe(false);
    }
    const w = generateWorkload(leafspine, [permutationSpec({ hosts: hostRange(16), sizeBytes: 1e6 })], {
      rng,
    });
    expect(new Set(w.flows.map((f) => f.dst)).size).toBe(16);
    expect(w.flows.every((f) => f.src !== f.dst)).toBe(true);
  });

  it('alltoall: n(n-1) messages per iteration, one QP per ordered pair, a gate per host and later iteration', () => {
    const hosts = ['h1', 'h2', 'h3', 'h4'];
    const w = generateWorkload(
      leafspine,
      [alltoallSpec({ hosts, messageBytes: 4096, iterations: 3, gapNs: 7 })],
      {
        rng,
      },
    );
    expect(w.flows).toHaveLength(3 * 12);
    expect(new Set(w.flows.map((f) => f.qpKey)).size).toBe(12);
    // A gate per (host, iteration) after the first, at that host: its n-1 sends of the previous
    // iteration acknowledged and its n-1 receives arrived, then the gap.
    expect(w.gates).toHaveLength(8);
    expect(w.flows.slice(0, 12).every((f) => f.gate === -1)).toBe(true);
    for (const [it, flows] of [w.flows.slice(12, 24), w.flows.slice(24, 36)].entries()) {
      for (const f of flows) {
        const g = w.gates[f.gate];
        expect(g.host).toBe(f.src);
        expect(g.computeNs).toBe(7);
        const prev = w.flows.slice(it * 12, (it + 1) * 12);
        const acked = prev.filter((p) => p.src === f.src).map((p) => p.id);
        const received = prev.filter((p) => p.dst === f.src).map((p) => p.id);
        expect(g.after.flatMap((e) => (e.on === 'acked' ? [e.flow] : []))).toEqual(acked);
        expect(g.after.flatMap((e) => (e.on === 'received' ? [e.flow] : []))).toEqual(received);
      }
    }
    // qpsPerPair splits each message over that many QPs.
    const split = generateWorkload(leafspine, [alltoallSpec({ hosts, messageBytes: 4097, qpsPerPair: 2 })], {
      rng,
    });
    expect(split.flows).toHaveLength(24);
    expect(split.flows.slice(0, 2).map((f) => f.sizeBytes)).toEqual([2049, 2048]);
    expect(new Set(split.flows.map((f) => f.qpKey)).size).toBe(24);
  });

  it('poisson: same seed ⇒ same flows; another seed ⇒ other arrivals', () => {
    const entry = poissonSpec({ cdf: 'websearch', load: 0.5, hosts: hostRange(16), stopNs: 10e6 });
    const a = generateWorkload(leafspine, [entry], { rng: createRng(1) });
    const b = generateWorkload(leafspine, [entry], { rng: createRng(1) });
    const c = generateWorkload(leafspine, [entry], { rng: createRng(2) });
    expect(a.flows).toEqual(b.flows);
    expect(c.flows.map((f) => f.startNs)).not.toEqual(a.flows.map((f) => f.startNs));
    // ~10 ms / 274 us × 16 hosts ≈ 584 flows.
    expect(a.flows.length).toBeGreaterThan(450);
    expect(a.flows.length).toBeLessThan(720);
    for (let i = 1; i < a.flows.length; i++)
      expect(a.flows[i].startNs).toBeGreaterThanOrEqual(a.flows[i - 1].startNs);
    expect(a.flows.every((f, i) => f.id === i && f.src !== f.dst && f.startNs < 10e6)).toBe(true);
    const capped = generateWorkload(leafspine, [{ ...entry, maxFlows: 100 }], { rng: createRng(1) });
    expect(capped.flows).toEqual(a.flows.slice(0, 100));
  });

  it('poisson with receivers: sources send only to them; sharedQp: one QP per pair', () => {
    const base = { cdf: 'websearch', load: 0.5, hosts: ['h1', 'h2'], stopNs: 10e6 };
    const w = generateWorkload(leafspine, [poissonSpec({ ...base, receivers: ['h9'], sharedQp: true })], {
      rng,
    });
    expect(w.flows.length).toBeGreaterThan(40);
    expect(w.flows.every((f) => (f.src === 'h1' || f.src === 'h2') && f.dst === 'h9')).toBe(true);
    expect(new Set(w.flows.map((f) => f.qpKey))).toEqual(new Set(['p0:h1>h9', 'p0:h2>h9']));
    const own = generateWorkload(leafspine, [poissonSpec({ ...base, receivers: ['h9', 'h10'] })], { rng });
    expect(new Set(own.flows.map((f) => f.dst))).toEqual(new Set(['h9', 'h10']));
    expect(new Set(own.flows.map((f) => f.qpKey)).size).toBe(own.flows.length);
    expect(() =>
      generateWorkload(leafspine, [poissonSpec({ ...base, receivers: ['h1'], hosts: ['h1'] })], { rng }),
    ).toThrow(WorkloadError);
  });

  it('poisson: offered load within a few % of the target over many flows', () => {
    for (const [cdf, load, durationNs] of [
      ['fb_hadoop', 0.3, 200e6],
      ['websearch', 0.5, 2000e6],
    ] as const) {
      const w = generateWorkload(
        leafspine,
        [poissonSpec({ cdf, load, hosts: hostRange(16), stopNs: durationNs })],
        {
          rng: createRng(3),
        },
      );
      const bytes = w.flows.reduce((s, f) => s + f.sizeBytes, 0);
      const offered = (bytes * 8) / ((durationNs / 1e9) * 100e9 * 16);
      expect(w.flows.length).toBeGreaterThan(10_000);
      expect(Math.abs(offered / load - 1)).toBeLessThan(0.04);
      // Destinations spread uniformly over the other hosts.
      const perDst = new Map<string, number>();
      for (const f of w.flows) perDst.set(f.dst, (perDst.get(f.dst) ?? 0) + 1);
      for (const n of perDst.values()) expect(Math.abs(n / (w.flows.length / 16) - 1)).toBeLessThan(0.1);
    }
  });

  it('rejects unknown hosts and bad parameters with a WorkloadError', () => {
    const bad: WorkloadSpec[] = [
      flowsSpec([{ src: 'h1', dst: 'h99', sizeBytes: 10 }]),
      flowsSpec([{ src: 'h1', dst: 'h1', sizeBytes: 10 }]),
      flowsSpec([{ src: 'h1', dst: 'h2', sizeBytes: 0 }]),
      incastSpec({ senders: ['h1', 'h2'], receiver: 'h2', sizeBytes: 10 }),
      poissonSpec({ cdf: 'websearch', load: 0, hosts: hostRange(4), stopNs: 1 }),
      alltoallSpec({ hosts: hostRange(4), messageBytes: 10, iterations: 0 }),
    ];
    for (const e of bad) expect(() => generateWorkload(leafspine, [e], { rng })).toThrow(WorkloadError);
  });
});
