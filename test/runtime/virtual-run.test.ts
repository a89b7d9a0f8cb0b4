/** The virtual runtime's own mechanics, with minimal stub firmware (exact, CC-free timing). */
import { describe, expect, it } from 'vitest';
import { rocev2SrcPort } from '../../src/runtime/virtual/qp.js';
import { serializeResults } from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { buildLeafSpine, buildStar } from '../../src/topology/build.js';
import { FrameKind } from '../../src/wire/packet.js';
import { makeRun } from './helpers.js';

const L100 = { rateBps: 100e9, delayNs: 1000 };

describe('virtual runtime mechanics (stub firmware)', () => {
  it('RoCEv2 source port follows the Linux convention (wire.md §3 vector)', () => {
    expect(rocev2SrcPort(0x0011a2, 0x0022b3)).toBe(55407);
    expect(rocev2SrcPort(0x0022b3, 0x0011a2)).toBe(55407);
  });

  it('a lone flow: link delays and store-and-forward timing give FCT ≈ idealFctNs', () => {
    const topo = buildStar({ hosts: 2, link: L100 });
    const run = makeRun({
      topo,
      entries: [
        { kind: 'flows', verb: 'send', flows: [{ src: 'h1', dst: 'h2', sizeBytes: 100_000, startNs: 1000 }] },
      ],
      durationNs: 1e6,
    });
    const r = run.run();
    const f = r.flows[0];
    expect(f.startNs).toBe(1000);
    // 100 frames of 1062 B (85 ns each after rounding up), one more hop for the last, 2 × 2 us, 2 ACK hops.
    expect(f.fctNs).toBe(100 * 85 + 85 + 4000 + 2 * 6);
    expect(f.idealFctNs).toBe(4160 + 8496);
    expect(Math.abs(f.fctNs! / f.idealFctNs - 1)).toBeLessThan(0.01);
    // The run ends when the last flow completes.
    expect(r.durationNs).toBe(f.endNs);
    expect(r.summary.flowsCompleted).toBe(1);
    expect(r.warnings).toEqual([]);
  });

  it('incast: receiver port queue builds, series sampled at the interval, results valid', () => {
    const topo = buildStar({ hosts: 9, link: L100 });
    const senders = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8'];
    const run = makeRun({
      topo,
      entries: [{ kind: 'incast', senders, receiver: 'h9', sizeBytes: 100_000 }],
      durationNs: 1e6,
      sampleIntervalNs: 1000,
    });
    const r = run.run();
    expect(() => resultsSchema.parse(JSON.parse(serializeResults(r)))).not.toThrow();
    expect(r.summary.flowsCompleted).toBe(8);
    // All 8 × 100 frames reach the receiver port at once; it drains at line rate.
    expect(r.summary.maxQueueBytes).toBeGreaterThan(6 * 100 * 1062);
    const q = r.series.queue['s1:8'];
    expect(q[1][0] - q[0][0]).toBe(1000);
    expect(Math.max(...q.map((p) => p[1]))).toBeGreaterThan(0);
    expect(Object.keys(r.series.queue)).toEqual(['s1:8']);
    expect(Object.keys(r.series.rate)).toHaveLength(8);
    // Goodput: 800 kB delivered over the run, close to line rate × payload efficiency.
    expect(r.summary.goodputBps).toBeGreaterThan(0.85 * 100e9 * (1000 / 1062));
    expect(r.summary.jain).toBeGreaterThan(0.8);
    const last = Math.max(...r.flows.map((f) => f.endNs!));
    expect(r.durationNs).toBe(last);
  });

  it('hard stop at the duration: unfinished flows are reported with null end', () => {
    const topo = buildStar({ hosts: 2, link: L100 });
    const run = makeRun({
      topo,
      entries: [{ kind: 'flows', flows: [{ src: 'h1', dst: 'h2', sizeBytes: 10_000_000, startNs: 0 }] }],
      durationNs: 100_000,
    });
    const r = run.run();
    expect(r.durationNs).toBe(100_000);
    expect(r.flows[0]).toMatchObject({ endNs: null, fctNs: null, slowdown: null });
    expect(r.warnings).toEqual(['1 of 1 flows did not complete by 100000 ns']);
    expect(r.summary.goodputBps).toBeGreaterThan(0.9 * 100e9 * (1000 / 1062));
    const rate = r.series.rate['0'];
    expect(rate.length).toBe(2001);
    expect(rate[rate.length - 1][0]).toBe(100_000);
  });

  it('alltoall: iteration i+1 of a host starts when its iteration-i messages completed', () => {
    const topo = buildLeafSpine({ leaves: 2, hostsPerLeaf: 2, spines: 2, hostLink: L100 });
    const run = makeRun({
      topo,
      entries: [{ kind: 'alltoall', messageBytes: 20_000, iterations: 3 }],
      durationNs: 1e6,
    });
    const r = run.run();
    expect(r.summary.flowsCompleted).toBe(36);
    const byIter = [0, 1, 2].map((i) => r.flows.slice(i * 12, (i + 1) * 12));
    for (let i = 1; i < 3; i++) {
      for (const f of byIter[i]) {
        const prev = byIter[i - 1].filter((g) => g.src === f.src || g.dst === f.src);
        expect(prev).toHaveLength(6);
        expect(f.startNs).toBe(Math.max(...prev.map((g) => g.endNs!)));
      }
    }
    // One QP per ordered pair, reused across iterations.
    const qpns = new Set(run.flows.map((f) => `${f.qp.src.name}:${f.qp.srcQpn}`));
    expect(qpns.size).toBe(12);
  });

  it('same seed ⇒ byte-identical results; another seed ⇒ different arrivals', () => {
    const topo = buildLeafSpine({ leaves: 2, hostsPerLeaf: 4, spines: 2, hostLink: L100 });
    const go = (seed: number) =>
      serializeResults(
        makeRun({
          topo,
          seed,
          entries: [{ kind: 'poisson', cdf: 'fb_hadoop', load: 0.3, durationNs: 200_000 }],
          durationNs: 2e6,
        }).run(),
      );
    const a = go(5);
    expect(go(5)).toBe(a);
    const c = go(6);
    expect(c).not.toBe(a);
    const starts = (s: string) => (JSON.parse(s).flows as { startNs: number }[]).map((f) => f.startNs);
    expect(starts(c)).not.toEqual(starts(a));
  });

  it('injected loss is seeded per link and counted as drops on the sending port', () => {
    const topo = buildStar({ hosts: 2, link: L100 });
    const mk = () =>
      makeRun({
        topo,
        entries: [{ kind: 'flows', flows: [{ src: 'h1', dst: 'h2', sizeBytes: 200_000 }] }],
        durationNs: 100_000,
        extra: { loss: { rate: 0.05, match: (n) => n.name === 's1' } },
      }).run();
    const r = mk();
    const s1 = r.ports.find((p) => p.node === 's1' && p.port === 1)!;
    expect(s1.drops).toBeGreaterThan(0);
    expect(s1.drops).toBeLessThan(30);
    expect(r.summary.drops).toBe(s1.drops);
    expect(mk().ports).toEqual(r.ports);
    // Only data frames are subject to loss by default.
    let acksLost = 0;
    makeRun({
      topo,
      entries: [{ kind: 'flows', flows: [{ src: 'h1', dst: 'h2', sizeBytes: 10_000 }] }],
      durationNs: 100_000,
      extra: {
        drop: (_n, _p, pkt) => {
          if (pkt.kind === FrameKind.Ack) acksLost++;
          return false;
        },
      },
    }).run();
    // The drop filter sees every ACK on both of its links (h2→s1, s1→h1).
    expect(acksLost).toBe(20);
  });
});
