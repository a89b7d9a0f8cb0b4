/**
 * Topology builders: turn plain parameters into the resolved `Topology` of model.ts.
 *
 * Naming and addressing are the same for every builder so scenarios, results and pcaps line up:
 * hosts are h1..hN, switches s1..sM (in the order each builder documents), host IPs are
 * 198.18.0.1 + host index, switch IPs 198.19.0.1 + switch index (both inside the benchmarking
 * range 198.18.0.0/15 the real runtimes use), and port MACs are locally administered
 * 02:KK:II:II:PP:PP (KK = 00 host / 01 switch, II = node index, PP = port index), unique per port.
 * Exact shapes are documented in docs/topologies.md.
 */
import type { NodeKind, PortSpec, Topology, TopologyNode } from './model.js';

/** A topology that cannot be built (bad counts, unknown node, dangling link): config exits 2. */
export class TopologyError extends Error {
  override name = 'TopologyError';
}

export interface LinkParams {
  rateBps: number;
  delayNs: number;
  /** Per-frame loss probability in both directions (loss injection); default 0. */
  loss?: number;
}

export const HOST_IP_BASE = ipFromString('198.18.0.1');
export const SWITCH_IP_BASE = ipFromString('198.19.0.1');
const MAC_BASE = 0x02_00_00_00_00_00;

export function ipFromString(s: string): number {
  const parts = s.split('.');
  if (parts.length !== 4) throw new TopologyError(`bad IPv4 address "${s}"`);
  let v = 0;
  for (const p of parts) {
    const n = Number(p);
    if (!/^\d{1,3}$/.test(p) || n > 255) throw new TopologyError(`bad IPv4 address "${s}"`);
    v = v * 256 + n;
  }
  return v;
}

export function ipToString(ip: number): string {
  return `${(ip >>> 24) & 255}.${(ip >>> 16) & 255}.${(ip >>> 8) & 255}.${ip & 255}`;
}

export function portMac(kind: NodeKind, index: number, port: number): number {
  return MAC_BASE + (kind === 'switch' ? 1 : 0) * 2 ** 32 + (index & 0xffff) * 2 ** 16 + (port & 0xffff);
}

export function macToString(mac: number): string {
  const out: string[] = [];
  for (let i = 5; i >= 0; i--) out.push((Math.floor(mac / 2 ** (8 * i)) & 255).toString(16).padStart(2, '0'));
  return out.join(':');
}

/**
 * Incremental builder: declare nodes, then links; ports are numbered in the order links are
 * added to each node, so a builder controls port order by its link order.
 */
export class TopologyBuilder {
  private readonly nodes: TopologyNode[] = [];
  private readonly byName = new Map<string, TopologyNode>();
  private hostCount = 0;
  private switchCount = 0;

  addNode(name: string, kind: NodeKind): TopologyNode {
    if (this.byName.has(name)) throw new TopologyError(`duplicate node name "${name}"`);
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new TopologyError(`bad node name "${name}"`);
    const index = kind === 'host' ? this.hostCount++ : this.switchCount++;
    if (index > 0xffff) throw new TopologyError(`too many ${kind}s (max 65536)`);
    const ip = (kind === 'host' ? HOST_IP_BASE : SWITCH_IP_BASE) + index;
    const node: TopologyNode = { name, kind, index, ip, ports: [] };
    this.nodes.push(node);
    this.byName.set(name, node);
    return node;
  }

  host(name: string): TopologyNode {
    return this.addNode(name, 'host');
  }

  switch(name: string): TopologyNode {
    return this.addNode(name, 'switch');
  }

  link(aName: string, bName: string, params: LinkParams): void {
    const a = this.byName.get(aName);
    const b = this.byName.get(bName);
    if (a === undefined) throw new TopologyError(`link ${aName}-${bName}: unknown node "${aName}"`);
    if (b === undefined) throw new TopologyError(`link ${aName}-${bName}: unknown node "${bName}"`);
    if (a === b) throw new TopologyError(`link ${aName}-${bName}: a node cannot link to itself`);
    checkLink(params, `link ${aName}-${bName}`);
    if (a.kind === 'host' && a.ports.length > 0)
      throw new TopologyError(`host ${aName} has more than one link (hosts have exactly one port)`);
    if (b.kind === 'host' && b.ports.length > 0)
      throw new TopologyError(`host ${bName} has more than one link (hosts have exactly one port)`);
    const ap = a.ports.length;
    const bp = b.ports.length;
    a.ports.push(makePort(a, ap, b.name, bp, params));
    b.ports.push(makePort(b, bp, a.name, ap, params));
  }

  build(): Topology {
    const hosts = this.nodes.filter((n) => n.kind === 'host');
    const switches = this.nodes.filter((n) => n.kind === 'switch');
    if (hosts.length < 1) throw new TopologyError('topology has no hosts');
    for (const h of hosts) {
      if (h.ports.length !== 1) throw new TopologyError(`host ${h.name} is not connected`);
    }
    for (const s of switches) {
      if (s.ports.length === 0) throw new TopologyError(`switch ${s.name} is not connected`);
    }
    const hostByIp = new Map<number, TopologyNode>();
    for (const h of hosts) hostByIp.set(h.ip, h);
    // Host-ordered node list (h1..hN, then s1..sM) so every iteration over nodes is stable.
    const nodes = [...hosts, ...switches];
    return { nodes, byName: new Map(this.byName), hosts, switches, hostByIp };
  }
}

function makePort(
  node: TopologyNode,
  index: number,
  peerNode: string,
  peerPort: number,
  p: LinkParams,
): PortSpec {
  return {
    index,
    mac: portMac(node.kind, node.index, index),
    rateBps: p.rateBps,
    delayNs: p.delayNs,
    peerNode,
    peerPort,
  };
}

function checkLink(p: LinkParams, what: string): void {
  if (!(Number.isFinite(p.rateBps) && p.rateBps > 0)) throw new TopologyError(`${what}: rate must be > 0`);
  if (!(Number.isInteger(p.delayNs) && p.delayNs >= 0))
    throw new TopologyError(`${what}: delay must be a whole number of ns >= 0`);
  if (p.loss !== undefined && !(p.loss >= 0 && p.loss <= 1))
    throw new TopologyError(`${what}: loss must be in [0, 1]`);
}

function checkCount(n: number, what: string, min = 1): void {
  if (!(Number.isInteger(n) && n >= min))
    throw new TopologyError(`${what} must be an integer >= ${min}, got ${n}`);
}

// ---------------------------------------------------------------------------------------------

export interface StarParams {
  hosts: number;
  link: LinkParams;
}

/** One switch s1; host hi on port i-1. */
export function buildStar(p: StarParams): Topology {
  checkCount(p.hosts, 'star hosts', 2);
  const b = new TopologyBuilder();
  for (let i = 1; i <= p.hosts; i++) b.host(`h${i}`);
  b.switch('s1');
  for (let i = 1; i <= p.hosts; i++) b.link('s1', `h${i}`, p.link);
  return b.build();
}

export interface DumbbellParams {
  left: number;
  right: number;
  link: LinkParams;
  /** The s1-s2 link; defaults to `link`. */
  bottleneck?: LinkParams;
}

/**
 * s1 (left) and s2 (right) joined by the bottleneck link. Left hosts h1..hL on s1 ports
 * 0..L-1, right hosts h(L+1)..h(L+R) on s2 ports 0..R-1; the bottleneck is the last port of each.
 */
export function buildDumbbell(p: DumbbellParams): Topology {
  checkCount(p.left, 'dumbbell left');
  checkCount(p.right, 'dumbbell right');
  const b = new TopologyBuilder();
  for (let i = 1; i <= p.left + p.right; i++) b.host(`h${i}`);
  b.switch('s1');
  b.switch('s2');
  for (let i = 1; i <= p.left; i++) b.link('s1', `h${i}`, p.link);
  for (let i = p.left + 1; i <= p.left + p.right; i++) b.link('s2', `h${i}`, p.link);
  b.link('s1', 's2', p.bottleneck ?? p.link);
  return b.build();
}

export interface LeafSpineParams {
  leaves: number;
  hostsPerLeaf: number;
  spines: number;
  /** Host-leaf links. */
  hostLink: LinkParams;
  /** Leaf-spine links; defaults to hostLink. */
  fabricLink?: LinkParams;
}

/**
 * Leaves s1..sL, spines s(L+1)..s(L+S), full bipartite leaf-spine. Leaf i (1-based) holds hosts
 * h((i-1)H+1)..h(iH) on ports 0..H-1 and spine j on port H+j-1; spine j reaches leaf i on port i-1.
 */
export function buildLeafSpine(p: LeafSpineParams): Topology {
  checkCount(p.leaves, 'leafspine leaves');
  checkCount(p.hostsPerLeaf, 'leafspine hostsPerLeaf');
  checkCount(p.spines, 'leafspine spines');
  if (p.leaves * p.hostsPerLeaf < 2) throw new TopologyError('leafspine needs at least 2 hosts');
  const b = new TopologyBuilder();
  const nHosts = p.leaves * p.hostsPerLeaf;
  for (let i = 1; i <= nHosts; i++) b.host(`h${i}`);
  for (let i = 1; i <= p.leaves + p.spines; i++) b.switch(`s${i}`);
  for (let l = 0; l < p.leaves; l++) {
    for (let k = 0; k < p.hostsPerLeaf; k++)
      b.link(`s${l + 1}`, `h${l * p.hostsPerLeaf + k + 1}`, p.hostLink);
  }
  for (let l = 0; l < p.leaves; l++) {
    for (let s = 0; s < p.spines; s++)
      b.link(`s${l + 1}`, `s${p.leaves + s + 1}`, p.fabricLink ?? p.hostLink);
  }
  return b.build();
}

export interface FatTreeParams {
  /** Standard k-ary fat-tree (k even): k pods, k/2 ToRs and aggs per pod, k/2 hosts per ToR, (k/2)^2 cores. */
  k?: number;
  /** Explicit shape; the defaults reproduce the HPCC simulator's mix/fat.txt (320 hosts, 56 switches). */
  pods?: number;
  torsPerPod?: number;
  aggsPerPod?: number;
  hostsPerTor?: number;
  /** Core uplinks per agg; cores = aggsPerPod × coreUplinksPerAgg. */
  coreUplinksPerAgg?: number;
  hostLink: LinkParams;
  /** ToR-agg and agg-core links; defaults to hostLink. fat.txt uses 400 Gbps here. */
  fabricLink?: LinkParams;
}

export interface FatTreeShape {
  pods: number;
  torsPerPod: number;
  aggsPerPod: number;
  hostsPerTor: number;
  coreUplinksPerAgg: number;
}

/** HPCC simulator mix/fat.txt: 5 pods × (4 ToR × 16 hosts, 4 aggs), 16 cores. */
export const HPCC_FAT_SHAPE: FatTreeShape = {
  pods: 5,
  torsPerPod: 4,
  aggsPerPod: 4,
  hostsPerTor: 16,
  coreUplinksPerAgg: 4,
};

export function fatTreeShape(p: Omit<FatTreeParams, 'hostLink' | 'fabricLink'>): FatTreeShape {
  if (p.k !== undefined) {
    if (!(Number.isInteger(p.k) && p.k >= 2 && p.k % 2 === 0))
      throw new TopologyError(`fattree k must be an even integer >= 2, got ${p.k}`);
    const h = p.k / 2;
    return { pods: p.k, torsPerPod: h, aggsPerPod: h, hostsPerTor: h, coreUplinksPerAgg: h };
  }
  return {
    pods: p.pods ?? HPCC_FAT_SHAPE.pods,
    torsPerPod: p.torsPerPod ?? HPCC_FAT_SHAPE.torsPerPod,
    aggsPerPod: p.aggsPerPod ?? HPCC_FAT_SHAPE.aggsPerPod,
    hostsPerTor: p.hostsPerTor ?? HPCC_FAT_SHAPE.hostsPerTor,
    coreUplinksPerAgg: p.coreUplinksPerAgg ?? HPCC_FAT_SHAPE.coreUplinksPerAgg,
  };
}

/**
 * Three-tier fat-tree in the layout of the HPCC simulator's mix/fat.txt. Switch numbering: ToRs
 * s1..sT (pod-major), then aggs (pod-major), then cores. Within a pod every ToR links to every
 * agg; agg j (0-based within its pod) of every pod links to cores j·U .. j·U+U-1, so each core
 * has one link per pod. Links are added in fat.txt's order (host links, ToR-agg, agg-core), so
 * port numbers match ns-3's: ToR ports 0..H-1 hosts then aggs; agg ports ToRs then cores; core
 * port p = pod p.
 */
export function buildFatTree(p: FatTreeParams): Topology {
  const sh = fatTreeShape(p);
  checkCount(sh.pods, 'fattree pods');
  checkCount(sh.torsPerPod, 'fattree torsPerPod');
  checkCount(sh.aggsPerPod, 'fattree aggsPerPod');
  checkCount(sh.hostsPerTor, 'fattree hostsPerTor');
  checkCount(sh.coreUplinksPerAgg, 'fattree coreUplinksPerAgg');
  const nTor = sh.pods * sh.torsPerPod;
  const nAgg = sh.pods * sh.aggsPerPod;
  const nCore = sh.aggsPerPod * sh.coreUplinksPerAgg;
  const nHosts = nTor * sh.hostsPerTor;
  if (nHosts < 2) throw new TopologyError('fattree needs at least 2 hosts');
  const fabric = p.fabricLink ?? p.hostLink;
  const b = new TopologyBuilder();
  for (let i = 1; i <= nHosts; i++) b.host(`h${i}`);
  const tor = (i: number) => `s${i + 1}`;
  const agg = (i: number) => `s${nTor + i + 1}`;
  const core = (i: number) => `s${nTor + nAgg + i + 1}`;
  for (let i = 0; i < nTor + nAgg + nCore; i++) b.switch(`s${i + 1}`);
  for (let h = 0; h < nHosts; h++) b.link(`h${h + 1}`, tor(Math.floor(h / sh.hostsPerTor)), p.hostLink);
  for (let pod = 0; pod < sh.pods; pod++) {
    for (let t = 0; t < sh.torsPerPod; t++) {
      for (let a = 0; a < sh.aggsPerPod; a++)
        b.link(tor(pod * sh.torsPerPod + t), agg(pod * sh.aggsPerPod + a), fabric);
    }
  }
  for (let pod = 0; pod < sh.pods; pod++) {
    for (let a = 0; a < sh.aggsPerPod; a++) {
      for (let u = 0; u < sh.coreUplinksPerAgg; u++)
        b.link(agg(pod * sh.aggsPerPod + a), core(a * sh.coreUplinksPerAgg + u), fabric);
    }
  }
  return b.build();
}

export interface ExplicitNode {
  name: string;
  kind: NodeKind;
}

export interface ExplicitLink {
  a: string;
  b: string;
  rateBps?: number;
  delayNs?: number;
  loss?: number;
}

export interface ExplicitParams {
  nodes: ExplicitNode[];
  links: ExplicitLink[];
  /** Rate/delay of links that do not set their own. */
  link: LinkParams;
}

/** Nodes as given (names kept; indices by order of appearance per kind); ports numbered in link order. */
export function buildExplicit(p: ExplicitParams): Topology {
  const b = new TopologyBuilder();
  for (const n of p.nodes) b.addNode(n.name, n.kind);
  for (const l of p.links) {
    b.link(l.a, l.b, {
      rateBps: l.rateBps ?? p.link.rateBps,
      delayNs: l.delayNs ?? p.link.delayNs,
      loss: l.loss ?? p.link.loss,
    });
  }
  return b.build();
}

export type TopologyParams =
  | ({ kind: 'star' } & StarParams)
  | ({ kind: 'dumbbell' } & DumbbellParams)
  | ({ kind: 'leafspine' } & LeafSpineParams)
  | ({ kind: 'fattree' } & FatTreeParams)
  | ({ kind: 'explicit' } & ExplicitParams);

/**
 * Change the link between nodes `a` and `b` (every parallel link between them), both directions,
 * or with `oneWay` only a's egress towards b (its rate and loss; a delay is both ways). Returns
 * how many links matched.
 */
export function overrideLink(
  topo: Topology,
  a: string,
  b: string,
  o: Partial<LinkParams> & { oneWay?: boolean },
): number {
  const na = topo.byName.get(a);
  if (na === undefined) throw new TopologyError(`link ${a}-${b}: unknown node "${a}"`);
  if (!topo.byName.has(b)) throw new TopologyError(`link ${a}-${b}: unknown node "${b}"`);
  let n = 0;
  for (const p of na.ports) {
    if (p.peerNode !== b) continue;
    const back = topo.byName.get(b)!.ports[p.peerPort];
    const merged = {
      rateBps: o.rateBps ?? p.rateBps,
      delayNs: o.delayNs ?? p.delayNs,
      loss: o.loss ?? p.lossRate,
    };
    checkLink(merged, `link ${a}-${b}`);
    if (o.oneWay === true && o.delayNs !== undefined && o.delayNs !== back.delayNs)
      throw new TopologyError(`link ${a}-${b}: a one-way change cannot change the delay`);
    for (const q of o.oneWay === true ? [p] : [p, back]) {
      q.rateBps = merged.rateBps;
      q.delayNs = merged.delayNs;
      if (merged.loss !== undefined && merged.loss > 0) q.lossRate = merged.loss;
      else delete q.lossRate;
    }
    n++;
  }
  return n;
}

export function buildTopology(p: TopologyParams): Topology {
  switch (p.kind) {
    case 'star':
      return buildStar(p);
    case 'dumbbell':
      return buildDumbbell(p);
    case 'leafspine':
      return buildLeafSpine(p);
    case 'fattree':
      return buildFatTree(p);
    case 'explicit':
      return buildExplicit(p);
  }
}
