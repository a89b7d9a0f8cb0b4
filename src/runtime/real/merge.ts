/**
 * The nodes' reports → one results.json, through src/stats like the virtual runtime, so both
 * runtimes produce the same shape and the same meanings (virtual-run.ts `results()`).
 */
import { idealFctNs } from '../../stats/fct.js';
import {
  buildResults,
  type FlowRecord,
  type HostResult,
  type PortResult,
  type Results,
  type SeriesPoints,
} from '../../stats/results.js';
import type { RunPlan } from '../app/plan.js';
import type { NodeReport } from './protocol.js';

export interface MergeInput {
  scenario: string;
  runtime: string;
  seed: number;
  timeScale: number;
  endNs: number;
  plan: RunPlan;
  ccByHost: Record<string, string>;
  reports: Map<string, NodeReport>;
  /** Launcher-side warnings (restarts, missing reports, watchdog). */
  warnings: string[];
}

/** Fraction of a lagging node's base RTT its event-loop p99 may take before we warn. */
const LAG_RTT_FRACTION = 0.5;
/** Achieved/expected rate under load below which a port "could not keep up". */
const MIN_RATE_RATIO = 0.9;

function fmtUs(ns: number): string {
  return `${(ns / 1e3).toFixed(ns < 10_000 ? 2 : 0)} µs`;
}

export function mergeReports(inp: MergeInput): Results {
  const { plan, reports } = inp;
  const warnings = [...inp.warnings];
  const ports: PortResult[] = [];
  const hosts: HostResult[] = [];
  const switchPorts = new Set<string>();
  const emptyPort = (node: string, port: number): PortResult => ({
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
  });
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
    });
  }
  for (const s of plan.topo.switches) {
    const r = reports.get(s.name);
    for (const p of s.ports) {
      switchPorts.add(`${s.name}:${p.index}`);
      ports.push(r?.ports.find((x) => x.port === p.index) ?? emptyPort(s.name, p.index));
    }
  }

  // Flows: the sender knows start/end, the receiver what arrived.
  const sent = new Map<number, NodeReport['flows'][number]>();
  const rx = new Map<number, NodeReport['rx'][number]>();
  let duplicates = 0;
  let duplicateCompletions = 0;
  for (const r of reports.values()) {
    for (const f of r.flows) sent.set(f.id, f);
    for (const x of r.rx) rx.set(x.flowId, x);
    duplicates += r.duplicateDeliveries;
    duplicateCompletions += r.duplicateCompletions;
    for (const w of r.warnings) warnings.push(`${r.node}: ${w}`);
  }
  const flows: FlowRecord[] = plan.flows.map((pf) => {
    const s = sent.get(pf.spec.id);
    const delivered = rx.get(pf.spec.id)?.deliveredBytes ?? 0;
    const endNs = s?.endNs ?? null;
    const sizeBytes = Number.isFinite(pf.spec.sizeBytes)
      ? pf.spec.sizeBytes
      : endNs !== null
        ? (s?.postedBytes ?? 0)
        : delivered;
    return {
      id: pf.spec.id,
      src: pf.spec.src,
      dst: pf.spec.dst,
      cc: pf.cc,
      sizeBytes,
      startNs: s?.startNs ?? pf.spec.startNs,
      endNs,
      idealFctNs: idealFctNs({
        sizeBytes: Math.max(1, sizeBytes),
        mtuBytes: pf.mtuBytes,
        verb: pf.verb,
        hpccBaseRttNs: pf.qp.path.hpccBaseRttNs,
        bottleneckRateBps: pf.qp.path.bottleneckRateBps,
      }),
      deliveredBytes: delivered,
      started: s?.started ?? false,
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

  // Node health: garbage, firmware validation, and whether the host kept up with the dilation.
  const rttNs = plan.minBaseRttNs > 0 ? plan.minBaseRttNs : 1000;
  for (const r of reports.values()) {
    if (r.io.garbageTotal > 0) {
      const why = Object.entries(r.io.garbage)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      warnings.push(`${r.node}: ${r.io.garbageTotal} garbage datagrams dropped (${why})`);
    }
    if (r.io.encodeErrors > 0) warnings.push(`${r.node}: ${r.io.encodeErrors} frames could not be encoded`);
    if (r.firmware.malformed > 0) warnings.push(`${r.node}: ${r.firmware.malformed} malformed frames`);
    if (r.firmware.unroutable > 0) warnings.push(`${r.node}: ${r.firmware.unroutable} unroutable frames`);
    if (r.firmware.ttlExpired > 0)
      warnings.push(`${r.node}: ${r.firmware.ttlExpired} frames with expired TTL`);
    if (r.firmware.losslessDrops > 0)
      warnings.push(`${r.node}: ${r.firmware.losslessDrops} drops in a PFC-enabled class`);
    // With arrival stamps, a late timer or a slow event loop changes nothing firmware sees unless
    // a frame comes after its stamp: then (and only then) the host did not keep up.
    const stamped = r.io.arrivalStamps === true;
    if ((r.io.lateFrames ?? 0) > 0) {
      warnings.push(
        `${r.node}: the host could not keep up: ${r.io.lateFrames} of ${r.io.stampedFrames} frames reached firmware after their emulated arrival time (up to ${fmtUs(r.io.maxLateNs)} late; raise timeScale)`,
      );
    }
    const lagEmNs = r.load.eventLoopP99Ns / inp.timeScale;
    if (!stamped && lagEmNs > LAG_RTT_FRACTION * rttNs) {
      warnings.push(
        `${r.node}: the host could not keep up: event-loop lag p99 ${(r.load.eventLoopP99Ns / 1e6).toFixed(2)} ms real = ${fmtUs(lagEmNs)} emulated, more than ${LAG_RTT_FRACTION * 100}% of the ${fmtUs(rttNs)} base RTT (raise timeScale)`,
      );
    }
    // Ports serialise in emulated time; with stamps their rate is exact whatever the host does.
    for (const p of stamped ? [] : r.load.ports) {
      if (p.ratio !== null && p.loadedWindows >= 5 && p.ratio < MIN_RATE_RATIO) {
        warnings.push(
          `${r.node} port ${p.port}: the host could not keep up: achieved ${(100 * p.ratio).toFixed(1)}% of the expected rate under load (raise timeScale)`,
        );
      }
    }
  }

  const queue: Record<string, SeriesPoints> = {};
  for (const s of plan.topo.switches) {
    const r = reports.get(s.name);
    if (r === undefined) continue;
    for (const [k, v] of Object.entries(r.series.queue)) queue[k] = v;
  }
  const rateEntries: [number, SeriesPoints][] = [];
  for (const r of reports.values())
    for (const [k, v] of Object.entries(r.series.rate)) rateEntries.push([Number(k), v]);
  rateEntries.sort((a, b) => a[0] - b[0]);
  const rate: Record<string, SeriesPoints> = {};
  for (const [id, pts] of rateEntries) rate[String(id)] = pts;

  return buildResults({
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
}
