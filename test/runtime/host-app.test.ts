/**
 * The host application shared by both runtimes (src/runtime/app/host-app.ts), in the mode a
 * real node runs it: without reaching its peers, each host opens the QPs it terminates up front
 * and derives the messages it will receive from the plan. Run on the virtual engine with the
 * real NIC and switch, it must account exactly what the directly-connected mode accounts.
 */
import { describe, expect, it } from 'vitest';
import type { Results } from '../../src/stats/results.js';
import { makeRun } from './helpers.js';

const BASE = `
seed: 3
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000 }
`;

function both(yaml: string): {
  direct: Results;
  derived: Results;
  derivedRun: ReturnType<typeof makeRun>['run'];
} {
  const direct = makeRun(yaml).run.run();
  const { run } = makeRun(yaml, { directPeers: false });
  return { direct, derived: run.run(), derivedRun: run };
}

describe('HostApp without direct peers (the real runtime mode)', () => {
  it('incast of multi-message flows: every message delivered and completed once at both ends', () => {
    const { direct, derived, derivedRun } = both(`${BASE}
duration: 2ms
topology: { kind: star, hosts: 5 }
workload:
  - { kind: incast, senders: [h1, h2, h3, h4], receiver: h5, size: 300KB, messageSize: 64KB, start: 0 }
`);
    expect(derived.summary.flowsCompleted).toBe(4);
    for (const [i, f] of derived.flows.entries()) {
      expect(derivedRun.flows[i].deliveredBytes).toBe(300_000);
      expect(derivedRun.flows[i].senderCompletions).toBe(5);
      expect(derivedRun.flows[i].receiverCompletions).toBe(5);
      // Same network, same messages: only the receivers' QP creation order differs.
      expect(f.fctNs!).toBeGreaterThan(0.8 * direct.flows[i].fctNs!);
      expect(f.fctNs!).toBeLessThan(1.25 * direct.flows[i].fctNs!);
    }
    expect(derived.warnings).toEqual(direct.warnings);
    // The slowest flows' rate-change trace is kept on the sending host in either mode.
    expect(derived.trace.length).toBe(4);
    expect(derived.trace[0].changeCount).toBeGreaterThan(0);
  });

  it('a long-lived flow: its receiver learns message boundaries from the arriving bytes', () => {
    const { derived, derivedRun } = both(`${BASE}
duration: 1ms
topology: { kind: star, hosts: 3 }
workload:
  - kind: flows
    flows:
      - { src: h1, dst: h3, size: inf, messageSize: 50KB, stop: 300us }
      - { src: h2, dst: h3, size: 200KB, start: 50us }
`);
    const [long, finite] = derived.flows;
    expect(long.endNs).not.toBeNull();
    // Drained: what it posted is its size, and all of it arrived.
    expect(derivedRun.flows[0].deliveredBytes).toBe(long.sizeBytes);
    expect(long.sizeBytes % 50_000).toBe(0);
    expect(derivedRun.flows[1].deliveredBytes).toBe(200_000);
    expect(finite.endNs).not.toBeNull();
    expect(derived.warnings.filter((w) => /duplicate|unknown|more than once/.test(w))).toEqual([]);
  });

  it('alltoall: gated flows on shared QPs deliver in full, each message attributed to its flow', () => {
    const { direct, derived, derivedRun } = both(`${BASE}
duration: 2ms
topology: { kind: star, hosts: 3 }
workload:
  - { kind: alltoall, messageSize: 20KB, iterations: 3, gap: 100ns }
`);
    expect(derived.summary.flowsCompleted).toBe(direct.summary.flowsCompleted);
    expect(derived.summary.flowsCompleted).toBe(18);
    for (const f of derived.flows) {
      expect(derivedRun.flows[f.id].deliveredBytes).toBe(f.sizeBytes);
      // One message each, attributed by its ordinal on the QP the iterations share.
      expect(derivedRun.flows[f.id].receiverCompletions).toBe(1);
    }
    expect(derived.warnings).toEqual(direct.warnings);
  });
});
