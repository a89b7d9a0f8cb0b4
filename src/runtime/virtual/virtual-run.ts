/**
 * The virtual runtime: a whole network in one process on a deterministic discrete-event
 * scheduler. It is the scheduler, the fabric (one FirmwareEnv per node, links between them) and
 * the nodes: NIC and switch firmware, and on every host the same application as a real host
 * runs (src/runtime/app/host-app.ts), which starts its own flows (static starts and gates). The
 * runtime itself only samples switch queues and the hosts' flow rates, stops once every flow
 * completed, and at the end merges one report per node into results.json with the same function as
 * the real launchers (src/runtime/app/node-report.ts).
 */
import type { Nic, NicConfig, NicPortConfig } from '../../../nic/api.js';
import type { Switch, SwitchConfig, SwitchPortConfig } from '../../../switch/api.js';
import type { ScenarioProbes } from '../../config/scenario.js';
import type { FirmwareEnv, Logger } from '../../env/env.js';
import { createRng } from '../../env/rng.js';
import { chainNicTrace, chainSwitchTrace, chainTracers, Probe, type Tracer } from '../../probe/probe.js';
import type { FlatSeries, Results } from '../../stats/results.js';
import type { Topology, TopologyNode } from '../../topology/model.js';
import { computeRoutes, type Routes } from '../../topology/routing.js';
import type { FlowSpec, Workload } from '../../workload/generate.js';
import { HostApp, type TxFlow } from '../app/host-app.js';
import { firmwareReport, mergeReports, type NodeReport, type NodeRxReport } from '../app/node-report.js';
import { type PlannedQp, plannedNicOf, planRun, type RunPlan } from '../app/plan.js';
import { EngineScheduler } from './engine-scheduler.js';
import { createFabric, type DropFilter, type Fabric, type LinkLoss, type LinkTap } from './fabric.js';

export type NicFactory = (env: FirmwareEnv, cfg: NicConfig) => Nic;
export type SwitchFactory = (env: FirmwareEnv, cfg: SwitchConfig) => Switch;

/** What the runtime fills in itself; the caller's config functions add the rest. */
export interface NicBase {
  name: string;
  ip: number;
  port: NicPortConfig;
}

export interface SwitchBase {
  name: string;
  id: number;
  ports: SwitchPortConfig[];
  routes: SwitchConfig['routes'];
}

export interface VirtualRunInput {
  scenario: string;
  seed: number;
  timeScale?: number;
  /** Hard stop, emulated ns. The run ends earlier when every flow has completed. */
  durationNs: number;
  /** Series sampling period, ns (default durationNs / 2000, at least 1). */
  sampleIntervalNs?: number;
  topo: Topology;
  routes?: Routes;
  workload: Workload;
  nicConfig(node: TopologyNode, base: NicBase): Omit<NicConfig, 'observer'>;
  switchConfig(node: TopologyNode, base: SwitchBase): SwitchConfig;
  createNic: NicFactory;
  createSwitch: SwitchFactory;
  /** Random frame loss on links (tests and loss experiments). */
  loss?: LinkLoss;
  /** Deterministic frame loss (tests). */
  drop?: DropFilter;
  /** Extra observer of frames on links (pcap). */
  tap?: LinkTap;
  /**
   * Hosts' applications reach each other directly (default). false: each opens its QPs and
   * derives its incoming messages as a real node must (host-app.ts), to test that mode.
   */
  directPeers?: boolean;
  /** Warnings known before the run (copied into results). */
  warnings?: string[];
  log?: Logger;
  /** Observers of the firmware (src/probe): hook tables installed on every node they name. */
  trace?: Tracer | null;
  /** The scenario's `probes`: binned into results.json's `probes` section. */
  probes?: ScenarioProbes | null;
  /**
   * Reuse every frame once the receiving host's NIC has handled it (src/wire/packet-factory.ts:
   * far less garbage on large networks). Only for the project's own NIC and switch firmware, which
   * keep no reference to a received frame; the run turns it off itself when a tracer, probe,
   * tap or drop filter could keep one. Default off.
   */
  recyclePackets?: boolean;
  /**
   * Run nodes window by window (engine-scheduler.ts runWindowed; docs/development.md "The
   * virtual engine's windows"): the default where it applies (windowsApply). false: every event in
   * time order (comparisons and tests; results are the same).
   */
  windows?: boolean;
}

/** The sampled queue of one switch port: [t, bytes, …] and its largest value. */
interface QueueSeries {
  node: string;
  port: number;
  sw: Switch;
  pts: FlatSeries;
  max: number;
}

/** One flow as seen from both ends (tests and probes read these during a run). */
export class VirtualFlow {
  constructor(
    private readonly tx: TxFlow,
    private readonly rx: Readonly<NodeRxReport>,
  ) {}
  get spec(): FlowSpec {
    return this.tx.plan.spec;
  }
  get qp(): PlannedQp {
    return this.tx.plan.qp;
  }
  get started(): boolean {
    return this.tx.started;
  }
  get startNs(): number {
    return this.tx.startNs;
  }
  get endNs(): number | null {
    return this.tx.endNs;
  }
  get stopped(): boolean {
    return this.tx.stopped;
  }
  get postedBytes(): number {
    return this.tx.postedBytes;
  }
  get messagesPosted(): number {
    return this.tx.messagesPosted;
  }
  get senderCompletions(): number {
    return this.tx.senderCompletions;
  }
  get deliveredBytes(): number {
    return this.rx.deliveredBytes;
  }
  get receiverCompletions(): number {
    return this.rx.receiverCompletions;
  }
}

export class VirtualRun {
  readonly sched = new EngineScheduler();
  readonly fabric: Fabric;
  readonly topo: Topology;
  readonly routes: Routes;
  readonly plan: RunPlan;
  readonly nics = new Map<string, Nic>();
  readonly switches = new Map<string, Switch>();
  /** The application of every host, by host index. */
  readonly apps: HostApp[] = [];
  readonly flows: VirtualFlow[];
  readonly durationNs: number;
  readonly sampleIntervalNs: number;
  readonly warnings: string[];
  private readonly nicCfg = new Map<string, Omit<NicConfig, 'observer'>>();
  private completed = 0;
  /**
   * Per flow, 1 while it cannot complete within the least link delay from now (endIsFar): not yet
   * started (its first frame and the acknowledgement of it each cross a link), finite and not yet
   * received whole (what completes it at the sender is an acknowledgement the receiver sends once
   * it has every byte), or long-lived without a stop (never completes). `endBlockers` counts them.
   */
  private readonly endBlocking: Uint8Array;
  private endBlockers: number;
  /** Flows that completed while still counted in endBlocking: the reasoning above broke (tests). */
  endBlockingBroken = 0;
  private started = false;
  // Series, flat [t, v, t, v, ...] per switch port.
  private readonly queueSeries: QueueSeries[] = [];
  /** The scenario's probe (null when it asks for none). */
  readonly probe: Probe | null;
  private readonly tracer: Tracer | null;
  /** A switch has trace hooks (they see every frame it forwards). */
  private switchTraced = false;

  constructor(private readonly inp: VirtualRunInput) {
    this.topo = inp.topo;
    this.warnings = [...(inp.warnings ?? [])];
    this.routes = inp.routes ?? computeRoutes(inp.topo);
    this.durationNs = inp.durationNs;
    this.sampleIntervalNs = Math.max(1, Math.round(inp.sampleIntervalNs ?? inp.durationNs / 2000));
    const rng = createRng(inp.seed);
    this.sched.windowed = windowsApply(inp);
    this.fabric = createFabric(this.sched, this.topo, {
      rng,
      loss: inp.loss,
      drop: inp.drop,
      log: inp.log,
      tap: inp.tap,
    });
    for (const h of this.topo.hosts) {
      const p = h.ports[0];
      this.nicCfg.set(
        h.name,
        inp.nicConfig(h, {
          name: h.name,
          ip: h.ip,
          port: { rateBps: p.rateBps, mac: p.mac, peerMac: this.peerMac(h, 0) },
        }),
      );
    }
    this.plan = planRun({
      topo: this.topo,
      routes: this.routes,
      workload: inp.workload,
      nic: (h) => {
        const cfg = this.nicCfg.get(h.name)!;
        return plannedNicOf(cfg, cfg.cc.name);
      },
    });
    this.warnings.push(...this.plan.warnings);
    this.probe = inp.probes == null ? null : new Probe(inp.probes, this.plan);
    this.tracer = chainTracers([inp.trace, this.probe]);
    this.endBlocking = new Uint8Array(this.plan.flows.length).fill(1);
    this.endBlockers = this.plan.flows.length;
    this.sched.endIsFar = () => this.endBlockers > 0;
    this.createFirmware();
    this.flows = this.plan.flows.map(
      (f) =>
        new VirtualFlow(
          this.apps[f.qp.src.index].txFlows.get(f.spec.id)!,
          this.apps[f.qp.dst.index].rxOf(f.spec.id)!,
        ),
    );
    if (this.mayRecycle()) {
      for (const h of this.topo.hosts) {
        const p = h.ports[0];
        this.fabric.links.get(p.peerNode)![p.peerPort].recycle = true;
      }
    }
  }

  /** Whether nothing but the firmware can see a frame (VirtualRunInput.recyclePackets). */
  private mayRecycle(): boolean {
    const inp = this.inp;
    if (inp.recyclePackets !== true || this.tracer !== null) return false;
    if (inp.tap !== undefined || inp.drop !== undefined) return false;
    for (const cfg of this.nicCfg.values()) if ((cfg.trace ?? null) !== null) return false;
    return !this.switchTraced;
  }

  private peerMac(node: TopologyNode, port: number): number {
    const p = node.ports[port];
    return this.topo.byName.get(p.peerNode)!.ports[p.peerPort].mac;
  }

  private createFirmware(): void {
    // Every application reaches the others directly (host-app.ts: what virtual time allows).
    const peers =
      this.inp.directPeers === false
        ? undefined
        : (host: string) => this.apps[this.topo.byName.get(host)!.index];
    for (const h of this.topo.hosts) {
      const env = this.fabric.envs.get(h.name)!;
      const events = {
        flowDone: (flowId: number) => this.onFlowDone(flowId),
        flowStarted: (flowId: number) => this.onFlowStarted(flowId),
        flowReceived: (flowId: number) => this.unblockEnd(flowId),
      };
      const app = new HostApp(h, this.plan, env, events, { peers });
      this.apps[h.index] = app;
      const cfg = { ...this.nicCfg.get(h.name)!, observer: app.observer };
      const trace = this.tracer?.nic(h.name) ?? null;
      if (trace !== null) cfg.trace = chainNicTrace(cfg.trace ?? null, trace);
      const nic = this.inp.createNic(env, cfg);
      this.probe?.attach(h.name, nic);
      app.attach(nic);
      this.nics.set(h.name, nic);
      this.fabric.attach(h.name, nic);
    }
    this.topo.switches.forEach((s) => {
      const cfg = this.inp.switchConfig(s, {
        name: s.name,
        id: s.index,
        ports: s.ports.map((p) => ({ rateBps: p.rateBps, mac: p.mac, peerMac: this.peerMac(s, p.index) })),
        routes: this.routes.tables.get(s.name)!,
      });
      const trace = this.tracer?.switch(s.name) ?? null;
      if (trace !== null) cfg.trace = chainSwitchTrace(cfg.trace ?? null, trace);
      if ((cfg.trace ?? null) !== null) this.switchTraced = true;
      const sw = this.inp.createSwitch(this.fabric.envs.get(s.name)!, cfg);
      this.switches.set(s.name, sw);
      this.fabric.attach(s.name, sw);
      for (const p of s.ports) this.queueSeries.push({ node: s.name, port: p.index, sw, pts: [], max: 0 });
    });
  }

  // --- flow lifecycle -------------------------------------------------------------------------

  /** A flow started: one that may now complete at any time no longer keeps the end far. */
  private onFlowStarted(flowId: number): void {
    const f = this.plan.flows[flowId];
    const sizes = f.messageBytes;
    if (sizes === null ? f.spec.stopNs !== null : sizes.length === 0) this.unblockEnd(flowId);
  }

  private unblockEnd(flowId: number): void {
    if (this.endBlocking[flowId] === 0) return;
    this.endBlocking[flowId] = 0;
    this.endBlockers--;
  }

  /** A flow completed: stop once every flow completed. */
  private onFlowDone(flowId: number): void {
    if (this.endBlocking[flowId] !== 0) {
      this.endBlockingBroken++;
      this.unblockEnd(flowId);
    }
    this.completed++;
    // Every node ends in its state after the whole instant, as lockstep nodes stop.
    if (this.completed === this.plan.flows.length) this.sched.finishInstant();
  }

  // --- sampling -------------------------------------------------------------------------------

  private readonly sample = (): void => {
    const t = this.sched.now();
    for (const q of this.queueSeries) {
      const b = q.sw.queueBytes(q.port);
      q.pts.push(t, b);
      if (b > q.max) q.max = b;
    }
    for (const app of this.apps) app.sampleRates(t);
    const next = t + this.sampleIntervalNs;
    if (next <= this.durationNs) this.sched.setTimer(next, this.sample);
  };

  // --- driving --------------------------------------------------------------------------------

  /** Frames put on any link so far (one per packet per hop): the engine's unit of work. */
  packetHops(): number {
    let n = 0;
    for (const links of this.fabric.links.values()) for (const l of links) n += l.txFrames;
    return n;
  }

  /** True when every flow has completed. */
  get done(): boolean {
    return this.completed === this.plan.flows.length;
  }

  get completedFlows(): number {
    return this.completed;
  }

  /** Arm flow starts and sampling (idempotent; runUntil calls it). */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.plan.flows.length === 0) return;
    // Each host arms its own static starts, as a real node does: a start's place among the
    // host's other timers of its instant then follows from when that host set it, not from
    // the other hosts' starts (docs/development.md, "The node runtime").
    for (const app of this.apps) app.armStarts();
    this.sched.setTimer(0, this.sample);
  }

  /** Advance emulated time to `tNs` (capped at the duration), or until every flow completed. */
  runUntil(tNs: number): void {
    this.start();
    if (this.done) return;
    this.sched.run(Math.min(tNs, this.durationNs));
  }

  /** Run to the end (all flows complete or the duration) and assemble results. */
  run(): Results {
    this.runUntil(this.durationNs);
    return this.results();
  }

  /**
   * One report per node, merged by the same function as the real launchers' (node-report.ts).
   * The series are copies: the run may go on.
   */
  results(): Results {
    return this.resultsWith((pts) => pts.slice());
  }

  /**
   * The results of a run that ends here: its series arrays go into the results uncopied (on the
   * 320-host fat tree 2.3 M points, 37 MB), so the run must not go on (runVirtual drops it).
   */
  finalResults(): Results {
    return this.resultsWith((pts) => pts);
  }

  private resultsWith(take: (pts: FlatSeries) => FlatSeries): Results {
    const endNs = this.sched.now();
    const reports = new Map<string, NodeReport>();
    // Each switch's series in one pass (a scan of all per node was 240 k steps on the fat tree).
    const queuesOf = new Map<string, QueueSeries[]>();
    for (const q of this.queueSeries) {
      const list = queuesOf.get(q.node);
      if (list === undefined) queuesOf.set(q.node, [q]);
      else list.push(q);
    }
    for (const n of this.topo.nodes) {
      const r = this.nodeReport(n, endNs);
      for (const q of queuesOf.get(n.name) ?? [])
        if (q.max > 0) r.series.queue[`${q.node}:${q.port}`] = take(q.pts);
      const app = n.kind === 'host' ? this.apps[n.index] : undefined;
      for (const [id, pts] of app?.flatRateSeries() ?? []) r.series.rate[String(id)] = take(pts);
      reports.set(n.name, r);
    }
    const ccByHost: Record<string, string> = {};
    for (const h of this.topo.hosts) ccByHost[h.name] = this.nicCfg.get(h.name)!.cc.name;
    return mergeReports({
      scenario: this.inp.scenario,
      runtime: 'virtual',
      seed: this.inp.seed,
      timeScale: this.inp.timeScale ?? 1,
      endNs,
      plan: this.plan,
      ccByHost,
      reports,
      warnings: this.warnings,
      runtimeWarnings:
        this.fabric.badSends > 0 ? [`${this.fabric.badSends} frames sent on nonexistent ports`] : [],
    });
  }

  /** A node's report with empty series (resultsWith fills them). */
  private nodeReport(n: TopologyNode, endNs: number): NodeReport {
    const links = this.fabric.links.get(n.name)!;
    const fw = firmwareReport(
      n,
      { nic: this.nics.get(n.name) ?? null, sw: this.switches.get(n.name) ?? null },
      endNs,
      (port) => links[port]?.lost ?? 0,
    );
    const app = n.kind === 'host' ? this.apps[n.index] : undefined;
    return {
      node: n.name,
      kind: n.kind,
      endNs,
      ...fw,
      flows: app?.flowReports() ?? [],
      rx: app?.rxReports() ?? [],
      duplicateDeliveries: app?.duplicateDeliveries ?? 0,
      duplicateCompletions: app?.duplicateCompletions ?? 0,
      unknownCompletions: app?.unknownCompletions ?? 0,
      series: { queue: {}, rate: {} },
      warnings: [],
      ...(this.probe === null ? {} : { probe: this.probe.report(endNs, n.name) }),
    };
  }
}

/**
 * Whether the run's nodes run window by window (engine-scheduler.ts runWindowed): not when
 * something outside the firmware watches frames or nodes in the order events happen (a tracer,
 * tap or drop filter), nor on a link without delay (no window then). `windows: false` or the
 * environment's ROCELAB_ENGINE=ordered turn them off (comparisons).
 */
function windowsApply(inp: VirtualRunInput): boolean {
  if (inp.windows === false || process.env.ROCELAB_ENGINE === 'ordered') return false;
  if ((inp.trace ?? null) !== null || inp.tap !== undefined || inp.drop !== undefined) return false;
  for (const n of inp.topo.nodes) for (const p of n.ports) if (!(p.delayNs >= 1)) return false;
  return true;
}
