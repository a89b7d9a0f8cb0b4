/**
 * A virtual-time run of a scenario with RCC's measurement points attached through the probe API
 * (src/probe): the payload each flow delivers to its receiver NIC and the queue of watched switch
 * egress ports, kept per time bin, optionally the window every ACK carries, and the receiver QPs'
 * RCC state (mode, PID entry time) read through `qpInspect`. The hooks only observe.
 */

import { createNic, type Nic } from '../../nic/api.js';
import type { Scenario } from '../../src/config/scenario.js';
import { binRange, type QueueBins } from '../../src/probe/bins.js';
import { chainTracers, type FlowBins, Probe, tracer } from '../../src/probe/probe.js';
import { planFromSetup } from '../../src/runtime/app/plan.js';
import { type RunOutput, runScenario } from '../../src/runtime/run.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { Topology } from '../../src/topology/model.js';
import { FrameKind } from '../../src/wire/packet.js';
import type { FlowSpec } from '../../src/workload/generate.js';
import { createSwitch, type Switch } from '../../switch/api.js';
import { loadPaperScenario } from '../paper-scenario.js';
import { type PortRef, portKey } from '../ports.js';

export type QueueTrace = QueueBins;

export interface FlowProbe extends FlowBins {
  spec: FlowSpec;
  srcQpn: number;
  dstQpn: number;
  /** Unloaded RTT of the flow's path, ns, as the NIC gets it (T of docs/algorithms/rcc.md). */
  baseRttNs: number;
  /** ACKs the receiver sent (when asked for): time and assigned window (bytes). */
  ackNs: number[];
  ackWindow: number[];
}

export interface RccProbe {
  out: RunOutput;
  topo: Topology;
  binNs: number;
  flows: FlowProbe[];
  queues: Map<string, QueueTrace>;
  nics: Map<string, Nic>;
  switches: Map<string, Switch>;
  /** The receiver QP's qpInspect of each flow at the end of the run. */
  receiverState(flowId: number): Record<string, number>;
  senderState(flowId: number): Record<string, number>;
}

export interface ProbeOptions {
  outDir: string;
  seed?: number;
  watch?: PortRef[];
  /** Time bin of deliveries and queues, ns (default 100). */
  binNs?: number;
  /** Record ACK windows (default false). */
  acks?: boolean;
}

export function probedRun(scenario: Scenario, o: ProbeOptions): RccProbe {
  const setup = setupRun(scenario, { seed: o.seed });
  // The runtime's own plan: the QPNs and paths the virtual run will use.
  const plan = planFromSetup(setup);
  const watch = o.watch ?? [];
  const probe = new Probe(
    { binNs: o.binNs ?? 100, ports: watch.map((w) => ({ node: w.sw, port: w.port })), flows: true },
    plan,
  );
  const flows: FlowProbe[] = plan.flows.map(({ spec, qp }, i) =>
    Object.assign(probe.flows[i], {
      spec,
      srcQpn: qp.srcQpn,
      dstQpn: qp.dstQpn,
      baseRttNs: Math.round(qp.path.baseRttNs),
      ackNs: [] as number[],
      ackWindow: [] as number[],
    }),
  );
  // Receiver host → sender QPN (what its ACKs name) → flows; the latest started takes the ACK.
  const byAck = new Map<string, FlowProbe[]>();
  for (const f of flows) {
    const k = `${f.spec.dst}:${f.srcQpn}`;
    byAck.set(k, [...(byAck.get(k) ?? []), f]);
  }
  const acks = tracer({
    nicTx: (host, t, pkt) => {
      const w = pkt.ext?.windowBytes ?? null;
      if (pkt.kind !== FrameKind.Ack || w === null) return;
      let f: FlowProbe | undefined;
      for (const c of byAck.get(`${host}:${pkt.destQp}`) ?? [])
        if (f === undefined || c.spec.startNs <= t) f = c;
      if (f === undefined) return;
      f.ackNs.push(t);
      f.ackWindow.push(w);
    },
  });
  const nics = new Map<string, Nic>();
  const switches = new Map<string, Switch>();
  const out = runScenario({
    scenario,
    seed: o.seed,
    outDir: o.outDir,
    print: null,
    trace: chainTracers([probe, o.acks === true ? acks : null]) ?? undefined,
    createSwitch: (env, cfg) => {
      const sw = createSwitch(env, cfg);
      switches.set(cfg.name, sw);
      return sw;
    },
    createNic: (env, cfg) => {
      const nic = createNic(env, cfg);
      nics.set(cfg.name, nic);
      return nic;
    },
  });
  probe.finish(out.results.durationNs);
  const queues = new Map(watch.map((w) => [portKey(w), probe.port(w.sw, w.port)!.queue]));
  return {
    out,
    topo: setup.topo,
    binNs: probe.binNs,
    flows,
    queues,
    nics,
    switches,
    receiverState: (id) => nics.get(flows[id].spec.dst)!.qpInspect(flows[id].dstQpn),
    senderState: (id) => nics.get(flows[id].spec.src)!.qpInspect(flows[id].srcQpn),
  };
}

/** A scenario of scenarios/papers/rcc with --set-style overrides. */
export function rccScenario(file: string, overrides: readonly string[] = []): Scenario {
  return loadPaperScenario('rcc', file, overrides);
}

// ------------------------------------------------------------------------------ measurements

/** Payload bytes a flow received in [fromNs, toNs) (to a bin). */
export function bytesIn(p: RccProbe, f: FlowProbe, fromNs: number, toNs: number): number {
  const [a, b] = binRange(p.binNs, fromNs, toNs);
  let sum = 0;
  for (let i = a; i < b; i++) sum += f.rx.get(i);
  return sum;
}

/** Goodput (payload bit/s) of a flow over [fromNs, toNs). */
export function goodputBps(p: RccProbe, f: FlowProbe, fromNs: number, toNs: number): number {
  const [a, b] = binRange(p.binNs, fromNs, toNs);
  return b > a ? (bytesIn(p, f, fromNs, toNs) * 8e9) / ((b - a) * p.binNs) : 0;
}

/** Max and time-average queue over [fromNs, toNs) (to a bin). */
export function queueStats(
  tr: QueueTrace,
  fromNs: number,
  toNs: number,
): { maxBytes: number; meanBytes: number } {
  const [a, b] = binRange(tr.binNs, fromNs, toNs);
  let max = 0;
  let area = 0;
  for (let i = a; i < b; i++) {
    max = Math.max(max, tr.max.get(i));
    area += tr.area.get(i);
  }
  return { maxBytes: max, meanBytes: b > a ? area / ((b - a) * tr.binNs) : 0 };
}

/** Start of the first bin at or after `fromNs` in which the queue was ≤ `bytes` (NaN: none before `toNs`). */
export function firstTimeAtOrBelow(tr: QueueTrace, bytes: number, fromNs: number, toNs: number): number {
  const [a, b] = binRange(tr.binNs, fromNs, toNs);
  for (let i = a; i < b; i++) if (tr.min.get(i) <= bytes) return i * tr.binNs;
  return Number.NaN;
}

/** Start of the first bin at or after `fromNs` in which the queue exceeded `bytes` (NaN: never). */
export function firstTimeAbove(tr: QueueTrace, bytes: number, fromNs = 0): number {
  const a = Math.max(0, Math.floor(fromNs / tr.binNs));
  for (let i = a; i < tr.max.length; i++) if (tr.max.get(i) > bytes) return i * tr.binNs;
  return Number.NaN;
}

/** Time (bin start) of the queue's maximum in [fromNs, toNs). */
export function peakTime(tr: QueueTrace, fromNs: number, toNs: number): number {
  const [a, b] = binRange(tr.binNs, fromNs, toNs);
  let best = a;
  for (let i = a; i < b; i++) if (tr.max.get(i) > tr.max.get(best)) best = i;
  return best * tr.binNs;
}
