/** Switch egress ports the checks watch, found by what they lead to, and Jain's index of rates. */
import type { FlowInfo } from '../src/cc/types.js';
import { jainIndex } from '../src/stats/aggregate.js';
import type { Topology } from '../src/topology/model.js';
import type { HostPath } from '../src/topology/path.js';

/** A switch egress port. */
export interface PortRef {
  sw: string;
  port: number;
}

export function portKey(p: PortRef): string {
  return `${p.sw}:${p.port}`;
}

/** The switch egress port that feeds host `host` (its last hop). */
export function lastHopOf(topo: Topology, host: string): PortRef {
  const h = topo.byName.get(host)!;
  return { sw: h.ports[0].peerNode, port: h.ports[0].peerPort };
}

/** The egress port of switch `sw` toward its neighbour `peer`. */
export function portToward(topo: Topology, sw: string, peer: string): PortRef {
  const p = topo.byName.get(sw)!.ports.find((x) => x.peerNode === peer);
  if (p === undefined) throw new Error(`${sw} has no port toward ${peer}`);
  return { sw, port: p.index };
}

/** Jain's fairness index of rates (1 when all are zero). */
export const jain = (xs: number[]): number => jainIndex(xs) ?? 1;

/** The path facts a NIC hands its CC for a QP of `mtuBytes` on `path` (as the runtime plans them). */
export function flowInfoOf(path: HostPath, mtuBytes: number, qpn = 0): FlowInfo {
  return {
    qpn,
    remoteQpn: 0,
    lineRateBps: path.links[0].rateBps,
    mtuBytes,
    baseRttNs: Math.round(path.baseRttNs),
    bottleneckRateBps: path.bottleneckRateBps,
    hops: path.hops,
    linkRatesBps: path.links.map((l) => l.rateBps),
    propDelayNs: path.propDelayNs,
  };
}
