/**
 * `links` entries that change one direction (`oneWay`) and give an egress port its own trimming
 * queue (`trim`), and `defaults.switch.ecn.hostPorts` (docs/scenario.md "links",
 * "defaults.switch.ecn"): how the UEC reference simulator builds its `-failed` links (the
 * core → aggregation direction at 25 %, queue and thresholds scaled with it) and its ToR ports
 * under receiver credits (no ECN towards hosts), as scenario keys.
 */
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { TopologyNode } from '../../src/topology/model.js';
import { setupError } from '../support/config-error.js';

const BASE = `
topology: { kind: leafspine, leaves: 2, spines: 2, hostsPerLeaf: 2 }
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { transport: uet, cc: none, mtu: 4086 }
  switch: { pfc: false, trim: { queueBytes: 200KB, kmin: 40KB, kmax: 160KB } }
workload: [{ kind: flows, flows: [{ src: h1, dst: h3, size: 1MB }] }]
`;

const portTo = (node: TopologyNode, peer: string) => node.ports.find((p) => p.peerNode === peer)!;

describe('one-way links with their own trimming queue', () => {
  // s3 is a spine, s1 a leaf (leaves first).
  const text = `${BASE}links: [{ a: s3, b: s1, rate: 25Gbps, oneWay: true, trim: { queueBytes: 50KB, kmin: 10KB, kmax: 40KB } }]\n`;

  it('slows only a → b, and only that egress gets the smaller queue', () => {
    const setup = setupRun(parseScenarioText(text));
    const spine = setup.topo.byName.get('s3')!;
    const leaf = setup.topo.byName.get('s1')!;
    expect(portTo(spine, 's1').rateBps).toBe(25e9);
    expect(portTo(leaf, 's3').rateBps).toBe(100e9);
    const base = { name: spine.name, id: 0, ports: [], routes: new Map() };
    const spineCfg = setup.switchConfig(spine, {
      ...base,
      ports: spine.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 })),
    });
    const toLeaf = spineCfg.ports[portTo(spine, 's1').index];
    expect(toLeaf.trim).toEqual({
      queueBytes: 50_000,
      // Not given: 2 × the entry's queue, as defaults.switch.trim (the reference's 2 × _maxsize).
      headerQueueBytes: 100_000,
      ecn: { kminBytes: 10_000, kmaxBytes: 40_000, pmax: 1 },
    });
    // Every other egress keeps the switch-wide trimming queue.
    expect(spineCfg.trim?.queueBytes).toBe(200_000);
    expect(spineCfg.ports[portTo(spine, 's2').index].trim).toEqual(spineCfg.trim);
    const leafCfg = setup.switchConfig(leaf, {
      ...base,
      name: leaf.name,
      ports: leaf.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 })),
    });
    expect(leafCfg.ports[portTo(leaf, 's3').index].trim).toEqual(leafCfg.trim);
  });

  it("keys an entry leaves out keep the port's own values at its new rate (scaled with it)", () => {
    const setup = setupRun(
      parseScenarioText(
        `${BASE}links: [{ a: s3, b: s1, rate: 25Gbps, oneWay: true, trim: { kmin: 5KB } }]\n`,
      ),
    );
    const spine = setup.topo.byName.get('s3')!;
    const cfg = setup.switchConfig(spine, {
      name: spine.name,
      id: 0,
      routes: new Map(),
      ports: spine.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 })),
    });
    // 200 KB / 400 KB / 160 KB of the switch-wide queue at 25 %; kmin as given.
    expect(cfg.ports[portTo(spine, 's1').index].trim).toEqual({
      queueBytes: 50_000,
      headerQueueBytes: 100_000,
      ecn: { kminBytes: 5_000, kmaxBytes: 40_000, pmax: 1 },
    });
  });

  it('refuses a one-way delay, trim without trimming, trim at a host, and either with at', () => {
    expect(setupError(`${BASE}links: [{ a: s3, b: s1, delay: 2us, oneWay: true }]\n`).message).toMatch(
      /links\[0\]\.delay: a one-way entry changes rate and loss only/,
    );
    expect(
      setupError(
        `${BASE.replace('trim: { queueBytes: 200KB, kmin: 40KB, kmax: 160KB }', 'trim: false')}links: [{ a: s3, b: s1, trim: { queueBytes: 50KB } }]\n`,
      ).message,
    ).toMatch(/links\[0\]\.trim: needs trimming on/);
    expect(setupError(`${BASE}links: [{ a: h1, b: s1, trim: { queueBytes: 50KB } }]\n`).message).toMatch(
      /links\[0\]\.trim: h1 is a host/,
    );
    expect(
      setupError(`${BASE}duration: 1ms\nlinks: [{ a: s3, b: s1, at: 10us, rate: 25Gbps, oneWay: true }]\n`)
        .message,
    ).toMatch(/links\[0\]\.oneWay: cannot be combined with at/);
    expect(setupError(`${BASE}links: [{ a: s3, b: s1, trim: { queueBytes: 30KB } }]\n`).message).toMatch(
      /links\[0\]\.trim: needs kmin <= kmax <= queueBytes/,
    );
  });
});

describe('defaults.switch.ecn.hostPorts', () => {
  it('turns marking off on switch ports that face hosts only', () => {
    for (const hostPorts of [true, false]) {
      const setup = setupRun(
        parseScenarioText(
          BASE.replace('switch: { pfc: false,', `switch: { ecn: { hostPorts: ${hostPorts} }, pfc: false,`),
        ),
      );
      const leaf = setup.topo.byName.get('s1')!;
      const cfg = setup.switchConfig(leaf, {
        name: leaf.name,
        id: 0,
        routes: new Map(),
        ports: leaf.ports.map((p) => ({ rateBps: p.rateBps, mac: 0, peerMac: 0 })),
      });
      expect(cfg.ports[portTo(leaf, 'h1').index].ecn?.enabled).toBe(hostPorts);
      expect(cfg.ports[portTo(leaf, 's3').index].ecn?.enabled).toBe(true);
    }
  });
});
