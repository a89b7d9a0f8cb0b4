import { describe, expect, it } from 'vitest';
import {
  buildDumbbell,
  buildExplicit,
  buildFatTree,
  buildLeafSpine,
  buildStar,
  ipToString,
  macToString,
  TopologyError,
} from '../../src/topology/build.js';
import type { Topology } from '../../src/topology/model.js';
import { hostPath } from '../../src/topology/path.js';
import { computeRoutes } from '../../src/topology/routing.js';

const L100 = { rateBps: 100e9, delayNs: 1000 };
const L400 = { rateBps: 400e9, delayNs: 1000 };

function linkCount(t: Topology): number {
  return t.nodes.reduce((n, x) => n + x.ports.length, 0) / 2;
}

function checkConsistent(t: Topology): void {
  const macs = new Set<number>();
  for (const n of t.nodes) {
    for (const p of n.ports) {
      const peer = t.byName.get(p.peerNode)!;
      const back = peer.ports[p.peerPort];
      expect(back.peerNode).toBe(n.name);
      expect(back.peerPort).toBe(p.index);
      expect(back.rateBps).toBe(p.rateBps);
      expect(back.delayNs).toBe(p.delayNs);
      expect(macs.has(p.mac)).toBe(false);
      macs.add(p.mac);
    }
  }
  const ips = new Set(t.nodes.map((n) => n.ip));
  expect(ips.size).toBe(t.nodes.length);
}

describe('topology builders', () => {
  it('star: hosts around one switch, addresses in 198.18.0.0/15', () => {
    const t = buildStar({ hosts: 9, link: L100 });
    expect(t.hosts.map((h) => h.name)).toEqual(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9']);
    expect(t.switches.map((s) => s.name)).toEqual(['s1']);
    expect(t.switches[0].ports).toHaveLength(9);
    expect(ipToString(t.byName.get('h1')!.ip)).toBe('198.18.0.1');
    expect(ipToString(t.byName.get('h9')!.ip)).toBe('198.18.0.9');
    expect(ipToString(t.byName.get('s1')!.ip)).toBe('198.19.0.1');
    expect(macToString(t.byName.get('h3')!.ports[0].mac)).toBe('02:00:00:02:00:00');
    expect(macToString(t.byName.get('s1')!.ports[4].mac)).toBe('02:01:00:00:00:04');
    expect(t.hostByIp.get(t.byName.get('h4')!.ip)!.name).toBe('h4');
    checkConsistent(t);
  });

  it('dumbbell: bottleneck link on the last port of both switches', () => {
    const t = buildDumbbell({ left: 2, right: 3, link: L100, bottleneck: { rateBps: 40e9, delayNs: 2000 } });
    expect(t.hosts).toHaveLength(5);
    const s1 = t.byName.get('s1')!;
    const s2 = t.byName.get('s2')!;
    expect(s1.ports).toHaveLength(3);
    expect(s2.ports).toHaveLength(4);
    expect(s1.ports[2]).toMatchObject({ peerNode: 's2', peerPort: 3, rateBps: 40e9, delayNs: 2000 });
    expect(t.byName.get('h3')!.ports[0].peerNode).toBe('s2');
    checkConsistent(t);
  });

  it('leafspine: full bipartite leaves × spines', () => {
    const t = buildLeafSpine({ leaves: 4, hostsPerLeaf: 4, spines: 4, hostLink: L100 });
    expect(t.hosts).toHaveLength(16);
    expect(t.switches).toHaveLength(8);
    expect(linkCount(t)).toBe(16 + 16);
    const leaf2 = t.byName.get('s2')!;
    expect(leaf2.ports.slice(0, 4).map((p) => p.peerNode)).toEqual(['h5', 'h6', 'h7', 'h8']);
    expect(leaf2.ports.slice(4).map((p) => p.peerNode)).toEqual(['s5', 's6', 's7', 's8']);
    expect(t.byName.get('s6')!.ports.map((p) => p.peerNode)).toEqual(['s1', 's2', 's3', 's4']);
    checkConsistent(t);
  });

  it('fattree: default shape is the HPCC simulator mix/fat.txt (376 nodes, 56 switches, 480 links)', () => {
    const t = buildFatTree({ hostLink: L100, fabricLink: L400 });
    expect(t.nodes).toHaveLength(376);
    expect(t.hosts).toHaveLength(320);
    expect(t.switches).toHaveLength(56);
    expect(linkCount(t)).toBe(480);
    // ToR: 16 × 100G hosts then 4 × 400G aggs; agg: 4 ToRs then 4 cores; core: one agg per pod.
    const tor1 = t.byName.get('s1')!;
    expect(tor1.ports.filter((p) => p.rateBps === 100e9)).toHaveLength(16);
    expect(tor1.ports.slice(16).map((p) => p.peerNode)).toEqual(['s21', 's22', 's23', 's24']);
    const agg1 = t.byName.get('s21')!;
    expect(agg1.ports.map((p) => p.peerNode)).toEqual(['s1', 's2', 's3', 's4', 's41', 's42', 's43', 's44']);
    const agg6 = t.byName.get('s26')!; // pod 1, agg 1 → cores 4..7 (s45..s48)
    expect(agg6.ports.slice(4).map((p) => p.peerNode)).toEqual(['s45', 's46', 's47', 's48']);
    const core1 = t.byName.get('s41')!;
    expect(core1.ports.map((p) => p.peerNode)).toEqual(['s21', 's25', 's29', 's33', 's37']);
    checkConsistent(t);
    const routes = computeRoutes(t);
    // Cross-pod: 5 links, 4 switches; rtt 12 240 ns as docs/topologies.md "fattree" derives.
    const p = hostPath(t, routes, 'h1', 'h320', 1000);
    expect(p.hops).toBe(5);
    expect(p.bottleneckRateBps).toBe(100e9);
    expect(p.hpccBaseRttNs).toBeCloseTo(12240, 6);
    // ToR uplink ECMP: 4 aggs; agg uplink: 4 cores.
    expect(routes.tables.get('s1')!.get(t.byName.get('h320')!.ip)).toEqual([16, 17, 18, 19]);
    expect(routes.tables.get('s21')!.get(t.byName.get('h320')!.ip)).toEqual([4, 5, 6, 7]);
    expect(routes.tables.get('s41')!.get(t.byName.get('h320')!.ip)).toEqual([4]);
  });

  it('fattree k=4 is the textbook k-ary fat-tree', () => {
    const t = buildFatTree({ k: 4, hostLink: L100 });
    expect(t.hosts).toHaveLength(16);
    expect(t.switches).toHaveLength(8 + 8 + 4);
    expect(linkCount(t)).toBe(16 + 16 + 16);
    for (const s of t.switches) expect(s.ports).toHaveLength(4);
    checkConsistent(t);
  });

  it('explicit: names kept, ports in link order, per-link overrides', () => {
    const t = buildExplicit({
      nodes: [
        { name: 'a', kind: 'host' },
        { name: 'b', kind: 'host' },
        { name: 'sw', kind: 'switch' },
      ],
      links: [
        { a: 'sw', b: 'b', rateBps: 25e9 },
        { a: 'a', b: 'sw' },
      ],
      link: L100,
    });
    expect(t.byName.get('sw')!.ports.map((p) => p.peerNode)).toEqual(['b', 'a']);
    expect(t.byName.get('b')!.ports[0].rateBps).toBe(25e9);
    expect(t.byName.get('a')!.ports[0].rateBps).toBe(100e9);
    const p = hostPath(t, computeRoutes(t), 'a', 'b', 1000);
    expect(p.bottleneckRateBps).toBe(25e9);
  });

  it('rejects impossible topologies with a TopologyError naming the problem', () => {
    expect(() => buildStar({ hosts: 1, link: L100 })).toThrow(TopologyError);
    expect(() => buildStar({ hosts: 4, link: { rateBps: 0, delayNs: 1 } })).toThrow(/rate/);
    expect(() => buildFatTree({ k: 3, hostLink: L100 })).toThrow(/even/);
    const nodes = [
      { name: 'h1', kind: 'host' as const },
      { name: 'h2', kind: 'host' as const },
      { name: 's1', kind: 'switch' as const },
      { name: 's2', kind: 'switch' as const },
    ];
    expect(() => buildExplicit({ nodes, links: [{ a: 'h1', b: 'sX' }], link: L100 })).toThrow(
      /unknown node "sX"/,
    );
    expect(() =>
      buildExplicit({
        nodes,
        links: [
          { a: 'h1', b: 's1' },
          { a: 'h1', b: 's2' },
        ],
        link: L100,
      }),
    ).toThrow(/more than one link/);
    const split = buildExplicit({
      nodes,
      links: [
        { a: 'h1', b: 's1' },
        { a: 'h2', b: 's2' },
      ],
      link: L100,
    });
    expect(() => computeRoutes(split)).toThrow(/cannot reach/);
  });
});
