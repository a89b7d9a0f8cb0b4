/**
 * The virtual runtime: a whole network in one process on a deterministic discrete-event
 * scheduler. It wires one FirmwareEnv per node (fabric.ts), creates the NIC and switch firmware,
 * opens QPs and posts messages for the workload's flows, samples queue and rate series, and
 * collects the counters into results.json.
 */
import type { Nic, NicConfig, NicPortConfig, RateChange } from '../../../nic/api.js';
import type { Switch, SwitchConfig, SwitchPortConfig } from '../../../switch/api.js';
import type { FirmwareEnv, Logger } from '../../env/env.js';
import { createRng } from '../../env/rng.js';
import { idealFctNs } from '../../stats/fct.js';
import {
  buildResults,
  type FlowRecord,
  type HostResult,
  type PortResult,
  type Results,
  type SeriesPoints,
} from '../../stats/results.js';
import { type FlowRateLog, slowerFirst, slownessKey, TRACE_CHANGES, TRACE_FLOWS } from '../../stats/trace.js';
import type { Topology, TopologyNode } from '../../topology/model.js';
import type { HostPath } from '../../topology/path.js';
import { computeRoutes, type Routes } from '../../topology/routing.js';
import { FrameKind, type Packet } from '../../wire/packet.js';
import type { FlowSpec, Workload } from '../../workload/generate.js';
import { LONG_FLOW_DEPTH, LONG_FLOW_MESSAGE_BYTES, type PlannedQp, planRun } from '../app/plan.js';
import { FIRST_QPN, rocev2SrcPort } from '../app/qp.js';
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
  /** Warnings known before the run (copied into results). */
  warnings?: string[];
  log?: Logger;
}

interface QpState {
  key: string;
  src: TopologyNode;
  dst: TopologyNode;
  srcQpn: number;
  dstQpn: number;
  created: boolean;
  path: HostPath;
  /** Receiver-side accounting: flow and size of every message posted on the QP, in order. */
  rxMsgFlow: number[];
  rxMsgBytes: number[];
  /** Message currently being delivered and its bytes so far. */
  rxHead: number;
  rxInHead: number;
  /** Next PSN the receiver accepts (go-back-N). */
  expectedPsn: number;
  /** Flow whose messages the sender QP carries now (-1: none), for the rate-change trace. */
  txFlow: number;
  /** Last rate and window the sender QP reported (NaN before the first; window ∞ = none). */
  lastRateBps: number;
  lastWindowBytes: number;
}

/** Rate changes of one active flow: a ring of the last TRACE_CHANGES and the causes of drops. */
interface RateRing {
  ring: (RateChange | undefined)[];
  count: number;
  drops: Map<string, number>;
}

export interface FlowState {
  spec: FlowSpec;
  qp: QpState;
  cc: string;
  mtuBytes: number;
  /** NIC verb (READ is carried as WRITE: the NIC contract has no READ). */
  verb: 'send' | 'write';
  started: boolean;
  startNs: number;
  endNs: number | null;
  /** Long-lived flow: no more messages will be posted. */
  stopped: boolean;
  postedBytes: number;
  messagesPosted: number;
  messagesOutstanding: number;
  deliveredBytes: number;
  senderCompletions: number;
  receiverCompletions: number;
  /** Set while the flow may still be among the trace's slowest (src/stats/trace.ts). */
  rateRing: RateRing | null;
}

const PSN_MASK = 0xffffff;
const INITIAL_PSN = 0;

export class VirtualRun {
  readonly sched = new EngineScheduler();
  readonly fabric: Fabric;
  readonly topo: Topology;
  readonly routes: Routes;
  readonly nics = new Map<string, Nic>();
  readonly switches = new Map<string, Switch>();
  readonly flows: FlowState[];
  readonly durationNs: number;
  readonly sampleIntervalNs: number;
  readonly warnings: string[];
  private readonly nicCfg = new Map<string, Omit<NicConfig, 'observer'>>();
  /**
   * Receiving QPs per host, indexed by QPN − FIRST_QPN (QPNs are handed out densely from
   * FIRST_QPN): an array, not a Map, because it is read for every data frame into a host.
   */
  private readonly hostRx: (QpState | undefined)[][];
  private readonly hostTx: Map<number, QpState>[];
  /** Completed flows that are the slowest so far, slowest first (at most TRACE_FLOWS). */
  private readonly slowest: { key: number; id: number }[] = [];
  private readonly freeRings: RateRing[] = [];
  private readonly staticStarts: FlowSpec[];
  private nextStatic = 0;
  private readonly groupLeft: number[];
  private readonly waiters: Map<number, FlowSpec[]>;
  private completed = 0;
  private readonly active = new Set<number>();
  private started = false;
  private duplicateCompletions = 0;
  /** Message id → flow id, and how many sender completions each message got. */
  private readonly msgFlow: number[] = [];
  private readonly msgDone: number[] = [];
  private unknownCompletions = 0;
  // Series, flat [t, v, t, v, ...] per key.
  private readonly queueSeries: { node: string; port: number; sw: Switch; pts: number[]; max: number }[] = [];
  private readonly rateSeries = new Map<number, number[]>();

  constructor(private readonly inp: VirtualRunInput) {
    this.topo = inp.topo;
    this.warnings = [...(inp.warnings ?? [])];
    this.routes = inp.routes ?? computeRoutes(inp.topo);
    this.durationNs = inp.durationNs;
    this.sampleIntervalNs = Math.max(1, Math.round(inp.sampleIntervalNs ?? inp.durationNs / 2000));
    const rng = createRng(inp.seed);
    this.hostRx = this.topo.hosts.map(() => []);
    this.hostTx = this.topo.hosts.map(() => new Map());
    this.fabric = createFabric(this.sched, this.topo, {
      rng,
      loss: inp.loss,
      drop: inp.drop,
      log: inp.log,
      tap: inp.tap,
      onHostRx: (host, pkt) => {
        if (pkt.kind === FrameKind.Data) this.onDataDelivered(host, pkt);
      },
    });
    this.createFirmware();
    this.flows = this.planFlows(inp.workload);
    this.staticStarts = inp.workload.flows
      .filter((f) => f.waitGroup < 0)
      .sort((a, b) => a.startNs - b.startNs || a.id - b.id);
    this.groupLeft = [...inp.workload.groupSizes];
    this.waiters = new Map();
    for (const f of inp.workload.flows) {
      if (f.waitGroup < 0) continue;
      const w = this.waiters.get(f.waitGroup);
      if (w === undefined) this.waiters.set(f.waitGroup, [f]);
      else w.push(f);
    }
  }

  private peerMac(node: TopologyNode, port: number): number {
    const p = node.ports[port];
    return this.topo.byName.get(p.peerNode)!.ports[p.peerPort].mac;
  }

  private createFirmware(): void {
    for (const h of this.topo.hosts) {
      const p = h.ports[0];
      const cfg = this.inp.nicConfig(h, {
        name: h.name,
        ip: h.ip,
        port: { rateBps: p.rateBps, mac: p.mac, peerMac: this.peerMac(h, 0) },
      });
      this.nicCfg.set(h.name, cfg);
      const nic = this.inp.createNic(this.fabric.envs.get(h.name)!, {
        ...cfg,
        observer: {
          onMessageComplete: (c) => {
            if (c.role === 'sender') this.onSenderComplete(c.id, c.completeNs);
            else this.onReceiverComplete(c.id);
          },
          onRateChange: (c) => this.onRateChange(h.index, c),
        },
      });
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
      const sw = this.inp.createSwitch(this.fabric.envs.get(s.name)!, cfg);
      this.switches.set(s.name, sw);
      this.fabric.attach(s.name, sw);
      for (const p of s.ports) this.queueSeries.push({ node: s.name, port: p.index, sw, pts: [], max: 0 });
    });
  }

  /** The shared planner (src/runtime/app/plan.ts) numbers QPs exactly as a real run does. */
  private planFlows(w: Workload): FlowState[] {
    const plan = planRun({
      topo: this.topo,
      routes: this.routes,
      workload: w,
      nic: (h) => {
        const cfg = this.nicCfg.get(h.name)!;
        return { mtuBytes: cfg.mtuBytes, cc: cfg.cc.name };
      },
    });
    this.warnings.push(...plan.warnings);
    const qps = new Map<PlannedQp, QpState>();
    return plan.flows.map((pf): FlowState => {
      let qp = qps.get(pf.qp);
      if (qp === undefined) {
        qp = {
          key: pf.qp.key,
          src: pf.qp.src,
          dst: pf.qp.dst,
          srcQpn: pf.qp.srcQpn,
          dstQpn: pf.qp.dstQpn,
          created: false,
          path: pf.qp.path,
          rxMsgFlow: [],
          rxMsgBytes: [],
          rxHead: 0,
          rxInHead: 0,
          expectedPsn: INITIAL_PSN,
          txFlow: -1,
          lastRateBps: Number.NaN,
          lastWindowBytes: Number.NaN,
        };
        qps.set(pf.qp, qp);
      }
      return {
        spec: pf.spec,
        qp,
        cc: pf.cc,
        mtuBytes: pf.mtuBytes,
        verb: pf.verb,
        started: false,
        startNs: pf.spec.startNs,
        endNs: null,
        stopped: false,
        postedBytes: 0,
        messagesPosted: 0,
        messagesOutstanding: 0,
        deliveredBytes: 0,
        senderCompletions: 0,
        receiverCompletions: 0,
        rateRing: null,
      };
    });
  }

  // --- flow lifecycle -------------------------------------------------------------------------

  private readonly startDue = (): void => {
    const now = this.sched.now();
    const list = this.staticStarts;
    while (this.nextStatic < list.length && list[this.nextStatic].startNs <= now) {
      this.startFlow(list[this.nextStatic++]);
    }
    if (this.nextStatic < list.length) this.sched.setTimer(list[this.nextStatic].startNs, this.startDue);
  };

  private startFlow(f: FlowSpec): void {
    const st = this.flows[f.id];
    const qp = st.qp;
    st.started = true;
    st.startNs = this.sched.now();
    // Before createQp, so the QP's initial rate is part of the flow's trace.
    qp.txFlow = f.id;
    st.rateRing = this.freeRings.pop() ?? { ring: new Array(TRACE_CHANGES), count: 0, drops: new Map() };
    this.hostTx[qp.src.index].set(qp.srcQpn, qp);
    if (!qp.created) {
      qp.created = true;
      const info = {
        baseRttNs: Math.round(qp.path.baseRttNs),
        bottleneckRateBps: qp.path.bottleneckRateBps,
        hops: qp.path.hops,
        linkRatesBps: qp.path.links.map((l) => l.rateBps),
        propDelayNs: qp.path.propDelayNs,
      };
      const srcPort = rocev2SrcPort(qp.srcQpn, qp.dstQpn);
      // Receiver first, so its QP exists before the first data frame can arrive.
      this.nics.get(qp.dst.name)!.createQp({
        qpn: qp.dstQpn,
        remoteQpn: qp.srcQpn,
        remoteIp: qp.src.ip,
        srcPort,
        path: info,
        initialPsn: INITIAL_PSN,
      });
      this.nics.get(qp.src.name)!.createQp({
        qpn: qp.srcQpn,
        remoteQpn: qp.dstQpn,
        remoteIp: qp.dst.ip,
        srcPort,
        path: info,
        initialPsn: INITIAL_PSN,
      });
      const rx = this.hostRx[qp.dst.index];
      while (rx.length <= qp.dstQpn - FIRST_QPN) rx.push(undefined);
      rx[qp.dstQpn - FIRST_QPN] = qp;
    }
    this.active.add(f.id);
    if (Number.isFinite(f.sizeBytes)) {
      const chunk = f.messageBytes ?? f.sizeBytes;
      for (let off = 0; off < f.sizeBytes; off += chunk)
        this.postMessage(st, Math.min(chunk, f.sizeBytes - off));
    } else {
      for (let k = 0; k < LONG_FLOW_DEPTH; k++)
        this.postMessage(st, f.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
      if (f.stopNs !== null) {
        this.sched.setTimer(f.stopNs, () => {
          st.stopped = true;
        });
      }
    }
  }

  private postMessage(st: FlowState, bytes: number): void {
    const qp = st.qp;
    const id = this.msgFlow.length;
    this.msgFlow.push(st.spec.id);
    this.msgDone.push(0);
    qp.rxMsgFlow.push(st.spec.id);
    qp.rxMsgBytes.push(bytes);
    st.postedBytes += bytes;
    st.messagesPosted++;
    st.messagesOutstanding++;
    const msg = { qpn: qp.dstQpn, id, bytes, verb: st.verb };
    // Announced to the receiver first, so its completion carries the message id.
    this.nics.get(qp.dst.name)!.expect(msg);
    msg.qpn = qp.srcQpn;
    this.nics.get(qp.src.name)!.post(msg);
  }

  private onSenderComplete(msgId: number, completeNs: number): void {
    const flowId = this.msgFlow[msgId];
    if (flowId === undefined) {
      this.unknownCompletions++;
      return;
    }
    const st = this.flows[flowId];
    st.senderCompletions++;
    if (this.msgDone[msgId]++ > 0) {
      this.duplicateCompletions++;
      return;
    }
    st.messagesOutstanding--;
    const longLived = !Number.isFinite(st.spec.sizeBytes);
    if (longLived && !st.stopped) {
      const stop = st.spec.stopNs;
      if (stop === null || completeNs < stop) {
        this.postMessage(st, st.spec.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
        return;
      }
      st.stopped = true;
    }
    if (st.messagesOutstanding > 0) return;
    st.endNs = completeNs;
    this.active.delete(flowId);
    this.completed++;
    if (st.qp.txFlow === flowId) st.qp.txFlow = -1;
    this.rankCompleted(st);
    for (const g of st.spec.groups) {
      if (--this.groupLeft[g] === 0) {
        for (const f of this.waiters.get(g) ?? []) {
          const at = Math.max(f.startNs, this.sched.now() + f.waitGapNs);
          if (at <= this.sched.now()) this.startFlow(f);
          else this.sched.setTimer(at, () => this.startFlow(f));
        }
      }
    }
    if (this.completed === this.flows.length) this.sched.stop();
  }

  /** Attribute a sender QP's rate or window change to the flow it carries. */
  private onRateChange(host: number, c: RateChange): void {
    const qp = this.hostTx[host].get(c.qpn);
    if (qp === undefined) return;
    const w = c.windowBytes ?? Number.POSITIVE_INFINITY;
    const dropped = c.rateBps < qp.lastRateBps || w < qp.lastWindowBytes;
    qp.lastRateBps = c.rateBps;
    qp.lastWindowBytes = w;
    if (qp.txFlow < 0) return;
    const r = this.flows[qp.txFlow].rateRing;
    if (r === null) return;
    r.ring[r.count++ % TRACE_CHANGES] = c;
    if (dropped) r.drops.set(c.why, (r.drops.get(c.why) ?? 0) + 1);
  }

  /**
   * Keep a completed flow's rate ring only while it is among the TRACE_FLOWS slowest completed
   * flows, so memory stays bounded by the active flows however long the run.
   */
  private rankCompleted(st: FlowState): void {
    if (st.rateRing === null || st.endNs === null) return;
    const ideal = this.idealFct(st, this.reportedSize(st));
    const entry = { key: slownessKey(st.startNs, st.endNs, st.endNs, ideal), id: st.spec.id };
    const list = this.slowest;
    let i = list.length;
    while (i > 0 && slowerFirst(entry, list[i - 1]) < 0) i--;
    if (i >= TRACE_FLOWS) {
      this.releaseRing(st);
      return;
    }
    list.splice(i, 0, entry);
    if (list.length > TRACE_FLOWS) this.releaseRing(this.flows[list.pop()!.id]);
  }

  private releaseRing(st: FlowState): void {
    const r = st.rateRing;
    if (r === null) return;
    st.rateRing = null;
    r.ring.fill(undefined);
    r.count = 0;
    r.drops.clear();
    this.freeRings.push(r);
  }

  private onReceiverComplete(msgId: number): void {
    const flowId = this.msgFlow[msgId];
    if (flowId === undefined) this.unknownCompletions++;
    else this.flows[flowId].receiverCompletions++;
  }

  /** In-order payload bytes per flow, seen on the wire into the receiving host (go-back-N rule). */
  private onDataDelivered(host: TopologyNode, pkt: Packet): void {
    const rx = this.hostRx[host.index];
    const i = pkt.destQp - FIRST_QPN;
    const qp = i >= 0 && i < rx.length ? rx[i] : undefined;
    if (qp === undefined || pkt.psn !== qp.expectedPsn) return;
    qp.expectedPsn = (pkt.psn + 1) & PSN_MASK;
    let bytes = pkt.payloadLen;
    while (bytes > 0 && qp.rxHead < qp.rxMsgFlow.length) {
      const size = qp.rxMsgBytes[qp.rxHead];
      const take = Math.min(bytes, size - qp.rxInHead);
      this.flows[qp.rxMsgFlow[qp.rxHead]].deliveredBytes += take;
      qp.rxInHead += take;
      bytes -= take;
      if (qp.rxInHead >= size) {
        qp.rxHead++;
        qp.rxInHead = 0;
      }
    }
  }

  // --- sampling -------------------------------------------------------------------------------

  private readonly sample = (): void => {
    const t = this.sched.now();
    for (const q of this.queueSeries) {
      const b = q.sw.queueBytes(q.port);
      q.pts.push(t, b);
      if (b > q.max) q.max = b;
    }
    for (const id of this.active) {
      const st = this.flows[id];
      const nic = this.nics.get(st.spec.src)!;
      let pts = this.rateSeries.get(id);
      if (pts === undefined) {
        pts = [];
        this.rateSeries.set(id, pts);
      }
      pts.push(t, Math.round(nic.qpRateBps(st.qp.srcQpn)));
    }
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
    return this.completed === this.flows.length;
  }

  get completedFlows(): number {
    return this.completed;
  }

  /** Arm flow starts and sampling (idempotent; runUntil calls it). */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.flows.length === 0) return;
    if (this.staticStarts.length > 0) this.sched.setTimer(this.staticStarts[0].startNs, this.startDue);
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

  /** A long-lived flow reports what it moved: everything posted once it drained, else what arrived. */
  private reportedSize(st: FlowState): number {
    if (Number.isFinite(st.spec.sizeBytes)) return st.spec.sizeBytes;
    return st.endNs !== null ? st.postedBytes : st.deliveredBytes;
  }

  private idealFct(st: FlowState, sizeBytes: number): number {
    return idealFctNs({
      sizeBytes: Math.max(1, sizeBytes),
      mtuBytes: st.mtuBytes,
      verb: st.verb,
      hpccBaseRttNs: st.qp.path.hpccBaseRttNs,
      bottleneckRateBps: st.qp.path.bottleneckRateBps,
    });
  }

  results(): Results {
    const endNs = this.sched.now();
    const warnings = [...this.warnings];
    const ports: PortResult[] = [];
    const hosts: HostResult[] = [];
    const switchPorts = new Set<string>();
    for (const h of this.topo.hosts) {
      const c = this.nics.get(h.name)!.counters();
      const link = this.fabric.links.get(h.name)![0];
      ports.push({
        node: h.name,
        port: 0,
        txBytes: c.txBytes,
        maxQueueBytes: 0,
        meanQueueBytes: 0,
        ecnMarked: 0,
        pfcPauseTx: 0,
        pfcPauseRx: c.pfcPauseRx,
        pausedNs: c.pausedNs,
        drops: link.lost,
        cnmTx: 0,
      });
      hosts.push({
        node: h.name,
        cnpTx: c.cnpTx,
        cnpRx: c.cnpRx,
        nackTx: c.nackTx,
        retransmits: c.retransmits,
        rxBytes: c.rxBytes,
      });
      if (c.malformed > 0) warnings.push(`${h.name}: ${c.malformed} malformed frames`);
    }
    for (const s of this.topo.switches) {
      const sw = this.switches.get(s.name)!;
      const links = this.fabric.links.get(s.name)!;
      for (const pc of sw.portCounters()) {
        switchPorts.add(`${s.name}:${pc.port}`);
        ports.push({
          node: s.name,
          port: pc.port,
          txBytes: pc.txBytes,
          maxQueueBytes: pc.maxQueueBytes,
          meanQueueBytes: endNs > 0 ? Math.round(pc.queueByteNs / endNs) : 0,
          ecnMarked: pc.ecnMarked,
          pfcPauseTx: pc.pfcPauseTx,
          pfcPauseRx: pc.pfcPauseRx,
          pausedNs: pc.pausedNs,
          drops: pc.drops + (links[pc.port]?.lost ?? 0),
          cnmTx: pc.cnmTx,
        });
      }
      const sc = sw.switchCounters?.();
      if (sc !== undefined) {
        if (sc.losslessDrops > 0)
          warnings.push(`${s.name}: ${sc.losslessDrops} drops in a PFC-enabled class`);
        if (sc.malformed > 0) warnings.push(`${s.name}: ${sc.malformed} malformed frames`);
        if (sc.unroutable > 0) warnings.push(`${s.name}: ${sc.unroutable} unroutable frames`);
        if (sc.ttlExpired > 0) warnings.push(`${s.name}: ${sc.ttlExpired} frames with expired TTL`);
      }
    }
    let unfinished = 0;
    let longLived = 0;
    for (const st of this.flows) {
      if (st.endNs !== null) continue;
      if (Number.isFinite(st.spec.sizeBytes)) unfinished++;
      else if (st.spec.stopNs === null) longLived++;
      else unfinished++;
    }
    if (unfinished > 0)
      warnings.push(`${unfinished} of ${this.flows.length} flows did not complete by ${endNs} ns`);
    if (longLived > 0) warnings.push(`${longLived} long-lived flows ran until the end of the run`);
    if (this.duplicateCompletions > 0)
      warnings.push(`${this.duplicateCompletions} duplicate message completions reported by NICs`);
    if (this.unknownCompletions > 0)
      warnings.push(`${this.unknownCompletions} completions of unknown messages`);
    if (this.fabric.badSends > 0) warnings.push(`${this.fabric.badSends} frames sent on nonexistent ports`);

    const queue: Record<string, SeriesPoints> = {};
    for (const q of this.queueSeries) {
      if (q.max > 0) queue[`${q.node}:${q.port}`] = pairs(q.pts);
    }
    const rate: Record<string, SeriesPoints> = {};
    for (const [id, pts] of [...this.rateSeries].sort((a, b) => a[0] - b[0])) rate[String(id)] = pairs(pts);

    const ccByHost: Record<string, string> = {};
    for (const h of this.topo.hosts) ccByHost[h.name] = this.nicCfg.get(h.name)!.cc.name;
    const flows: FlowRecord[] = this.flows.map((st) => {
      const sizeBytes = this.reportedSize(st);
      const rateLog = rateLogOf(st.rateRing);
      return {
        id: st.spec.id,
        src: st.spec.src,
        dst: st.spec.dst,
        cc: st.cc,
        sizeBytes,
        startNs: st.startNs,
        endNs: st.endNs,
        idealFctNs: this.idealFct(st, sizeBytes),
        deliveredBytes: st.deliveredBytes,
        started: st.started,
        ...(rateLog !== undefined ? { rateLog } : {}),
      };
    });
    return buildResults({
      scenario: this.inp.scenario,
      runtime: 'virtual',
      seed: this.inp.seed,
      timeScale: this.inp.timeScale ?? 1,
      durationNs: endNs,
      ccByHost,
      flows,
      ports,
      hosts,
      series: { queue, rate },
      warnings,
      isSwitchPort: (p) => switchPorts.has(`${p.node}:${p.port}`),
    });
  }
}

function rateLogOf(r: RateRing | null): FlowRateLog | undefined {
  if (r === null) return undefined;
  const n = Math.min(r.count, TRACE_CHANGES);
  const changes: FlowRateLog['changes'] = [];
  for (let k = r.count - n; k < r.count; k++) {
    const c = r.ring[k % TRACE_CHANGES]!;
    changes.push([c.timeNs, c.rateBps, c.windowBytes, c.why]);
  }
  return { changeCount: r.count, drops: Object.fromEntries(r.drops), changes };
}

function pairs(flat: number[]): SeriesPoints {
  const out: SeriesPoints = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
  return out;
}
