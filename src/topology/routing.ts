/**
 * Shortest-path (hop count) routing with ECMP: for every switch and every destination host, the
 * set of egress ports that lie on some shortest path. Hosts never forward, so paths go through
 * switches only. Same approach as the HPCC simulator (BFS from each host, all equal-cost next
 * hops installed); the per-flow choice among them is the switch's ECMP hash.
 */
import { TopologyError } from './build.js';
import type { RoutingTable, Topology } from './model.js';

export interface Routes {
  /** switch name → (destination host IP → ascending egress ports on shortest paths). */
  tables: Map<string, RoutingTable>;
  /** Hop distance (links) from node (by name) to host (by name); Infinity when unreachable. */
  distance(from: string, toHost: string): number;
}

export function computeRoutes(topo: Topology): Routes {
  const n = topo.nodes.length;
  const pos = new Map<string, number>();
  topo.nodes.forEach((node, i) => {
    pos.set(node.name, i);
  });
  // peers[i][p] = position of the node on port p of node i.
  const peers: number[][] = topo.nodes.map((node) => node.ports.map((p) => pos.get(p.peerNode)!));
  const isHost = topo.nodes.map((node) => node.kind === 'host');
  const hostPos = new Map<string, number>();
  const dist = new Map<string, Int32Array>();

  for (const h of topo.hosts) {
    const d = new Int32Array(n).fill(-1);
    const src = pos.get(h.name)!;
    hostPos.set(h.name, src);
    d[src] = 0;
    const queue = [src];
    for (let qi = 0; qi < queue.length; qi++) {
      const u = queue[qi];
      // Only the destination host itself starts the search; other hosts are leaves.
      if (isHost[u] && u !== src) continue;
      for (const v of peers[u]) {
        if (d[v] === -1) {
          d[v] = d[u] + 1;
          queue.push(v);
        }
      }
    }
    dist.set(h.name, d);
  }

  for (const a of topo.hosts) {
    const d = dist.get(a.name)!;
    for (const b of topo.hosts) {
      if (d[pos.get(b.name)!] === -1) throw new TopologyError(`host ${b.name} cannot reach ${a.name}`);
    }
  }

  const tables = new Map<string, RoutingTable>();
  for (const s of topo.switches) {
    const i = pos.get(s.name)!;
    const table: RoutingTable = new Map();
    for (const h of topo.hosts) {
      const d = dist.get(h.name)!;
      if (d[i] === -1) continue;
      const ports: number[] = [];
      for (let p = 0; p < peers[i].length; p++) {
        const v = peers[i][p];
        // A neighbour one hop closer is either the destination itself or a switch (never another host).
        if (d[v] === d[i] - 1 && (!isHost[v] || v === hostPos.get(h.name))) ports.push(p);
      }
      table.set(h.ip, ports);
    }
    tables.set(s.name, table);
  }

  return {
    tables,
    distance(from: string, toHost: string): number {
      const d = dist.get(toHost);
      const i = pos.get(from);
      if (d === undefined || i === undefined || d[i] === -1) return Number.POSITIVE_INFINITY;
      return d[i];
    },
  };
}
