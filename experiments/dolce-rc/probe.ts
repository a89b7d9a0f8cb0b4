/**
 * Measurement helpers of the Dolce-RC checks (docs/algorithms/dolce-rc.md) on the probe API
 * (src/probe): a run asks its scenario for probe bins of the bottleneck port and of every flow,
 * and a time window's utilisation and fairness are read from those bins, the same way in virtual
 * and in real time (each node bins on its own emulated clock, docs/results.md "probes").
 */
import type { Scenario } from '../../src/config/scenario.js';
import type { ProbePortRef } from '../../src/probe/probe.js';
import type { Results } from '../../src/stats/results.js';
import { paperScenarios } from '../paper-scenario.js';
import { jain } from '../ports.js';

export const dolceScenario = paperScenarios('dolce-rc');

/** `s` with probe bins of `binNs` for the bottleneck egress port and every flow (and QP state). */
export function withProbes(s: Scenario, binNs: number, bottleneck: ProbePortRef, qpState?: string[]) {
  return { ...s, probes: { binNs, ports: [bottleneck], flows: true, ...(qpState ? { qpState } : {}) } };
}

/** The window [fromNs, toNs) of a run's probe bins (edges on bin edges). */
export function windowOf(
  r: Results,
  senders: readonly string[],
  fromNs: number,
  toNs: number,
  rateBps: number,
) {
  const p = r.probes;
  if (p === undefined || p.bins * p.binNs < toNs)
    throw new Error(`window [${fromNs}, ${toNs}) ns lies beyond the run`);
  const [a, b] = [fromNs / p.binNs, toNs / p.binNs];
  const sum = (xs: number[]) => xs.slice(a, b).reduce((x, y) => x + y, 0);
  const senderBytes = senders.map((h) =>
    p.flows.filter((f) => r.flows[f.id].src === h).reduce((x, f) => x + sum(f.txBytes), 0),
  );
  return {
    /** Bytes out of the bottleneck port ÷ (its line rate × window). */
    utilisation: (sum(p.ports[0].txBytes) * 8e9) / (rateBps * (toNs - fromNs)),
    /** Data bytes each sender's NIC put on the wire in the window, in `senders` order. */
    senderBytes,
    jain: jain(senderBytes),
    /** Bin index of the window's end (exclusive). */
    endBin: b,
  };
}
