/**
 * Entropy at the switch (docs/switch.md "Entropy"): a packet's entropy is its UDP source port, and
 * every switch hashes (srcIp, dstIp, srcPort) with its own salt, so the choices of two tiers are
 * independent and a QP whose packets carry different source ports is sprayed over the
 * equal-cost ports.
 */
import { describe, expect, it } from 'vitest';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { ecmpHash } from '../../switch/ecmp.js';
import { createSwitch } from '../../switch/switch.js';
import { scenario } from '../runtime/helpers.js';
import { baseConfig, dataPkt, G, hostIp, makeWorld, portCfg } from './harness.js';

const FATTREE_K4 = `
topology: { kind: fattree, k: 4 }
workload: []
`;

describe('per-switch ECMP salt', () => {
  it('differs on every switch of a k = 4 fat tree', () => {
    const setup = setupRun(scenario(FATTREE_K4));
    const seeds = setup.topo.switches.map(
      (sw) => setup.switchConfig(sw, { name: sw.name, id: sw.index, ports: [], routes: new Map() }).ecmpSeed,
    );
    expect(setup.topo.switches).toHaveLength(20);
    expect(new Set(seeds).size).toBe(seeds.length);
  });

  it('makes the choices of two tiers independent (ToR uplink × agg uplink, 2 × 2 ways)', () => {
    const setup = setupRun(scenario(FATTREE_K4));
    const saltOf = (name: string) => {
      const sw = setup.topo.byName.get(name)!;
      return setup.switchConfig(sw, { name, id: sw.index, ports: [], routes: new Map() }).ecmpSeed;
    };
    // Every pair of switches, as a ToR and an agg of one path would hash the same packet.
    const names = setup.topo.switches.map((s) => s.name);
    const n = 4096;
    let worstChi2 = 0;
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const a = saltOf(names[i]);
        const b = saltOf(names[j]);
        const joint = [0, 0, 0, 0];
        for (let port = 0; port < n; port++) {
          const src = hostIp(1);
          const dst = hostIp(9);
          joint[
            (ecmpHash(a, src, dst, 0xc000 + port) % 2) * 2 + (ecmpHash(b, src, dst, 0xc000 + port) % 2)
          ]++;
        }
        const chi2 = joint.reduce((acc, c) => acc + (c - n / 4) ** 2 / (n / 4), 0);
        worstChi2 = Math.max(worstChi2, chi2);
      }
    }
    // 190 pairs, chi-square with 3 degrees of freedom: P(chi2 > 20) ≈ 1.7e-4 per pair, so a
    // polarised pair (one tier repeating the other's choice: chi2 ≈ n = 4096) stands out.
    expect(worstChi2).toBeLessThan(20);
  });
});

describe('a sprayed QP', () => {
  it('spreads over the equal-cost ports by its packets’ source ports, each port the same for the same entropy', () => {
    const w = makeWorld();
    const sw = createSwitch(
      w.env,
      baseConfig({
        ports: [0, 1, 2, 3, 4].map((i) => portCfg(100 * G, i)),
        routes: new Map([
          [hostIp(0), [0]],
          [hostIp(1), [1, 2, 3, 4]],
        ]),
        ecmpSeed: 5,
      }),
    );
    // One QP (destQp 9) whose 256 packets carry 64 entropies, four times each.
    for (let k = 0; k < 256; k++)
      sw.receive(0, dataPkt({ srcPort: 0xc000 + (k % 64), destQp: 9, psn: k, sizeBytes: 100 }));
    w.sched.run();
    // Each entropy leaves on one port, every time.
    const portOfEntropy = new Map<number, number>();
    for (const { pkt, port } of w.sent) {
      expect(portOfEntropy.get(pkt.srcPort) ?? port).toBe(port);
      portOfEntropy.set(pkt.srcPort, port);
    }
    expect(portOfEntropy.size).toBe(64);
    expect(new Set(w.sent.map((s) => s.port))).toEqual(new Set([1, 2, 3, 4]));
  });
});
