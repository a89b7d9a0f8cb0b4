/**
 * Issue 5 end to end, virtual time, real NIC and switch firmware: the baselines on an 8-to-1
 * incast at 100 Gbps (star, 1 µs links, PFC, run.py ECN settings per algorithm; helpers.ts).
 *
 * Claims and their sources:
 *  - HPCC (baselines.md §3, Li et al. SIGCOMM'19): lossless, near-zero queue (≤ 2 MTU) at
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
