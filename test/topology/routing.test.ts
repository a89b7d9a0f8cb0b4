import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDumbbell, buildLeafSpine, buildStar } from '../../src/topology/build.js';
import { ACK_FRAME_BYTES, dataFrameBytes, hostPath } from '../../src/topology/path.js';
import { computeRoutes } from '../../src/topology/routing.js';

const L100 = { rateBps: 100e9, delayNs: 1000 };

describe('routing (BFS shortest paths, ECMP sets)', () => {
  it('leaf-spine: local hosts direct, remote hosts via every spine', () => {
    const t = buildLeafSpine({ leaves: 4, hostsPerLeaf: 4, spines: 4, hostLink: L100 });
    const r = computeRoutes(t);
    const ip = (h: string) => t.byName.get(h)!.ip;
    const leaf1 = r.tables.get('s1')!;
    expect(leaf1.get(ip('h2'))).toEqual([1]);
    expect(leaf1.get(ip('h5'))).toEqual([4, 5, 6, 7]);
    // Spine 1 reaches h5 (leaf 2) on its port 1 only.
    expect(r.tables.get('s5')!.get(ip('h5'))).toEqual([1]);
    expect(r.tables.get('s5')!.get(ip('h16'))).toEqual([3]);
    for (const table of r.tables.values()) expect(table.size).toBe(16);
    expect(r.distance('s1', 'h5')).toBe(3);
  });

  it('dumbbell: the bottleneck is the only way across', () => {
    const t = buildDumbbell({ left: 3, right: 3, link: L100 });
    const r = computeRoutes(t);
    expect(r.tables.get('s1')!.get(t.byName.get('h5')!.ip)).toEqual([3]);
    expect(r.tables.get('s2')!.get(t.byName.get('h1')!.ip)).toEqual([3]);
  });

  it('every ECMP port leads one hop closer, and no shorter-path port is left out (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        (leaves, hostsPerLeaf, spines) => {
          fc.pre(leaves * hostsPerLeaf >= 2);
          const t = buildLeafSpine({ leaves, hostsPerLeaf, spines, hostLink: L100 });
          const r = computeRoutes(t);
          for (const s of t.switches) {
            for (const h of t.hosts) {
              const ports = r.tables.get(s.name)!.get(h.ip)!;
              const d = r.distance(s.name, h.name);
              s.ports.forEach((p) => {
                const peer = t.byName.get(p.peerNode)!;
                const closer =
                  r.distance(p.peerNode, h.name) === d - 1 && (peer.kind === 'switch' || peer === h);
                expect(ports.includes(p.index)).toBe(closer);
              });
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('host paths', () => {
  it('star: HPCC base RTT 4160 ns at 100G/1us (as the HPCC simulator computes it) and the full-frame RTT', () => {
    const t = buildStar({ hosts: 2, link: L100 });
    const p = hostPath(t, computeRoutes(t), 'h1', 'h2', 1000);
    expect(p.hops).toBe(1);
    expect(p.links).toHaveLength(2);
    expect(p.propDelayNs).toBe(2000);
    expect(p.hpccBaseRttNs).toBeCloseTo(4160, 9);
    // 1062 B data frame + 66 B ACK at each of 2 links at 0.08 ns/B.
    expect(dataFrameBytes(1000)).toBe(1062);
    expect(ACK_FRAME_BYTES).toBe(66);
    expect(p.baseRttNs).toBeCloseTo(4000 + 2 * (1062 + 66) * 0.08, 6);
  });

  it('leaf-spine cross-leaf path: 4 links, 3 switches', () => {
    const t = buildLeafSpine({ leaves: 2, hostsPerLeaf: 2, spines: 2, hostLink: L100 });
    const p = hostPath(t, computeRoutes(t), 'h1', 'h4', 1000);
    expect(p.hops).toBe(3);
    expect(p.links.map((l) => l.peerNode)).toEqual(['s1', 's3', 's2', 'h4']);
    expect(p.hpccBaseRttNs).toBeCloseTo(8000 + 4 * 80, 6);
  });
});
