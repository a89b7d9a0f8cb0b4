/**
 * Issue 5 end to end, virtual time, real NIC and switch firmware: the baselines on an 8-to-1
 * incast at 100 Gbps (star, 1 µs links, PFC, run.py ECN settings per algorithm; helpers.ts).
 *
 * Claims and their sources:
 *  - HPCC (docs/algorithms/hpcc.md, Li et al. SIGCOMM'19): lossless, near-zero queue (≤ 2 MTU) at
 *    utilisation ≈ η = 0.95 after convergence (we ask ≥ 0.9·η), and an incast of short flows
 *    finishes close to the ideal (last of 8 × 300 KB within 1.3 × the time the bottleneck needs
 *    to carry all of them).
 *  - every baseline completes an incast losslessly and shares the bottleneck fairly
 *    (Jain ≥ 0.95), except TIMELY, whose rate update has no unique fixed point (Zhu et al.,
 *    CoNEXT'16 "ECN or delay"): with staggered starts it stays unfair (docs/algorithms/timely.md).
 *  - HPCC with the simulator's R_AI (50 Mb/s, W_AI ≈ 26 B here) is not fair on this small-BDP
 *    star; with the paper's W_AI = W_init(1 − η)/N for the N = 8 flows it is
 *    (docs/algorithms/hpcc.md "Fairness").
 */
import { describe, expect, it } from 'vitest';
import { jainIndex } from '../../src/stats/aggregate.js';
import { makeRun } from '../runtime/helpers.js';
import { incast, MTU_BYTES, show } from './helpers.js';

const ETA = 0.95;

describe('HPCC 8-to-1 incast at 100 Gbps', () => {
  it('long flows: lossless; after convergence mean queue ≤ 2 MTU and utilisation ≥ 0.9·η', () => {
    const m = incast('hpcc', { size: 'inf', durationNs: 5e6, fromNs: 3e6, toNs: 5e6 });
    // Jain is printed, not asserted: with the simulator's R_AI HPCC is unfair here (see the top).
    console.log(show('hpcc (simulator defaults)', m));
    expect(m.results.summary.drops).toBe(0);
    expect(m.meanQueueBytes).toBeLessThanOrEqual(2 * MTU_BYTES);
    expect(m.utilisation).toBeGreaterThanOrEqual(0.9 * ETA);
  });

  it('8 × 300 KB: lossless, the last flow finishes within 1.3 × ideal', () => {
    const m = incast('hpcc', { size: '300KB', durationNs: 2e6, fromNs: 1, toNs: 2 });
    const flows = m.results.flows;
    expect(m.results.summary.drops).toBe(0);
    expect(flows.every((f) => f.fctNs !== null)).toBe(true);
    // Ideal for the last one: the bottleneck carries all 8 flows back to back. One flow's ideal
    // is base RTT + wire bytes/rate with the simulator's base RTT 2·2·1 µs + 2·1000 B·8/100 G
    // = 4 160 ns, so all eight need base + 8·(ideal − base).
    const base = 4160;
    const idealLast = base + 8 * (flows[0].idealFctNs - base);
    const last = Math.max(...flows.map((f) => f.fctNs!));
    console.log(
      `hpcc 8 × 300 KB: last FCT ${last} ns = ${(last / idealLast).toFixed(3)} × ideal ${idealLast} ns`,
    );
    expect(last / idealLast).toBeLessThanOrEqual(1.3);
  });
});

describe('each baseline: 8 × 8 MB incast, lossless, fair while all are active', () => {
  const cases: { cc: string; extra?: string }[] = [
    { cc: 'hpcc', extra: 'cc: { hpcc: { expectedFlows: 8 } }' },
    { cc: 'dctcp' },
    { cc: 'swift' },
    { cc: 'timely' },
  ];
  for (const c of cases) {
    it(c.cc, () => {
      const m = incast(c.cc, { size: '8MB', durationNs: 15e6, fromNs: 2e6, toNs: 5e6, extra: c.extra });
      console.log(show(c.cc + (c.extra !== undefined ? ` (${c.extra})` : ''), m));
      const s = m.results.summary;
      expect(s.drops).toBe(0);
      expect(m.results.hosts.every((h) => h.retransmits === 0)).toBe(true);
      expect(s.flowsCompleted).toBe(8);
      // TIMELY happens to share fairly from a simultaneous start (every flow sees the same RTT
      // history); its unfairness shows with staggered starts, below.
      expect(m.jain).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('timely with starts spread over 1 ms: lossless, and unfair (known, documented)', () => {
    const m = incast('timely', { size: 'inf', durationNs: 5e6, fromNs: 3e6, toNs: 5e6, startSpreadNs: 1e6 });
    console.log(show('timely (staggered)', m));
    expect(m.results.summary.drops).toBe(0);
    expect(m.jain).toBeLessThan(0.95);
  });
});

describe('Swift below one packet', () => {
  it('128 flows into one 100 G port: windows < 1 packet are paced; lossless, fair, queue near target', () => {
    const { run } = makeRun(`
duration: 3ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: swift, mtu: ${MTU_BYTES} }
  switch: { buffer: 32MB, pfc: true }
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1..h8], receiver: h9, size: inf, flowsPerSender: 16 }
`);
    // BDP ≈ 52 packets shared by 128 flows: ≈ 0.4 packet each.
    run.runUntil(1e6);
    const sw = run.switches.get('s1')!;
    const q0 = sw.portCounters()[8].queueByteNs;
    const a = run.flows.map((f) => f.deliveredBytes);
    let samples = 0;
    let below = 0;
    let pacedOk = 0;
    let targetSum = 0;
    for (let t = 1.05e6; t <= 3e6; t += 50_000) {
      run.runUntil(t);
      for (const f of run.flows) {
        const x = run.nics.get(f.qp.src.name)!.qpInspect(f.qp.srcQpn);
        samples++;
        targetSum += x.targetNs;
        if (x.cwndPackets < 1) {
          below++;
          // one packet in flight, paced at cwnd·packet/srtt
          const expected = (x.cwndPackets * 1066 * 8e9) / x.srttNs;
          if (x.windowBytes === MTU_BYTES && Math.abs(x.rateBps / expected - 1) < 0.01) pacedOk++;
        }
      }
    }
    const meanQueue = (sw.portCounters()[8].queueByteNs - q0) / 2e6;
    const rates = run.flows.map((f, i) => f.deliveredBytes - a[i]);
    const jain = jainIndex(rates)!;
    const r = run.results();
    console.log(
      `swift 128 flows: ${((100 * below) / samples).toFixed(0)} % of samples with cwnd < 1, mean target ${(targetSum / samples).toFixed(0)} ns, mean queue ${meanQueue.toFixed(0)} B, Jain ${jain.toFixed(3)}, drops ${r.summary.drops}`,
    );
    expect(r.summary.drops).toBe(0);
    expect(below / samples).toBeGreaterThan(0.2);
    expect(pacedOk).toBe(below);
    // Swift holds the fabric delay at the flows' targets; flow scaling gives the smallest
    // windows the largest target, and the queue settles near it. It can never exceed the largest
    // target Swift sets: base 4 µs + 1 hop · 2 µs + fs_range 20 µs = 26 µs of RTT, i.e.
    // (26 µs − base RTT) of queueing ≈ 273 KB at 100 G.
    const baseRttNs = run.flows[0].qp.path.baseRttNs;
    expect(meanQueue).toBeLessThan(((26_000 - baseRttNs) * 100e9) / 8e9);
    expect(meanQueue).toBeGreaterThan(((targetSum / samples - baseRttNs) * 100e9) / 8e9 / 2);
    expect(jain).toBeGreaterThanOrEqual(0.9);
  });
});
