/** The virtual runtime's own mechanics, with minimal stub firmware (exact, CC-free timing). */
import { describe, expect, it } from 'vitest';
import { MSG_ID_SPACE } from '../../src/runtime/app/host-app.js';
import { rocev2SrcPort } from '../../src/runtime/app/qp.js';
import { serializeResults } from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { FrameKind } from '../../src/wire/packet.js';
import { createPacket, recycledFrameCount } from '../../src/wire/packet-factory.js';
import { makeRun } from './helpers.js';
import { createStubNic } from './stub-firmware.js';

const BASE = `
seed: 1
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, mtu: 1000 }
`;

describe('virtual runtime mechanics (stub firmware)', () => {
  it('RoCEv2 source port follows the Linux convention (docs/wire.md §1.3 UDP; golden vector)', () => {
    expect(rocev2SrcPort(0x0011a2, 0x0022b3)).toBe(55407);
    expect(rocev2SrcPort(0x0022b3, 0x0011a2)).toBe(55407);
  });

  it('a lone flow: link delays and store-and-forward timing give FCT ≈ idealFctNs', () => {
    const { run } = makeRun(
      `${BASE}
duration: 1ms
topology: { kind: star, hosts: 2 }
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 100KB, start: 1us, verb: send }]
`,
      { stub: true },
    );
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
    const { run } = makeRun(
      `${BASE}
duration: 1ms
sampleInterval: 1us
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1..h8], receiver: h9, size: 100KB }
`,
      { stub: true },
    );
    const r = run.run();
    expect(() => resultsSchema.parse(JSON.parse(serializeResults(r)))).not.toThrow();
    expect(r.summary.flowsCompleted).toBe(8);
    // All 8 × 100 frames reach the receiver port at once; it drains at line rate.
    expect(r.summary.maxQueueBytes).toBeGreaterThan(6 * 100 * 1062);
    const q = r.series.queue['s1:8'];
    // Flat [t, bytes, t, bytes, …]: samples 1 µs apart.
    expect(q[2] - q[0]).toBe(1000);
    expect(Math.max(...q.filter((_, i) => i % 2 === 1))).toBeGreaterThan(0);
    expect(Object.keys(r.series.queue)).toEqual(['s1:8']);
    expect(Object.keys(r.series.rate)).toHaveLength(8);
    expect(r.summary.goodputBps).toBeGreaterThan(0.85 * 100e9 * (1000 / 1062));
    expect(r.summary.jain).toBeGreaterThan(0.8);
    expect(r.durationNs).toBe(Math.max(...r.flows.map((f) => f.endNs!)));
    expect(r.ccByHost).toEqual(
      Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`h${i + 1}`, 'none'])),
    );
  });

  it('hard stop at the duration: unfinished flows are reported with null end', () => {
    const { run } = makeRun(
      `${BASE}
duration: 100us
topology: { kind: star, hosts: 2 }
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 10MB }]
`,
      { stub: true },
    );
    const r = run.run();
    expect(r.durationNs).toBe(100_000);
    expect(r.flows[0]).toMatchObject({ endNs: null, fctNs: null, slowdown: null });
    expect(r.warnings).toEqual(['1 of 1 flows did not complete by 100000 ns']);
    expect(r.summary.goodputBps).toBeGreaterThan(0.9 * 100e9 * (1000 / 1062));
    const rate = r.series.rate['0'];
    expect(rate.length).toBe(2 * 2001);
    expect(rate[rate.length - 2]).toBe(100_000);
  });

  it('messageSize splits a flow; long-lived flows stream messages until stop, then drain', () => {
    const { run } = makeRun(
      `${BASE}
duration: 1ms
topology: { kind: star, hosts: 3 }
workload:
  - kind: flows
    flows:
      - { src: h1, dst: h3, size: 100KB, messageSize: 30KB }
      - { src: h2, dst: h3, size: inf, messageSize: 64KB, stop: 200us }
`,
      { stub: true },
    );
    const r = run.run();
    const [split, long] = run.flows;
    expect(split.messagesPosted).toBe(4);
    expect(r.flows[0].endNs).not.toBeNull();
    expect(long.stopped).toBe(true);
    expect(r.flows[1].endNs).toBeGreaterThanOrEqual(200_000);
    expect(r.flows[1].sizeBytes).toBe(long.messagesPosted * 64_000);
    expect(long.deliveredBytes).toBe(r.flows[1].sizeBytes);
    expect(r.summary.flowsCompleted).toBe(2);
  });

  it('alltoall: iteration i+1 of a host starts gap after its own iteration-i sends were acknowledged and receives arrived', () => {
    // Receiver completions (flow id → when its message arrived at its receiver), as the NIC
    // reported them to the receiving host.
    const arrived = new Map<number, number>();
    const { run } = makeRun(
      `${BASE}
duration: 1ms
topology: { kind: leafspine, leaves: 2, hostsPerLeaf: 2, spines: 2 }
workload:
  - { kind: alltoall, messageSize: 20KB, iterations: 3, gap: 100ns }
`,
      {
        stub: true,
        createNic: (env, cfg) =>
          createStubNic(env, {
            ...cfg,
            observer: {
              onMessageComplete: (c) => {
                if (c.role === 'receiver') arrived.set(Math.floor(c.id / MSG_ID_SPACE), c.completeNs);
                cfg.observer.onMessageComplete(c);
              },
            },
          }),
      },
    );
    const r = run.run();
    expect(r.summary.flowsCompleted).toBe(36);
    expect(arrived.size).toBe(36);
    const byIter = [0, 1, 2].map((i) => r.flows.slice(i * 12, (i + 1) * 12));
    for (let i = 1; i < 3; i++) {
      for (const f of byIter[i]) {
        const sent = byIter[i - 1].filter((g) => g.src === f.src).map((g) => g.endNs!);
        const received = byIter[i - 1].filter((g) => g.dst === f.src).map((g) => arrived.get(g.id)!);
        expect(sent).toHaveLength(3);
        expect(received).toHaveLength(3);
        expect(f.startNs).toBe(Math.max(...sent, ...received) + 100);
      }
    }
    // One QP per ordered pair, reused across iterations.
    const qpns = new Set(run.flows.map((f) => `${f.qp.src.name}:${f.qp.srcQpn}`));
    expect(qpns.size).toBe(12);
  });

  it('same seed ⇒ byte-identical results; another seed ⇒ different arrivals', () => {
    const yaml = `${BASE}
duration: 2ms
topology: { kind: leafspine, leaves: 2, hostsPerLeaf: 4, spines: 2 }
workload:
  - { kind: poisson, cdf: fb_hadoop, load: 0.3, stop: 200us }
`;
    const go = (seed?: number) => serializeResults(makeRun(yaml, { stub: true, seed }).run.run());
    const a = go();
    expect(go()).toBe(a);
    expect(go(1)).toBe(a);
    const c = go(6);
    const starts = (s: string) => (JSON.parse(s).flows as { startNs: number }[]).map((f) => f.startNs);
    expect(starts(c)).not.toEqual(starts(a));
    expect(JSON.parse(c).seed).toBe(6);
  });

  it('scenario link loss is seeded per link and counted as drops on the sending port', () => {
    const yaml = `${BASE}
duration: 100us
topology: { kind: star, hosts: 2 }
links: [{ a: s1, b: h2, loss: 0.05 }]
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 200KB }]
`;
    const r = makeRun(yaml, { stub: true }).run.run();
    const s1 = r.ports.find((p) => p.node === 's1' && p.port === 1)!;
    const h2 = r.ports.find((p) => p.node === 'h2')!;
    expect(s1.drops + h2.drops).toBeGreaterThan(0);
    expect(r.summary.drops).toBe(s1.drops + h2.drops);
    expect(makeRun(yaml, { stub: true }).run.run().ports).toEqual(r.ports);
    let acksSeen = 0;
    makeRun(yaml.replace('200KB', '10KB').replace('loss: 0.05', 'loss: 0'), {
      stub: true,
      drop: (_n, _p, pkt) => {
        if (pkt.kind === FrameKind.Ack) acksSeen++;
        return false;
      },
    }).run.run();
    // The drop filter sees every ACK on both of its links (h2→s1, s1→h1).
    expect(acksSeen).toBe(20);
  });
});

describe('frame recycling (VirtualRunInput.recyclePackets)', () => {
  const yaml = `
seed: 3
duration: 2ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 2MB, ecn: { kmin: 20KB, kmax: 80KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 5 }
workload:
  - { kind: incast, senders: [h1, h2, h3, h4], receiver: h5, size: 200KB, start: 0 }
  - kind: flows
    flows: [{ src: h5, dst: h1, size: 50KB, start: 10us, verb: write }]
`;

  it('reusing received frames changes nothing in results, and frames are reused', () => {
    const plain = makeRun(yaml).run.run();
    while (recycledFrameCount() > 0) createPacket();
    const recycled = makeRun(yaml, { recyclePackets: true }).run.run();
    expect(recycledFrameCount()).toBeGreaterThan(0);
    expect(recycled.summary.flowsCompleted).toBe(5);
    expect(serializeResults(recycled)).toBe(serializeResults(plain));
  });

  it('is off when a tap could keep frames', () => {
    while (recycledFrameCount() > 0) createPacket();
    const seen: unknown[] = [];
    makeRun(yaml, {
      recyclePackets: true,
      tap: { onTx: (n, _p, pkt) => n.kind === 'host' && seen.push(pkt) },
    }).run.run();
    expect(recycledFrameCount()).toBe(0);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
