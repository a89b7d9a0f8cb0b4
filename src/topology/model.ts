/**
 * The resolved topology every runtime and firmware builder works from: nodes, their ports and
 * the links between them, with addresses assigned. Built from the scenario by
 * `src/topology/build.ts`; routes by `src/topology/routing.ts`.
 */

export type NodeKind = 'host' | 'switch';

export interface PortSpec {
  /** Port index on this node (0-based; a host has exactly one port, 0). */
  index: number;
  /** Port MAC (48-bit). */
  mac: number;
  rateBps: number;
  /** One-way propagation delay of the attached link, ns. */
  delayNs: number;
  peerNode: string;
  peerPort: number;
  /** Probability that a frame sent out of this port is lost on the wire (loss injection; absent = 0). */
  lossRate?: number;
}

export interface TopologyNode {
  name: string;
  kind: NodeKind;
  /** Dense index among nodes of the same kind (h1 → 0, …). */
  index: number;
  /** IPv4 address as u32 (hosts; switches get one for management/CNM diagnostics). */
  ip: number;
  ports: PortSpec[];
}

export interface Topology {
  nodes: TopologyNode[];
  byName: Map<string, TopologyNode>;
  hosts: TopologyNode[];
  switches: TopologyNode[];
  /** Host IPv4 (u32) → host node. */
  hostByIp: Map<number, TopologyNode>;
}

/** For each switch: destination host IP → egress ports on equal-cost shortest paths. */
export type RoutingTable = Map<number, number[]>;

/**
 * The shortest one-way link delay anywhere in the topology (0 when there is no link): the time
 * window every wallclock node of a run computes alike, and the slack a late frame is measured
 * against.
 */
export function shortestLinkDelayNs(topo: Topology): number {
  let minNs = Number.POSITIVE_INFINITY;
  for (const n of topo.nodes) for (const p of n.ports) if (p.delayNs < minNs) minNs = p.delayNs;
  return Number.isFinite(minNs) && minNs > 0 ? minNs : 0;
}
