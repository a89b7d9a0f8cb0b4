/**
 * The run plan: which flows exist, their QPs (QPNs handed out per host in flow-id order from
 * FIRST_QPN, sender before receiver), paths, message sizes and static starts. It depends only on
 * the scenario and the seed, never on run dynamics, so every process of a real run (hosts,
 * switches, launcher) derives the same plan on its own, and the virtual runtime numbers its QPs
 * exactly as a real run does. The one planner of the project: reproduction suites that need a
 * flow's QPNs ask it too (planQpns).
 */
import type { Topology, TopologyNode } from '../../topology/model.js';
import { type HostPath, hostPath } from '../../topology/path.js';
import type { Routes } from '../../topology/routing.js';
import { MAX_MESSAGE_BYTES } from '../../wire/reth.js';
import type { FlowSpec, Workload } from '../../workload/generate.js';
import type { RunSetup } from '../scenario-setup.js';
import { FIRST_QPN, rocev2SrcPort } from './qp.js';

export interface PlannedQp {
  key: string;
  src: TopologyNode;
  dst: TopologyNode;
  srcQpn: number;
  dstQpn: number;
  srcPort: number;
  path: HostPath;
  /** The receiver pulls this QP's data with credits (UET RCCC): its network RTT; else null. */
  receiverCredits: { networkRttNs: number } | null;
  /**
   * Flows that use this QP, in the order they are posted: static starts by (startNs, id), then
   * gated flows by id (a gated flow waits for the QP's earlier flows to start: host-app.ts).
   */
  flowIds: number[];
}

export interface PlannedFlow {
  spec: FlowSpec;
  qp: PlannedQp;
  cc: string;
  mtuBytes: number;
  /** NIC verb (READ is carried as WRITE: the NIC contract has no READ). */
  verb: 'send' | 'write';
  /** The receiver's ACK coalescing (an ACK per this many data packets and at every message end). */
  ackEveryPackets: number;
  /** Messages of a finite flow (sizes in posting order); null for long-lived flows. */
  messageBytes: number[] | null;
}

export interface RunPlan {
  topo: Topology;
  routes: Routes;
  workload: Workload;
  flows: PlannedFlow[];
  qps: PlannedQp[];
  /** Flows started at a fixed emulated time (no gate), sorted by (startNs, id). */
  staticStarts: PlannedFlow[];
  /** Emulated propagation + serialisation RTT of the slowest and fastest paths (lag warnings). */
  maxBaseRttNs: number;
  minBaseRttNs: number;
  /** What the plan had to approximate (copied into results). */
  warnings: string[];
}

/** What the planner needs to know of a host's NIC. */
export interface PlannedNic {
  mtuBytes: number;
  ackEveryPackets: number;
  /** Name of the host's congestion-control algorithm. */
  cc: string;
  /** The network RTT of its receiver credits when this host pulls what it receives (RCCC). */
  rcccNetworkRttNs?: number | null;
}

/** What the planner needs of a host's NIC configuration. */
export function plannedNicOf(
  cfg: {
    mtuBytes: number;
    ackEveryPackets: number;
    rccc?: { enabled: boolean; networkRttNs: number } | null;
  },
  cc: string,
): PlannedNic {
  const r = cfg.rccc ?? null;
  return {
    mtuBytes: cfg.mtuBytes,
    ackEveryPackets: cfg.ackEveryPackets,
    cc,
    rcccNetworkRttNs: r?.enabled ? r.networkRttNs : null,
  };
}

export interface PlanInput {
  topo: Topology;
  routes: Routes;
  workload: Workload;
  nic(host: TopologyNode): PlannedNic;
}

/** Message size of long-lived flows without an explicit messageSize. */
export const LONG_FLOW_MESSAGE_BYTES = 1_000_000;
/** Messages a long-lived flow keeps posted, so the QP never idles between two of them. */
export const LONG_FLOW_DEPTH = 2;

/** Hands out QPNs per host, densely from FIRST_QPN. */
function qpnAllocator(): (host: string) => number {
  const next = new Map<string, number>();
  return (host) => {
    const q = next.get(host) ?? FIRST_QPN;
    next.set(host, q + 1);
    return q;
  };
}

/** The QPNs of each flow (sender and receiver), without paths: what reproduction probes need. */
export function planQpns(
  flows: readonly Pick<FlowSpec, 'src' | 'dst' | 'qpKey'>[],
): { src: number; dst: number }[] {
  const alloc = qpnAllocator();
  const byKey = new Map<string, { src: number; dst: number }>();
  return flows.map((f) => {
    let q = byKey.get(f.qpKey);
    if (q === undefined) {
      // Sender first: the order the planner below allocates in.
      const src = alloc(f.src);
      q = { src, dst: alloc(f.dst) };
      byKey.set(f.qpKey, q);
    }
    return q;
  });
}

export function planRun(inp: PlanInput): RunPlan {
  const { topo, routes, workload } = inp;
  const qpns = planQpns(workload.flows);
  const nics = new Map<string, PlannedNic>();
  const nicOf = (host: string) => {
    let n = nics.get(host);
    if (n === undefined) {
      n = inp.nic(topo.byName.get(host)!);
      nics.set(host, n);
    }
    return n;
  };
  const qps = new Map<string, PlannedQp>();
  const paths = new Map<string, HostPath>();
  let reads = 0;
  const flows = workload.flows.map((f, i): PlannedFlow => {
    const nic = nicOf(f.src);
    const mtu = nic.mtuBytes;
    let qp = qps.get(f.qpKey);
    if (qp === undefined) {
      const pk = `${f.src}>${f.dst}>${mtu}`;
      let path = paths.get(pk);
      if (path === undefined) {
        path = hostPath(topo, routes, f.src, f.dst, mtu);
        paths.set(pk, path);
      }
      const { src: srcQpn, dst: dstQpn } = qpns[i];
      const rcccRtt = nicOf(f.dst).rcccNetworkRttNs ?? null;
      qp = {
        key: f.qpKey,
        src: topo.byName.get(f.src)!,
        dst: topo.byName.get(f.dst)!,
        srcQpn,
        dstQpn,
        srcPort: rocev2SrcPort(srcQpn, dstQpn),
        path,
        receiverCredits: rcccRtt === null ? null : { networkRttNs: rcccRtt },
        flowIds: [],
      };
      qps.set(f.qpKey, qp);
    }
    if (f.verb === 'read') reads++;
    let messageBytes: number[] | null = null;
    if (Number.isFinite(f.sizeBytes)) {
      messageBytes = [];
      // Without a messageSize, one message, unless the flow is larger than a message may be: then
      // messages of the largest size (RETH's DMA length cannot say more; src/wire/reth.ts).
      const chunk = f.messageBytes ?? Math.min(f.sizeBytes, MAX_MESSAGE_BYTES);
      for (let off = 0; off < f.sizeBytes; off += chunk)
        messageBytes.push(Math.min(chunk, f.sizeBytes - off));
    }
    return {
      spec: f,
      qp,
      cc: nic.cc,
      mtuBytes: mtu,
      verb: f.verb === 'send' ? 'send' : 'write',
      ackEveryPackets: nicOf(f.dst).ackEveryPackets,
      messageBytes,
    };
  });
  const staticStarts = flows
    .filter((f) => f.spec.gate < 0)
    .sort((a, b) => a.spec.startNs - b.spec.startNs || a.spec.id - b.spec.id);
  for (const f of staticStarts) f.qp.flowIds.push(f.spec.id);
  for (const f of flows) if (f.spec.gate >= 0) f.qp.flowIds.push(f.spec.id);
  let maxRtt = 0;
  let minRtt = Number.POSITIVE_INFINITY;
  for (const q of qps.values()) {
    maxRtt = Math.max(maxRtt, q.path.baseRttNs);
    minRtt = Math.min(minRtt, q.path.baseRttNs);
  }
  const warnings: string[] = [];
  if (reads > 0) warnings.push(`${reads} flows use verb read, carried as RDMA WRITE (the NIC has no READ)`);
  return {
    topo,
    routes,
    workload,
    flows,
    qps: [...qps.values()],
    staticStarts,
    maxBaseRttNs: maxRtt,
    minBaseRttNs: Number.isFinite(minRtt) ? minRtt : 0,
    warnings,
  };
}

/** The plan of a scenario as set up by setupRun (the real runtimes' processes each derive it). */
export function planFromSetup(setup: RunSetup): RunPlan {
  const { topo } = setup;
  return planRun({
    topo,
    routes: setup.routes,
    workload: setup.workload,
    nic: (h) => {
      const p = h.ports[0];
      const base = { name: h.name, ip: h.ip, port: { rateBps: p.rateBps, mac: p.mac, peerMac: 0 } };
      return plannedNicOf(setup.nicConfig(h, base), setup.ccByHost.get(h.name)!.name);
    },
  });
}

/** MAC of the port at the other end of (node, port). */
export function peerMacOf(topo: Topology, node: TopologyNode, port: number): number {
  const p = node.ports[port];
  return topo.byName.get(p.peerNode)!.ports[p.peerPort].mac;
}
