/**
 * Static path facts between two hosts: the links a flow crosses, its bottleneck rate and its
 * unloaded round-trip times. Used for QP setup (QpPathInfo) and for idealFctNs.
 */
import { AETH_BYTES, padBytes, ROCE_FIXED_BYTES } from '../wire/size.js';
import { TopologyError } from './build.js';
import type { PortSpec, Topology } from './model.js';
import type { Routes } from './routing.js';

export interface HostPath {
  src: string;
  dst: string;
  /** Egress ports crossed from src to dst, in order (first = the source host's port). */
  links: PortSpec[];
  /** Switches on the path. */
  hops: number;
  bottleneckRateBps: number;
  /** One-way propagation delay, ns. */
  propDelayNs: number;
  /**
   * Unloaded RTT of one MTU data frame and its ACK, ns: 2 × propagation + at every link the
   * serialisation of the full MTU data frame (headers, ICRC, FCS) and of the ACK frame. This is
   * what `QpPathInfo.baseRttNs` carries. Not rounded.
   */
  baseRttNs: number;
  /**
   * The HPCC simulator's base RTT (third.cc): 2 × propagation + Σ over links of MTU payload × 8 /
   * link rate (headers and the ACK's serialisation not counted). Used for idealFctNs. Not rounded.
   */
  hpccBaseRttNs: number;
}

/** Bytes on the link of a data frame carrying `payload` bytes (no RETH, no telemetry). */
export function dataFrameBytes(payload: number): number {
  return ROCE_FIXED_BYTES + payload + padBytes(payload);
}

/** Bytes on the link of an RC ACK (BTH + AETH). */
export const ACK_FRAME_BYTES = ROCE_FIXED_BYTES + AETH_BYTES;

/**
 * The path a flow takes when every switch picks its lowest-numbered equal-cost port. All
 * equal-cost paths have the same hop count; in the shipped builders they also have the same
 * rates and delays, so the choice does not change the numbers.
 */
export function hostPath(
  topo: Topology,
  routes: Routes,
  src: string,
  dst: string,
  mtuBytes: number,
): HostPath {
  const a = topo.byName.get(src);
  const b = topo.byName.get(dst);
  if (a === undefined || a.kind !== 'host') throw new TopologyError(`unknown host "${src}"`);
  if (b === undefined || b.kind !== 'host') throw new TopologyError(`unknown host "${dst}"`);
  if (a === b) throw new TopologyError(`path from ${src} to itself`);
  const links: PortSpec[] = [];
  let node = a;
  let port = a.ports[0];
  for (;;) {
    links.push(port);
    const next = topo.byName.get(port.peerNode)!;
    if (next === b) break;
    if (next.kind !== 'switch' || links.length > topo.nodes.length)
      throw new TopologyError(`no route from ${src} to ${dst}`);
    const egress = routes.tables.get(next.name)?.get(b.ip);
    if (egress === undefined || egress.length === 0)
      throw new TopologyError(`no route from ${src} to ${dst}`);
    node = next;
    port = node.ports[egress[0]];
  }
  let bottleneckRateBps = Number.POSITIVE_INFINITY;
  let propDelayNs = 0;
  let serNs = 0;
  let hpccSerNs = 0;
  const mtuFrame = dataFrameBytes(mtuBytes);
  for (const l of links) {
    bottleneckRateBps = Math.min(bottleneckRateBps, l.rateBps);
    propDelayNs += l.delayNs;
    serNs += ((mtuFrame + ACK_FRAME_BYTES) * 8e9) / l.rateBps;
    hpccSerNs += (mtuBytes * 8e9) / l.rateBps;
  }
  return {
    src,
    dst,
    links,
    hops: links.length - 1,
    bottleneckRateBps,
    propDelayNs,
    baseRttNs: 2 * propDelayNs + serNs,
    hpccBaseRttNs: 2 * propDelayNs + hpccSerNs,
  };
}

/**
 * The network's largest unloaded RTT: the largest `baseRttNs` over every ordered pair of hosts
 * (2 × propagation + at every link the serialisation of one full MTU data frame and of its ACK),
 * along the paths `hostPath` takes. The UEC reference simulator's `network_max_unloaded_rtt`
 * (main_uec.cpp `calculate_rtt`) is the same sum over the fat tree's diameter. O(hosts × nodes):
 * per destination, each node's cost to it is computed once.
 */
export function networkMaxBaseRttNs(topo: Topology, routes: Routes, mtuBytes: number): number {
  const frameBits = (dataFrameBytes(mtuBytes) + ACK_FRAME_BYTES) * 8e9;
  let maxNs = 0;
  for (const dst of topo.hosts) {
    // cost.get(node): Σ over the links from node to dst of 2 × delay + serialisation.
    const cost = new Map<string, number>([[dst.name, 0]]);
    const walk: { node: string; port: PortSpec }[] = [];
    for (const src of topo.hosts) {
      if (src === dst) continue;
      walk.length = 0;
      let node = src;
      let port = src.ports[0];
      for (;;) {
        walk.push({ node: node.name, port });
        const next = topo.byName.get(port.peerNode)!;
        if (cost.has(next.name)) break;
        const egress = routes.tables.get(next.name)?.get(dst.ip);
        if (
          next.kind !== 'switch' ||
          egress === undefined ||
          egress.length === 0 ||
          walk.length > topo.nodes.length
        )
          throw new TopologyError(`no route from ${src.name} to ${dst.name}`);
        node = next;
        port = next.ports[egress[0]];
      }
      // Unwind: a node costs its link plus the cost of the node beyond it.
      for (let i = walk.length - 1; i >= 0; i--) {
        const { node: from, port: l } = walk[i];
        cost.set(from, 2 * l.delayNs + frameBits / l.rateBps + cost.get(l.peerNode)!);
      }
      maxNs = Math.max(maxNs, cost.get(src.name)!);
    }
  }
  return maxNs;
}
