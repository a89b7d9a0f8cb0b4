/**
 * The virtual engine's windows (engine-scheduler.ts runWindowed): nodes run node by node within
 * windows of the least link delay; hosts instant by instant where the run may end within the
 * window. The claim is exactness: every node sees the same events in the same order as in the
 * time-ordered loop, so a run's results.json is byte-identical either way. Each case here is
 * built to reach one part of that argument (the end of a run inside a window, a sampler instant
 * inside a window, timers at a sampler's instant, several delay classes, every transport's way
 * of completing a flow); scripts/virtual-identity.mjs holds the shipped and paper scenarios to it.
 */
import { describe, expect, it } from 'vitest';
import { serializeResults } from '../../src/stats/results.js';
import { makeRun, type TestRunOptions } from './helpers.js';

/** Results of one scenario with and without windows, and whether each run had them on. */
function both(yaml: string, o: TestRunOptions = {}) {
  const w = makeRun(yaml, { ...o, windows: true });
  const t = makeRun(yaml, { ...o, windows: false });
  const windowed = w.run.sched.windowed;
  const ordered = t.run.sched.windowed;
  const a = w.run.run();
  const b = t.run.run();
  return {
    windowed,
    ordered,
    a: serializeResults(a),
    b: serializeResults(b),
    eventsA: w.run.sched.eventsProcessed,
    eventsB: t.run.sched.eventsProcessed,
    resultsA: a,
    hostByHost: w.run.sched.windowsHostByHost,
    hostsStepped: w.run.sched.windowsHostsStepped,
    // Flows that completed while the run counted them as unable to (VirtualRun.endBlocking).
    broken: w.run.endBlockingBroken + t.run.endBlockingBroken,
  };
}

describe('virtual engine windows: the same results as time order', () => {
  it('a leaf-spine under WebSearch with DCQCN, PFC and ECN: identical results and event counts', () => {
    const r = both(`
seed: 3
duration: 3ms
sampleInterval: 2us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 2MB, ecn: { kmin: 40KB, kmax: 160KB, pmax: 0.2 }, pfc: true }
topology: { kind: leafspine, leaves: 2, hostsPerLeaf: 4, spines: 2 }
workload:
  - { kind: poisson, cdf: websearch, load: 0.6, start: 0, stop: 300us }
`);
    expect(r.windowed).toBe(true);
    expect(r.ordered).toBe(false);
    expect(r.resultsA.summary.flowsCompleted).toBeGreaterThan(10);
    expect(r.eventsA).toBe(r.eventsB);
    expect(r.a).toBe(r.b);
    // Most windows ran hosts host by host; those near the end instant by instant.
    expect(r.hostByHost).toBeGreaterThan(10 * r.hostsStepped);
    expect(r.hostsStepped).toBeGreaterThan(0);
    expect(r.broken).toBe(0);
  });

  it('the run ends inside a window (last flow completes): every node stops after that instant', () => {
    // 5 µs links: a window spans 5 µs, and the last completion falls inside one.
    const r = both(`
seed: 1
duration: 1ms
sampleInterval: 100us
defaults:
  link: { rate: 100Gbps, delay: 5us }
  nic: { cc: dcqcn, mtu: 1000 }
topology: { kind: leafspine, leaves: 2, hostsPerLeaf: 3, spines: 2 }
workload:
  - { kind: incast, senders: [h1, h2, h4, h5], receiver: h6, size: 37KB }
`);
    expect(r.windowed).toBe(true);
    expect(r.resultsA.summary.flowsCompleted).toBe(4);
    expect(r.resultsA.durationNs % 5000).not.toBe(0);
    expect(r.a).toBe(r.b);
  });

  it('sampler instants inside windows (1 µs samples, 20 µs links) and PFC timers at them', () => {
    // A small buffer makes the switch pause its senders (PFC), so switches hold timers; samples
    // every µs fall inside every 20 µs window, several per window.
    const r = both(`
seed: 2
duration: 400us
sampleInterval: 1us
defaults:
  link: { rate: 100Gbps, delay: 20us }
  nic: { cc: none, mtu: 1000 }
  switch: { buffer: 300KB, pfc: true }
topology: { kind: star, hosts: 7 }
workload:
  - { kind: incast, senders: [h1..h6], receiver: h7, size: 200KB }
`);
    expect(r.windowed).toBe(true);
    expect(r.resultsA.summary.pfcPauseTx).toBeGreaterThan(0);
    expect(r.a).toBe(r.b);
  });

  it('links of several delays (several delay classes): equal-time arrivals keep their order', () => {
    const r = both(`
seed: 5
duration: 2ms
sampleInterval: 3us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 4MB, pfc: true }
topology:
  kind: explicit
  nodes: [h1, h2, h3, h4, s1, s2]
  links:
    - { a: h1, b: s1, delay: 1us }
    - { a: h2, b: s1, delay: 2us }
    - { a: h3, b: s2, delay: 1us }
    - { a: h4, b: s2, delay: 3us }
    - { a: s1, b: s2, delay: 2us }
workload:
  - { kind: incast, senders: [h1, h2, h3], receiver: h4, size: 64KB }
  - { kind: flows, flows: [{ src: h4, dst: h1, size: 32KB, start: 0 }, { src: h3, dst: h2, size: 32KB, start: 0 }] }
`);
    expect(r.windowed).toBe(true);
    expect(r.resultsA.summary.flowsCompleted).toBe(5);
    expect(r.a).toBe(r.b);
  });

  it('a node with many in-links and equal-time arrivals (synchronised 20-to-1 incast): the same order', () => {
    // The switch has 21 in-links and the senders start together, so many frames reach it at
    // the same instant: runNode's heap of in-links must order them as a time-ordered loop does
    // (by rank), or queue order, ECN marks and every flow's completion move.
    const r = both(`
seed: 9
duration: 1ms
sampleInterval: 5us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
  switch: { buffer: 4MB, ecn: { kmin: 20KB, kmax: 80KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 21 }
workload:
  - { kind: incast, senders: [h1..h20], receiver: h21, size: 32KB, start: 0 }
`);
    expect(r.windowed).toBe(true);
    expect(r.resultsA.summary.flowsCompleted).toBe(20);
    expect(r.eventsA).toBe(r.eventsB);
    expect(r.a).toBe(r.b);
  });

  // Hosts run host by host only while some flow cannot complete within one least link delay:
  // not started, or not yet received whole. Every transport must complete a flow at its sender
  // only after its receiver has every byte and one link later; each case checks that (broken)
  // and byte-identical results.
  const transports: [string, string, string][] = [
    [
      'go-back-N, ECMP, PFC',
      'cc: dcqcn, transport: rocev2-gbn, paths: { policy: ecmp, count: 16 }',
      'pfc: true',
    ],
    [
      'selective repeat, REPS spraying',
      'cc: dcqcn, transport: rocev2-sr, paths: { policy: reps, count: 16 }',
      'pfc: true',
    ],
    [
      'UET (NSCC), mixed spraying, trimming',
      'cc: nscc, transport: uet, paths: { policy: mixed, count: 16 }',
      'pfc: false, trim: true',
    ],
    [
      'UET (NSCC) with receiver credits',
      'cc: nscc, transport: uet, rccc: true, paths: { policy: mixed, count: 16 }',
      'pfc: false, trim: true',
    ],
  ];
  for (const [what, nic, sw] of transports) {
    it(`the end of a run under ${what}, with lost frames`, () => {
      const r = both(
        `
seed: 4
duration: 20ms
sampleInterval: 5us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { mtu: 4096, ${nic} }
  switch: { buffer: 600KB, ecn: { kmin: 100KB, kmax: 400KB, pmax: 0.2 }, ${sw} }
topology: { kind: leafspine, leaves: 2, spines: 2, hostsPerLeaf: 4 }
workload:
  - { kind: flows, flows: [{ src: h1, dst: h5, size: 256KB }, { src: h5, dst: h1, size: 192KB }, { src: h3, dst: h7, size: 64KB, start: 30us }] }
  - { kind: incast, senders: [h5, h6, h7, h8], receiver: h2, size: 128KB, start: 10us }
`,
        { loss: { rate: 0.002 } },
      );
      expect(r.windowed).toBe(true);
      expect(r.resultsA.summary.flowsCompleted).toBe(7);
      expect(r.resultsA.hosts.reduce((n, h) => n + h.retransmits, 0)).toBeGreaterThan(0);
      expect(r.hostByHost).toBeGreaterThan(r.hostsStepped);
      expect(r.broken).toBe(0);
      expect(r.a).toBe(r.b);
    });
  }

  it('stays off where something watches frames in time order (a tap), or a link has no delay', () => {
    const yaml = `
seed: 1
duration: 100us
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, mtu: 1000 }
topology: { kind: star, hosts: 2 }
workload:
  - { kind: flows, flows: [{ src: h1, dst: h2, size: 4KB, start: 0 }] }
`;
    expect(makeRun(yaml).run.sched.windowed).toBe(true);
    expect(makeRun(yaml, { tap: { onTx: () => {} } }).run.sched.windowed).toBe(false);
    expect(makeRun(yaml.replace('delay: 1us', 'delay: 0us')).run.sched.windowed).toBe(false);
  });
});
