/**
 * The run plan every process of a real run derives on its own from the scenario (setupRun) and
 * the seed: which flows exist, their QPs (QPNs in flow-id order, as the virtual runtime assigns
 * them) and paths. Hosts, switches and the launcher compute the same plan, so no process has to
 * tell another who talks to whom.
 */
import type { Topology, TopologyNode } from '../../topology/model.js';
import { type HostPath, hostPath } from '../../topology/path.js';
import type { Routes } from '../../topology/routing.js';
import type { FlowSpec, Workload } from '../../workload/generate.js';
import type { RunSetup } from '../scenario-setup.js';
import { FIRST_QPN, rocev2SrcPort } from '../virtual/qp.js';

export interface PlannedQp {
  key: string;
  src: TopologyNode;
  dst: TopologyNode;
  srcQpn: number;
  dstQpn: number;
  srcPort: number;
  path: HostPath;
  /** Flows that use this QP, in static start order (startNs, then id). */
  flowIds: number[];
}

export interface PlannedFlow {
  spec: FlowSpec;
  qp: PlannedQp;
  cc: string;
  mtuBytes: number;
  verb: 'send' | 'write';
  /** Messages of a finite flow (sizes in posting order); null for long-lived flows. */
  messageBytes: number[] | null;
}

export interface RunPlan {
  topo: Topology;
  routes: Routes;
  workload: Workload;
  flows: PlannedFlow[];
  qps: PlannedQp[];
  /** Flows started at a fixed emulated time (waitGroup < 0), sorted by (startNs, id). */
  staticStarts: PlannedFlow[];
  /** Emulated propagation + serialisation RTT of the slowest path (for lag warnings). */
  maxBaseRttNs: number;
  minBaseRttNs: number;
}

/** Message size of long-lived flows without an explicit messageSize (as in virtual time). */
export const LONG_FLOW_MESSAGE_BYTES = 1_000_000;
/** Messages a long-lived flow keeps posted. */
export const LONG_FLOW_DEPTH = 2;

export function planRun(setup: RunSetup): RunPlan {
  const { topo, routes, workload } = setup;
  const mtuOf = (host: string) => setup.nicConfig(topo.byName.get(host)!, dummyBase(topo, host)).mtuBytes;
  const nextQpn = new Map<string, number>();
  const alloc = (host: string) => {
    const q = nextQpn.get(host) ?? FIRST_QPN;
    nextQpn.set(host, q + 1);
    return q;
  };
  const qps = new Map<string, PlannedQp>();
  const paths = new Map<string, HostPath>();
  const mtus = new Map<string, number>();
  const flows = workload.flows.map((f): PlannedFlow => {
    let mtu = mtus.get(f.src);
    if (mtu === undefined) {
      mtu = mtuOf(f.src);
      mtus.set(f.src, mtu);
    }
    let qp = qps.get(f.qpKey);
    if (qp === undefined) {
      const pk = `${f.src}>${f.dst}>${mtu}`;
      let path = paths.get(pk);
      if (path === undefined) {
        path = hostPath(topo, routes, f.src, f.dst, mtu);
        paths.set(pk, path);
      }
      const srcQpn = alloc(f.src);
      const dstQpn = alloc(f.dst);
      qp = {
        key: f.qpKey,
        src: topo.byName.get(f.src)!,
        dst: topo.byName.get(f.dst)!,
        srcQpn,
        dstQpn,
        srcPort: rocev2SrcPort(srcQpn, dstQpn),
        path,
        flowIds: [],
      };
      qps.set(f.qpKey, qp);
    }
    let messageBytes: number[] | null = null;
    if (Number.isFinite(f.sizeBytes)) {
      messageBytes = [];
      const chunk = f.messageBytes ?? f.sizeBytes;
      for (let off = 0; off < f.sizeBytes; off += chunk)
        messageBytes.push(Math.min(chunk, f.sizeBytes - off));
    }
    return {
      spec: f,
      qp,
      cc: setup.ccByHost.get(f.src)!.name,
      mtuBytes: mtu,
      verb: f.verb === 'send' ? 'send' : 'write',
      messageBytes,
    };
  });
  const staticStarts = flows
    .filter((f) => f.spec.waitGroup < 0)
    .sort((a, b) => a.spec.startNs - b.spec.startNs || a.spec.id - b.spec.id);
  for (const f of staticStarts) f.qp.flowIds.push(f.spec.id);
  for (const f of flows) if (f.spec.waitGroup >= 0) f.qp.flowIds.push(f.spec.id);
  let maxRtt = 0;
  let minRtt = Number.POSITIVE_INFINITY;
  for (const q of qps.values()) {
    maxRtt = Math.max(maxRtt, q.path.baseRttNs);
    minRtt = Math.min(minRtt, q.path.baseRttNs);
  }
  return {
    topo,
    routes,
    workload,
    flows,
    qps: [...qps.values()],
    staticStarts,
    maxBaseRttNs: maxRtt,
    minBaseRttNs: Number.isFinite(minRtt) ? minRtt : 0,
  };
}

function dummyBase(topo: Topology, host: string) {
  const h = topo.byName.get(host)!;
  const p = h.ports[0];
  return { name: h.name, ip: h.ip, port: { rateBps: p.rateBps, mac: p.mac, peerMac: 0 } };
}

/** MAC of the port at the other end of (node, port). */
export function peerMacOf(topo: Topology, node: TopologyNode, port: number): number {
  const p = node.ports[port];
  return topo.byName.get(p.peerNode)!.ports[p.peerPort].mac;
}
