/**
 * Address and interface plan of a netns run: one network namespace per topology node, one veth
 * pair per topology link, each link its own /30 inside 198.18.0.0/15 (docs/netns.md "What it builds").
 *
 * A node's port `p` is the interface `p<p>` in the node's namespace, so `tc -n <ns> qdisc show dev
 * p3` is switch port 3. Both ends of a veth are created directly inside their namespaces: no
 * interface of a run ever exists in the root namespace, and deleting the namespaces removes
 * everything.
 */
import type { Topology } from '../../topology/model.js';

/** Every namespace of rocelab starts with this; `rl-<launcher pid>-<run tag>-<node>`. */
export const NETNS_PREFIX = 'rl-';

/**
 * Links take consecutive /30s from 198.18.128.0/17: inside 198.18.0.0/15 and apart from the
 * emulated (inner) addresses the topology gives hosts (198.18.0.1…) and switches (198.19.0.1…),
 * so a capture shows at a glance which header is which.
 */
export const NETNS_BASE_IP = ((198 << 24) | (18 << 16) | (128 << 8)) >>> 0;
const NETNS_SPAN = 1 << 15;

export interface NetnsEndpoint {
  node: string;
  port: number;
  /** Namespace of the node. */
  ns: string;
  /** Interface name inside the namespace (`p<port>`). */
  dev: string;
  /** This end's address (dotted) and the peer end's address on the same /30. */
  ip: string;
  peerIp: string;
}

export interface NetnsLink {
  index: number;
  /** `a` is the end on the node listed first in the topology. */
  a: NetnsEndpoint;
  b: NetnsEndpoint;
  rateBps: number;
  delayNs: number;
  /** The link's subnet, `198.18.x.y/30`. */
  subnet: string;
}

export interface NetnsPlan {
  /** `rl-<pid>-<tag>`: prefix of every namespace of this run. */
  runPrefix: string;
  /** node name → namespace name. */
  namespaces: Map<string, string>;
  links: NetnsLink[];
  /** `node:port` → that end of its link. */
  endpoints: Map<string, NetnsEndpoint>;
}

export function ipToString(ip: number): string {
  return `${ip >>> 24}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}

/** Node names are checked by the topology builder; anything else is folded to keep `ip` happy. */
function nsSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/**
 * `tag` distinguishes concurrent runs of one launcher (a few [a-z0-9] characters); `pid` is the
 * launcher's, so a sweep can tell namespaces of dead launchers from live ones.
 */
export function planNetns(topo: Topology, tag: string, pid: number = process.pid): NetnsPlan {
  if (!/^[a-z0-9]{1,8}$/.test(tag)) throw new Error(`netns run tag must be 1-8 of [a-z0-9], got "${tag}"`);
  const runPrefix = `${NETNS_PREFIX}${pid}-${tag}`;
  const namespaces = new Map<string, string>();
  for (const n of topo.nodes) namespaces.set(n.name, `${runPrefix}-${nsSafe(n.name)}`);
  const order = new Map(topo.nodes.map((n, i) => [n.name, i]));
  const links: NetnsLink[] = [];
  const endpoints = new Map<string, NetnsEndpoint>();
  for (const n of topo.nodes) {
    for (const p of n.ports) {
      const peerOrder = order.get(p.peerNode);
      if (peerOrder === undefined) throw new Error(`${n.name} port ${p.index}: unknown peer ${p.peerNode}`);
      const mine = order.get(n.name)!;
      // Each link once: from the end that comes first (node order, then port).
      if (peerOrder < mine || (peerOrder === mine && p.peerPort < p.index)) continue;
      const index = links.length;
      const base = NETNS_BASE_IP + 4 * index;
      if (4 * (index + 1) > NETNS_SPAN) throw new Error(`too many links for 198.18.128.0/17 (${index + 1})`);
      const ipA = ipToString(base + 1);
      const ipB = ipToString(base + 2);
      const a: NetnsEndpoint = {
        node: n.name,
        port: p.index,
        ns: namespaces.get(n.name)!,
        dev: `p${p.index}`,
        ip: ipA,
        peerIp: ipB,
      };
      const b: NetnsEndpoint = {
        node: p.peerNode,
        port: p.peerPort,
        ns: namespaces.get(p.peerNode)!,
        dev: `p${p.peerPort}`,
        ip: ipB,
        peerIp: ipA,
      };
      links.push({ index, a, b, rateBps: p.rateBps, delayNs: p.delayNs, subnet: `${ipToString(base)}/30` });
      endpoints.set(`${a.node}:${a.port}`, a);
      endpoints.set(`${b.node}:${b.port}`, b);
    }
  }
  return { runPrefix, namespaces, links, endpoints };
}

/** Parse `rl-<pid>-<tag>-<node>`; null for names that are not ours. */
export function parseNetnsName(name: string): { pid: number; runPrefix: string } | null {
  const m = /^rl-(\d+)-([a-z0-9]{1,8})-/.exec(name);
  if (m === null) return null;
  return { pid: Number(m[1]), runPrefix: `${NETNS_PREFIX}${m[1]}-${m[2]}` };
}
