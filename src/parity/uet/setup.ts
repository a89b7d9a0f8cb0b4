/**
 * The UEC reference simulator's set-up of a validation run, computed as it computes it
 * (ultraethernet/uet-htsim htsim/sim/datacenter/main_uec.cpp `calculate_rtt`,
 * `calculate_bdp_pkt`, the queue sizing, ECN and min-RTO lines of `main`; fat_tree_topology.cpp
 * for the shapes and the failed links), so our scenarios get the same numbers: 100 Gbit/s, 1 µs
 * per hop, 4150-byte packets (4086 B of payload + 64 B of header), queues of 1 × BDP with
 * trimming, ECN RED from 0.2 to 0.8 BDP in whole packets.
 */

export const REF_PACKET_BYTES = 4150;
export const REF_HEADER_BYTES = 64;
export const REF_PAYLOAD_BYTES = REF_PACKET_BYTES - REF_HEADER_BYTES;
export const REF_ACK_BYTES = 64;
export const REF_RATE_BPS = 100e9;
export const REF_HOP_NS = 1000;
/** A link of a failed (-failed N) set runs at this fraction, its queue and ECN thresholds too. */
export const REF_FAILED_LINK_RATIO = 0.25;

export type RefTopology =
  | { kind: 'fattree'; k: number; hosts: number }
  | { kind: 'leafspine'; leaves: number; hostsPerLeaf: number; spines: number; hosts: number };

/** Links from host to host across the fabric's widest path (FatTreeTopologyCfg::get_diameter). */
export function diameterLinks(t: RefTopology): number {
  return t.kind === 'fattree' ? 6 : 4;
}

/** 3-tier fat tree of the reference for `hosts` nodes (set_params: smallest k with k³/4 ≥ N). */
export function fatTreeFor(hosts: number): RefTopology {
  let k = 2;
  while ((k * k * k) / 4 < hosts) k += 2;
  if ((k * k * k) / 4 !== hosts) throw new Error(`no 3-tier fat tree has exactly ${hosts} hosts`);
  return { kind: 'fattree', k, hosts };
}

/**
 * A leaf-spine .topo file of the reference (2 tiers, one pod): hosts per leaf = Tier 0
 * Radix_Down, uplinks per leaf = Radix_Up, spines = leaves × Radix_Up / Tier 1 Radix_Down.
 */
export function parseLeafSpineTopo(text: string): RefTopology {
  const field = (part: string, key: string): number => {
    const m = new RegExp(`${key}\\s+(\\d+)`).exec(part);
    if (m === null) throw new Error(`topology file: no ${key}`);
    return Number(m[1]);
  };
  if (field(text, 'Tiers') !== 2) throw new Error('topology file: only 2-tier leaf-spines are supported');
  const hosts = field(text, 'Nodes');
  const t1 = text.indexOf('Tier 1');
  const tier0 = text.slice(text.indexOf('Tier 0'), t1);
  const tier1 = text.slice(t1);
  const hostsPerLeaf = field(tier0, 'Radix_Down');
  const leaves = hosts / hostsPerLeaf;
  const spines = (leaves * field(tier0, 'Radix_Up')) / field(tier1, 'Radix_Down');
  if (!Number.isInteger(leaves) || !Number.isInteger(spines))
    throw new Error('topology file: radixes do not divide');
  return { kind: 'leafspine', leaves, hostsPerLeaf, spines, hosts };
}

/** network_max_unloaded_rtt (calculate_rtt), ns: propagation both ways + one data and one ACK serialisation per link. */
export function networkRttNs(t: RefTopology): number {
  const d = diameterLinks(t);
  const serNs = (bytes: number) => (bytes * 8 * 1e9) / REF_RATE_BPS;
  return 2 * d * REF_HOP_NS + d * serNs(REF_PACKET_BYTES) + d * serNs(REF_ACK_BYTES);
}

/** calculate_bdp_pkt: whole packets of one network RTT at the line rate, rounded up. */
export function bdpPackets(t: RefTopology): number {
  return Math.ceil((networkRttNs(t) * 1e-9 * (REF_RATE_BPS / 8)) / REF_PACKET_BYTES);
}

export interface RefQueues {
  /** Data queue of every switch port, bytes (1 × BDP with trimming, or -q packets). */
  queueBytes: number;
  ecnLowBytes: number;
  ecnHighBytes: number;
  /** UecSrc::_min_rto: 15 µs + the time to drain 6 queues. */
  minRtoNs: number;
}

export function refQueues(t: RefTopology, queuePackets: number | null): RefQueues {
  const bdp = bdpPackets(t);
  const queueBytes = (queuePackets ?? bdp) * REF_PACKET_BYTES;
  return {
    queueBytes,
    ecnLowBytes: Math.ceil(bdp * 0.2) * REF_PACKET_BYTES,
    ecnHighBytes: Math.ceil(bdp * 0.8) * REF_PACKET_BYTES,
    minRtoNs: 15_000 + (queueBytes * 6 * 8 * 1e9) / REF_RATE_BPS,
  };
}

/**
 * The links `-failed N` slows on a 3-tier fat tree (FatTreeTopology::init_network): aggregation
 * switch a's l-th core link is failed when l + a × (k/2) < N, in the core → aggregation
 * direction. As our switch names: aggregation switches follow the k²/2 ToRs, cores follow them;
 * our aggregation a (position j in its pod) reaches cores j·k/2 .. j·k/2 + k/2 − 1.
 */
export function failedFatTreeLinks(t: RefTopology, n: number): { core: string; agg: string }[] {
  if (t.kind !== 'fattree') throw new Error('-failed is modelled on fat trees only');
  const half = t.k / 2;
  const nTor = t.k * half;
  const nAgg = t.k * half;
  const out: { core: string; agg: string }[] = [];
  for (let a = 0; a < nAgg && out.length < n; a++) {
    for (let l = 0; l < half && l + a * half < n; l++) {
      const j = a % half;
      out.push({ agg: `s${nTor + a + 1}`, core: `s${nTor + nAgg + j * half + l + 1}` });
    }
  }
  return out;
}
