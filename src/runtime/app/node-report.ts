/**
 * What one node (a host with its application, or a switch) knows at the end of a run, and the
 * one function that merges the nodes' reports into results.json. Both runtimes report per node
 * and merge the same way: the virtual runtime takes one report of every node of its process, the
 * real launchers gather them from the node processes (docs/realtime.md). The merged results
 * therefore have the same shape and meaning whichever runtime produced them.
 */
import type { MultipathStats, Nic } from '../../../nic/api.js';
import type { Switch } from '../../../switch/api.js';
import { mergeProbeReports, type ProbeResults } from '../../probe/probe.js';
import { collectiveResults } from '../../stats/collectives.js';
import { idealFctNs } from '../../stats/fct.js';
import {
  buildResults,
  type FlatSeries,
  type FlowRecord,
  type HostResult,
  type PortResult,
  type Results,
} from '../../stats/results.js';
import type { FlowRateLog } from '../../stats/trace.js';
import type { TopologyNode } from '../../topology/model.js';
import type { RunPlan } from './plan.js';

/** A flow as its sending host saw it. */
export interface NodeFlowReport {
  id: number;
  started: boolean;
  startNs: number;
  endNs: number | null;
  postedBytes: number;
  messagesPosted: number;
  /** Sender completions (first ones; duplicates are counted apart). */
  senderCompletions: number;
  /** Rate changes while the flow was active, when the host kept it as a trace candidate. */
  rateLog?: FlowRateLog;
}

/** A flow as its receiving host saw it. */
export interface NodeRxReport {
  flowId: number;
  /** Payload bytes the receiving NIC delivered in order (NicObserver.onDelivered: every transport's rule). */
  deliveredBytes: number;
  /** Messages the receiving NIC completed for this flow. */
  receiverCompletions: number;
}

export interface NodeHostCounters {
  cnpTx: number;
  cnpRx: number;
  nackTx: number;
  retransmits: number;
  rxBytes: number;
  timeouts: number;
  duplicateRx: number;
  /** Only for a host that sprays or runs selective repeat. */
  multipath?: MultipathStats;
}

export interface NodeFirmwareCounters {
  malformed: number;
  unroutable: number;
  ttlExpired: number;
  losslessDrops: number;
}

export interface NodeReport {
  node: string;
  kind: 'host' | 'switch';
  /** Emulated time the node's report was taken at. */
  endNs: number;
  ports: PortResult[];
  host: NodeHostCounters | null;
  flows: NodeFlowReport[];
  rx: NodeRxReport[];
  /** Receiver completions whose message had already completed (must stay 0: exactly once). */
  duplicateDeliveries: number;
  /** Sender completions seen twice. */
  duplicateCompletions: number;
  /** Completions of messages the application never posted or expected. */
  unknownCompletions?: number;
  series: { queue: Record<string, FlatSeries>; rate: Record<string, FlatSeries> };
  firmware: NodeFirmwareCounters;
  /** Said about this node by itself (merged as "<node>: <warning>"). */
  warnings: string[];
  /** The node's part of the scenario's probe bins (only when the scenario asks for probes). */
  probe?: ProbeResults;
}

export function emptyPort(node: string, port: number): PortResult {
  return {
    node,
    port,
    txBytes: 0,
    maxQueueBytes: 0,
    meanQueueBytes: 0,
    ecnMarked: 0,
    pfcPauseTx: 0,
    pfcPauseRx: 0,
    pausedNs: 0,
    drops: 0,
    cnmTx: 0,
  };
}

/**
 * The firmware part of a node's report: its ports, host counters and firmware validation
 * counters. `linkDrops(port)` adds what the runtime lost on the wire out of that port (the
 * virtual fabric's loss model; a real node's held or unsendable frames).
 */
export function firmwareReport(
  me: TopologyNode,
  fw: { nic: Nic | null; sw: Switch | null },
  endNs: number,
  linkDrops: (port: number) => number,
): Pick<NodeReport, 'ports' | 'host' | 'firmware'> {
  const ports: PortResult[] = [];
  let host: NodeHostCounters | null = null;
  const firmware = { malformed: 0, unroutable: 0, ttlExpired: 0, losslessDrops: 0 };
  if (fw.nic !== null) {
    const c = fw.nic.counters();
    ports.push({
      node: me.name,
      port: 0,
      txBytes: c.txBytes,
      maxQueueBytes: 0,
      meanQueueBytes: 0,
      ecnMarked: 0,
      pfcPauseTx: 0,
      pfcPauseRx: c.pfcPauseRx,
      pausedNs: c.pausedNs,
      drops: linkDrops(0),
      cnmTx: 0,
    });
    host = {
      cnpTx: c.cnpTx,
      cnpRx: c.cnpRx,
      nackTx: c.nackTx,
      retransmits: c.retransmits,
      rxBytes: c.rxBytes,
      timeouts: c.timeouts,
      duplicateRx: c.duplicateRx,
    };
    const mp = fw.nic.multipath();
    if (mp !== null) host.multipath = mp;
    firmware.malformed = c.malformed;
  } else if (fw.sw !== null) {
    const { trimming, linkEvents } = fw.sw;
    for (const pc of fw.sw.portCounters()) {
      ports.push({
        node: me.name,
        port: pc.port,
        txBytes: pc.txBytes,
        maxQueueBytes: pc.maxQueueBytes,
        meanQueueBytes: endNs > 0 ? Math.round(pc.queueByteNs / endNs) : 0,
        ecnMarked: pc.ecnMarked,
        pfcPauseTx: pc.pfcPauseTx,
        pfcPauseRx: pc.pfcPauseRx,
        pausedNs: pc.pausedNs,
        // Every frame lost at this port: buffer, header queue, failed link, and on the wire.
        drops: pc.drops + pc.headerDrops + pc.linkDownDrops + linkDrops(pc.port),
        cnmTx: pc.cnmTx,
        ...(trimming
          ? { trims: pc.trims, headerDrops: pc.headerDrops, maxHeaderQueueBytes: pc.maxHeaderQueueBytes }
          : {}),
        ...(linkEvents ? { linkDownDrops: pc.linkDownDrops } : {}),
      });
    }
    // Optional: test switches may not count these.
    const sc = fw.sw.switchCounters?.();
    if (sc !== undefined) {
      firmware.malformed = sc.malformed;
      firmware.unroutable = sc.unroutable;
      firmware.ttlExpired = sc.ttlExpired;
      firmware.losslessDrops = sc.losslessDrops;
    }
  } else if (me.kind === 'switch') {
    for (const p of me.ports) ports.push(emptyPort(me.name, p.index));
  } else {
    ports.push(emptyPort(me.name, 0));
  }
  return { ports, host, firmware };
}

export interface MergeInput {
  scenario: string;
  runtime: string;
  seed: number;
  timeScale: number;
  endNs: number;
  plan: RunPlan;
  ccByHost: Record<string, string>;
  /** One report per node; a missing node counts as zeros. */
  reports: ReadonlyMap<string, NodeReport>;
  /** Known before the nodes' reports (scenario set-up, plan, launcher). */
  warnings: readonly string[];
  /** The runtime's own checks of the run (fabric misuse, whether real hosts kept up), last. */
  runtimeWarnings?: readonly string[];
}

/** The nodes' reports → results.json (src/stats/results.ts buildResults). */
export function mergeReports(inp: MergeInput): Results {
  const { plan, reports } = inp;
  const warnings = [...inp.warnings];
  const ports: PortResult[] = [];
  const hosts: HostResult[] = [];
  const switchPorts = new Set<string>();
  const nodeWarnings = (r: NodeReport | undefined) => {
    if (r === undefined) return;
    const f = r.firmware;
    if (r.kind === 'host') {
      if (f.malformed > 0) warnings.push(`${r.node}: ${f.malformed} malformed frames`);
    } else {
      if (f.losslessDrops > 0) warnings.push(`${r.node}: ${f.losslessDrops} drops in a PFC-enabled class`);
      let headerDrops = 0;
      for (const p of r.ports) headerDrops += p.headerDrops ?? 0;
      if (headerDrops > 0)
        warnings.push(
          `${r.node}: ${headerDrops} trimmed headers dropped (header queue full; the receiver cannot NACK them)`,
        );
      if (f.malformed > 0) warnings.push(`${r.node}: ${f.malformed} malformed frames`);
      if (f.unroutable > 0) warnings.push(`${r.node}: ${f.unroutable} unroutable frames`);
      if (f.ttlExpired > 0) warnings.push(`${r.node}: ${f.ttlExpired} frames with expired TTL`);
    }
    for (const w of r.warnings) warnings.push(`${r.node}: ${w}`);
  };
  for (const h of plan.topo.hosts) {
    const r = reports.get(h.name);
    ports.push(r?.ports[0] ?? emptyPort(h.name, 0));
    const c = r?.host;
    hosts.push({
      node: h.name,
      cnpTx: c?.cnpTx ?? 0,
      cnpRx: c?.cnpRx ?? 0,
      nackTx: c?.nackTx ?? 0,
      retransmits: c?.retransmits ?? 0,
      rxBytes: c?.rxBytes ?? 0,
      ...(c?.multipath !== undefined ? { multipath: c.multipath } : {}),
    });
    nodeWarnings(r);
  }
  for (const s of plan.topo.switches) {
    const r = reports.get(s.name);
    for (const p of r?.ports ?? s.ports.map((x) => emptyPort(s.name, x.index))) {
      switchPorts.add(`${s.name}:${p.port}`);
      ports.push(p);
    }
    nodeWarnings(r);
  }

  // Flows: the sender knows start and end, the receiver what arrived.
  const sent = new Map<number, NodeFlowReport>();
  const rx = new Map<number, NodeRxReport>();
  let duplicates = 0;
  let duplicateCompletions = 0;
  let unknownCompletions = 0;
  for (const n of plan.topo.nodes) {
    const r = reports.get(n.name);
    if (r === undefined) continue;
    for (const f of r.flows) sent.set(f.id, f);
    for (const x of r.rx) rx.set(x.flowId, x);
    duplicates += r.duplicateDeliveries;
    duplicateCompletions += r.duplicateCompletions;
    unknownCompletions += r.unknownCompletions ?? 0;
  }
  const flows: FlowRecord[] = plan.flows.map((pf) => {
    const s = sent.get(pf.spec.id);
    const delivered = rx.get(pf.spec.id)?.deliveredBytes ?? 0;
    const endNs = s?.endNs ?? null;
    const sizeBytes = reportedSizeBytes(pf.spec.sizeBytes, endNs, s?.postedBytes ?? 0, delivered);
    const rateLog = s?.rateLog;
    return {
      id: pf.spec.id,
      src: pf.spec.src,
      dst: pf.spec.dst,
      cc: pf.cc,
      sizeBytes,
      startNs: s?.startNs ?? pf.spec.startNs,
      endNs,
      idealFctNs: plannedIdealFctNs(plan, pf.spec.id, sizeBytes),
      deliveredBytes: delivered,
      started: s?.started ?? false,
      ...(rateLog !== undefined ? { rateLog } : {}),
    };
  });

  let unfinished = 0;
  let longLived = 0;
  for (const f of flows) {
    if (f.endNs !== null) continue;
    const spec = plan.flows[f.id].spec;
    if (Number.isFinite(spec.sizeBytes) || spec.stopNs !== null) unfinished++;
    else longLived++;
  }
  if (unfinished > 0)
    warnings.push(`${unfinished} of ${flows.length} flows did not complete by ${inp.endNs} ns`);
  if (longLived > 0) warnings.push(`${longLived} long-lived flows ran until the end of the run`);
  if (duplicates > 0)
    warnings.push(`${duplicates} messages were delivered to the application more than once`);
  if (duplicateCompletions > 0)
    warnings.push(`${duplicateCompletions} duplicate message completions reported by NICs`);
  if (unknownCompletions > 0) warnings.push(`${unknownCompletions} completions of unknown messages`);
  warnings.push(...(inp.runtimeWarnings ?? []));

  const queue: Record<string, FlatSeries> = {};
  for (const s of plan.topo.switches) {
    const r = reports.get(s.name);
    if (r === undefined) continue;
    for (const [k, v] of Object.entries(r.series.queue)) queue[k] = v;
  }
  const rateEntries: [number, FlatSeries][] = [];
  for (const n of plan.topo.nodes) {
    const r = reports.get(n.name);
    if (r === undefined) continue;
    for (const [k, v] of Object.entries(r.series.rate)) rateEntries.push([Number(k), v]);
  }
  rateEntries.sort((a, b) => a[0] - b[0]);
  const rate: Record<string, FlatSeries> = {};
  for (const [id, pts] of rateEntries) rate[String(id)] = pts;

  const probeParts: ProbeResults[] = [];
  for (const r of reports.values()) if (r.probe !== undefined) probeParts.push(r.probe);
  const results = buildResults({
    scenario: inp.scenario,
    runtime: inp.runtime,
    seed: inp.seed,
    timeScale: inp.timeScale,
    durationNs: inp.endNs,
    ccByHost: inp.ccByHost,
    flows,
    ports,
    hosts,
    series: { queue, rate },
    warnings,
    isSwitchPort: (p) => switchPorts.has(`${p.node}:${p.port}`),
  });
  const probes = mergeProbeReports(probeParts);
  if (probes !== null) results.probes = probes;
  if (plan.workload.collectives.length > 0)
    results.collectives = collectiveResults(plan, results.flows, results.ports, results.durationNs);
  return results;
}

/** A long-lived flow reports what it moved: everything posted once it drained, else what arrived. */
export function reportedSizeBytes(
  specSizeBytes: number,
  endNs: number | null,
  postedBytes: number,
  deliveredBytes: number,
): number {
  if (Number.isFinite(specSizeBytes)) return specSizeBytes;
  return endNs !== null ? postedBytes : deliveredBytes;
}

/** Ideal FCT of a planned flow of `sizeBytes` (src/stats/fct.ts). */
export function plannedIdealFctNs(plan: RunPlan, flowId: number, sizeBytes: number): number {
  const f = plan.flows[flowId];
  return idealFctNs({
    sizeBytes: Math.max(1, sizeBytes),
    mtuBytes: f.mtuBytes,
    verb: f.verb,
    hpccBaseRttNs: f.qp.path.hpccBaseRttNs,
    bottleneckRateBps: f.qp.path.bottleneckRateBps,
  });
}
