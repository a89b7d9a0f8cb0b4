/**
 * The application on one host, the same in both runtimes: it opens the QPs of the flows the host
 * takes part in, posts the messages of the flows it sends at their emulated start times (through
 * the host's FirmwareEnv timers), keeps long-lived flows fed, accounts sender and receiver
 * completions and the in-order payload each flow delivered, samples the rates of its active
 * flows, and keeps the rate-change trace of its slowest flows (src/stats/trace.ts). At the end
 * it reports per flow (node-report.ts); the runtime merges the hosts' reports.
 *
 * The runtimes differ only in what a host can know of the others:
 * - virtual time runs every host in one process, so a sending application reaches the receiving
 *   one directly (`peers`) and the receiver learns each message (size, id) as it is posted, the
 *   way an application protocol would tell it for free;
 * - a real host hears nothing from its peers but frames, so without `peers` it derives the
 *   messages it will receive from the plan (finite flows: statically; long-lived ones: as their
 *   bytes arrive).
 * In both, a host opens every QP it terminates when it attaches. Opening one later, from the
 * sender's flow start, would act on the receiver's NIC inside another node's event (a QP's
 * creation kicks the NIC's transmitter), which no real network can do and which made virtual
 * time differ from lockstep (docs/development.md, "The node runtime").
 * Gates (flows that wait for events of their own host, src/workload/gate.ts: alltoall's
 * iterations, collectives' steps) are the host's own business too (./gates.ts): it opens them on
 * its own timers when its sends are acknowledged and its receives complete (the NIC's receive
 * completion, in both runtimes), so no runtime relays anything between hosts. The flows of one
 * QP are posted in the plan's order (`PlannedQp.flowIds`): a gated flow whose gate opened before
 * an earlier flow of its QP started waits for it, so a receiver can derive which message is whose.
 *
 * Message ids are static, flowId · MSG_ID_SPACE + ordinal, so a receiver can announce
 * (`expect`) the ids of messages it derived from the plan without hearing from the sender. Ids
 * never reach the wire or the results.
 */
import type { MessageCompletion, Nic, NicObserver, RateChange } from '../../../nic/api.js';
import type { FirmwareEnv } from '../../env/env.js';
import type { FlatSeries } from '../../stats/results.js';
import { type FlowRateLog, slowerFirst, slownessKey, TRACE_CHANGES, TRACE_FLOWS } from '../../stats/trace.js';
import type { TopologyNode } from '../../topology/model.js';
import { HostGates } from './gates.js';
import {
  type NodeFlowReport,
  type NodeRxReport,
  plannedIdealFctNs,
  reportedSizeBytes,
} from './node-report.js';
import {
  LONG_FLOW_DEPTH,
  LONG_FLOW_MESSAGE_BYTES,
  type PlannedFlow,
  type PlannedQp,
  type RunPlan,
} from './plan.js';
import { FIRST_QPN } from './qp.js';

/** Ordinals per flow in a message id: 2^28 messages per flow, 2^25 flows within 2^53. */
export const MSG_ID_SPACE = 2 ** 28;
const INITIAL_PSN = 0;

/** Rate changes of one active flow: a ring of the last TRACE_CHANGES and the causes of drops. */
interface RateRing {
  ring: (RateChange | undefined)[];
  count: number;
  drops: Map<string, number>;
}

/** A flow this host sends. */
export interface TxFlow {
  plan: PlannedFlow;
  started: boolean;
  startNs: number;
  endNs: number | null;
  /** Long-lived flow: no more messages will be posted. */
  stopped: boolean;
  postedBytes: number;
  messagesPosted: number;
  messagesOutstanding: number;
  senderCompletions: number;
  nextOrdinal: number;
  /** Ordinals of the messages that completed at the sender. */
  completedOrdinals: OrdinalSet;
  /** Set while the flow may still be among this host's slowest (src/stats/trace.ts). */
  rateRing: RateRing | null;
}

/** A QP this host sends on, for attributing its rate changes to the flow it carries. */
interface TxQp {
  /** Flow whose messages the QP carries now (-1: none). */
  txFlow: number;
  /** Last rate and window reported (NaN before the first; window ∞ = none). */
  lastRateBps: number;
  lastWindowBytes: number;
}

/** A QP this host receives on. */
interface RxQp {
  qp: PlannedQp;
  /** Flow and size of every message expected on the QP, in posting order. */
  msgFlow: number[];
  msgBytes: number[];
  /** Message being delivered and its bytes so far. */
  head: number;
  inHead: number;
  /** Every message was announced with its id (expect), so completions carry flow ids. */
  announced: boolean;
  /** Messages are learnt from the sending application (virtual time), not derived. */
  fromPeer: boolean;
  /** Receiver completions seen, by message ordinal on the QP (flow ordinal when announced: rxDone). */
  completedOrdinals: OrdinalSet;
  /**
   * The delivery report of message `repHead` (-1: none looked up yet): every data frame of a
   * message adds to the same report, so it is looked up once per message, not once per frame.
   */
  repHead: number;
  rep: NodeRxReport | undefined;
}

export interface HostAppEvents {
  /** The flow's last message completed at the sender. */
  flowDone(flowId: number, endNs: number, fctNs: number): void;
  /** The sender started the flow (virtual time: when the run may end, VirtualRun). */
  flowStarted?(flowId: number): void;
  /** The receiver completed every message of a finite flow (as flowStarted). */
  flowReceived?(flowId: number): void;
}

export interface HostAppOptions {
  /** The application of another host, when it can be reached directly (virtual time). */
  peers?: (host: string) => HostApp;
}

export class HostApp {
  readonly txFlows = new Map<number, TxFlow>();
  /** Sent flows that completed. */
  private completedTx = 0;
  duplicateDeliveries = 0;
  duplicateCompletions = 0;
  unknownCompletions = 0;
  /** Pass to the NIC as its observer. */
  readonly observer: NicObserver;
  private nic!: Nic;
  private readonly peers: ((host: string) => HostApp) | null;
  /** Receiving QPs indexed by QPN − FIRST_QPN: read for every data frame into the host. */
  private readonly rxQps: (RxQp | undefined)[] = [];
  private readonly rxByFlow = new Map<number, NodeRxReport>();
  private readonly txQps = new Map<number, TxQp>();
  private readonly createdTx = new Set<string>();
  private readonly starts: PlannedFlow[];
  private nextStart = 0;
  private readonly gates: HostGates;
  /** Per QP (key): index in its `flowIds` of the next flow to post. */
  private readonly qpCursor = new Map<string, number>();
  /** Flows whose start came before an earlier flow of their QP started. */
  private readonly held = new Set<number>();
  /** Distinct receiver completions of finite flows this host has not yet received whole. */
  private readonly receivedMessages = new Map<number, number>();
  /** Receiver completions seen per flow, by ordinal (announced QPs). */
  private readonly rxDone = new Map<number, OrdinalSet>();
  private readonly active = new Set<number>();
  /** Completed flows that are this host's slowest so far, slowest first (at most TRACE_FLOWS). */
  private readonly slowest: { key: number; id: number }[] = [];
  private readonly freeRings: RateRing[] = [];
  /** Rate series of the flows this host sends, flat [t, v, t, v, …]. */
  private readonly rates = new Map<number, number[]>();

  constructor(
    readonly host: TopologyNode,
    private readonly plan: RunPlan,
    private readonly env: FirmwareEnv,
    private readonly events: HostAppEvents,
    opts: HostAppOptions = {},
  ) {
    this.peers = opts.peers ?? null;
    const mine = flowsOf(plan, host.name);
    for (const f of mine.tx) {
      this.txFlows.set(f.spec.id, {
        plan: f,
        started: false,
        startNs: f.spec.startNs,
        endNs: null,
        stopped: false,
        postedBytes: 0,
        messagesPosted: 0,
        messagesOutstanding: 0,
        senderCompletions: 0,
        nextOrdinal: 0,
        completedOrdinals: new OrdinalSet(),
        rateRing: null,
      });
    }
    for (const f of mine.rx)
      this.rxByFlow.set(f.spec.id, { flowId: f.spec.id, deliveredBytes: 0, receiverCompletions: 0 });
    this.starts = mine.starts;
    this.gates = new HostGates(plan, host.name, env, (ids) => this.openGate(ids));
    this.observer = {
      onMessageComplete: (c) => this.onMessageComplete(c),
      onRateChange: (c) => this.onRateChange(c),
      onDelivered: (qpn, bytes) => this.onDelivered(qpn, bytes),
    };
  }

  /**
   * Bind the host's NIC and open the receive side of every QP this host terminates, before any
   * data can arrive; without peers, with the messages the plan says will come.
   */
  attach(nic: Nic): void {
    this.nic = nic;
    for (const qp of this.plan.qps) {
      if (qp.dst.name !== this.host.name) continue;
      if (this.peers !== null) {
        this.openRx(qp);
        continue;
      }
      const flows = qp.flowIds.map((id) => this.plan.flows[id]);
      const rx = this.openRx(qp, false);
      // Finite flows, posted in flowIds order: every message's id is known up front.
      rx.announced = flows.every((f) => f.messageBytes !== null);
      for (const f of flows) {
        const sizes = f.messageBytes;
        if (sizes === null) continue;
        sizes.forEach((bytes, k) => {
          rx.msgFlow.push(f.spec.id);
          rx.msgBytes.push(bytes);
          if (rx.announced) nic.expect({ qpn: qp.dstQpn, id: msgId(f.spec.id, k), bytes, verb: f.verb });
        });
      }
    }
  }

  /** Open the receive side of `qp` on this host; `fromPeer`: its messages are announced by the sender. */
  private openRx(qp: PlannedQp, fromPeer = true): RxQp {
    this.nic.createQp({
      qpn: qp.dstQpn,
      remoteQpn: qp.srcQpn,
      remoteIp: qp.src.ip,
      srcPort: qp.srcPort,
      path: pathInfo(qp),
      initialPsn: INITIAL_PSN,
    });
    const rx: RxQp = {
      qp,
      msgFlow: [],
      msgBytes: [],
      head: 0,
      inHead: 0,
      announced: fromPeer,
      fromPeer,
      completedOrdinals: new OrdinalSet(),
      repHead: -1,
      rep: undefined,
    };
    const i = qp.dstQpn - FIRST_QPN;
    while (this.rxQps.length <= i) this.rxQps.push(undefined);
    this.rxQps[i] = rx;
    return rx;
  }

  /** A message the sending application posts on `qp` (virtual time: told directly). */
  announce(qp: PlannedQp, flow: PlannedFlow, id: number, bytes: number): void {
    const rx = this.rxQps[qp.dstQpn - FIRST_QPN]!;
    rx.msgFlow.push(flow.spec.id);
    rx.msgBytes.push(bytes);
    // Before the sender posts it, so the receiver's completion carries the message id.
    this.nic.expect({ qpn: qp.dstQpn, id, bytes, verb: flow.verb });
  }

  /**
   * The static starts of this host's flows, on its own timer chain (both runtimes): where a start
   * falls among this host's other timers of its instant must not depend on other hosts' starts.
   */
  armStarts(): void {
    if (this.starts.length > 0) this.env.setTimer(this.starts[0].spec.startNs, this.startDue);
  }

  private readonly startDue = (): void => {
    const now = this.env.now();
    while (this.nextStart < this.starts.length && this.starts[this.nextStart].spec.startNs <= now)
      this.release(this.starts[this.nextStart++].spec.id);
    if (this.nextStart < this.starts.length)
      this.env.setTimer(this.starts[this.nextStart].spec.startNs, this.startDue);
  };

  /** A gate opened (on a timer): its flows start now, or at their own start time if later. */
  private openGate(flowIds: readonly number[]): void {
    const now = this.env.now();
    for (const id of flowIds) {
      const at = this.plan.flows[id].spec.startNs;
      if (at > now) this.env.setTimer(at, () => this.release(id));
      else this.release(id);
    }
  }

  /** A flow may start: post it, unless an earlier flow of its QP has still to start. */
  private release(flowId: number): void {
    const ids = this.plan.flows[flowId].qp.flowIds;
    const key = this.plan.flows[flowId].qp.key;
    let i = this.qpCursor.get(key) ?? 0;
    if (ids[i] !== flowId) {
      this.held.add(flowId);
      return;
    }
    do {
      this.startFlow(ids[i++]);
    } while (i < ids.length && this.held.delete(ids[i]));
    this.qpCursor.set(key, i);
  }

  /** Start a flow this host sends, now. */
  private startFlow(flowId: number): void {
    const st = this.txFlows.get(flowId);
    if (st === undefined || st.started) return;
    const qp = st.plan.qp;
    st.started = true;
    st.startNs = this.env.now();
    this.events.flowStarted?.(flowId);
    // Before the QP exists, so its initial rate is part of the flow's trace.
    let tq = this.txQps.get(qp.srcQpn);
    if (tq === undefined) {
      tq = { txFlow: -1, lastRateBps: Number.NaN, lastWindowBytes: Number.NaN };
      this.txQps.set(qp.srcQpn, tq);
    }
    tq.txFlow = flowId;
    st.rateRing = this.freeRings.pop() ?? { ring: new Array(TRACE_CHANGES), count: 0, drops: new Map() };
    if (!this.createdTx.has(qp.key)) {
      this.createdTx.add(qp.key);
      this.nic.createQp({
        qpn: qp.srcQpn,
        remoteQpn: qp.dstQpn,
        remoteIp: qp.dst.ip,
        srcPort: qp.srcPort,
        path: pathInfo(qp),
        initialPsn: INITIAL_PSN,
        ...(qp.receiverCredits !== null ? { receiverCredits: qp.receiverCredits } : {}),
      });
    }
    this.active.add(flowId);
    const sizes = st.plan.messageBytes;
    if (sizes !== null) {
      for (const b of sizes) this.post(st, b);
    } else {
      const spec = st.plan.spec;
      for (let k = 0; k < LONG_FLOW_DEPTH; k++) this.post(st, spec.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
      if (spec.stopNs !== null) {
        this.env.setTimer(spec.stopNs, () => {
          st.stopped = true;
        });
      }
    }
  }

  private post(st: TxFlow, bytes: number): void {
    const id = msgId(st.plan.spec.id, st.nextOrdinal++);
    const qp = st.plan.qp;
    st.postedBytes += bytes;
    st.messagesPosted++;
    st.messagesOutstanding++;
    this.peers?.(qp.dst.name).announce(qp, st.plan, id, bytes);
    this.nic.post({ qpn: qp.srcQpn, id, bytes, verb: st.plan.verb });
  }

  private onMessageComplete(c: MessageCompletion): void {
    if (c.role === 'sender') this.onSenderComplete(c.id, c.completeNs);
    else this.onReceiverComplete(c.id, c.qpn);
  }

  private onSenderComplete(id: number, completeNs: number): void {
    const flowId = Math.floor(id / MSG_ID_SPACE);
    const st = this.txFlows.get(flowId);
    if (st === undefined || id % MSG_ID_SPACE >= st.nextOrdinal) {
      this.unknownCompletions++;
      return;
    }
    st.senderCompletions++;
    if (!st.completedOrdinals.add(id % MSG_ID_SPACE)) {
      this.duplicateCompletions++;
      return;
    }
    st.messagesOutstanding--;
    const spec = st.plan.spec;
    if (st.plan.messageBytes === null && !st.stopped) {
      if (spec.stopNs === null || completeNs < spec.stopNs) {
        this.post(st, spec.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
        return;
      }
      st.stopped = true;
    }
    if (st.messagesOutstanding > 0) return;
    st.endNs = completeNs;
    this.completedTx++;
    this.active.delete(flowId);
    const tq = this.txQps.get(st.plan.qp.srcQpn);
    if (tq !== undefined && tq.txFlow === flowId) tq.txFlow = -1;
    this.rankCompleted(st);
    this.gates.happened(flowId, 'acked', completeNs);
    this.events.flowDone(flowId, completeNs, completeNs - st.startNs);
  }

  private onReceiverComplete(id: number, qpn: number): void {
    const i = qpn - FIRST_QPN;
    const rx = i >= 0 && i < this.rxQps.length ? this.rxQps[i] : undefined;
    if (rx === undefined) {
      this.unknownCompletions++;
      return;
    }
    // Without announced ids the completion carries the message's ordinal on the QP, which
    // indexes the derived messages.
    const flowId = rx.announced
      ? Math.floor(id / MSG_ID_SPACE)
      : (rx.msgFlow[id] ?? (rx.qp.flowIds.length === 1 ? rx.qp.flowIds[0] : -1));
    const r = this.rxByFlow.get(flowId);
    if (r !== undefined) r.receiverCompletions++;
    let seen = rx.completedOrdinals;
    if (rx.announced) {
      let f = this.rxDone.get(flowId);
      if (f === undefined) this.rxDone.set(flowId, (f = new OrdinalSet()));
      seen = f;
    }
    if (!seen.add(rx.announced ? id % MSG_ID_SPACE : id)) {
      this.duplicateDeliveries++;
      return;
    }
    const sizes = this.plan.flows[flowId]?.messageBytes ?? null;
    if (sizes === null) return;
    const n = (this.receivedMessages.get(flowId) ?? 0) + 1;
    if (n < sizes.length) {
      this.receivedMessages.set(flowId, n);
      return;
    }
    this.receivedMessages.delete(flowId);
    this.events.flowReceived?.(flowId);
    if (this.gates.awaitsReceived(flowId)) this.gates.happened(flowId, 'received', this.env.now());
  }

  /** Attribute a sender QP's rate or window change to the flow it carries. */
  private onRateChange(c: RateChange): void {
    const tq = this.txQps.get(c.qpn);
    if (tq === undefined) return;
    const w = c.windowBytes ?? Number.POSITIVE_INFINITY;
    const dropped = c.rateBps < tq.lastRateBps || w < tq.lastWindowBytes;
    tq.lastRateBps = c.rateBps;
    tq.lastWindowBytes = w;
    if (tq.txFlow < 0) return;
    const r = this.txFlows.get(tq.txFlow)!.rateRing;
    if (r === null) return;
    r.ring[r.count++ % TRACE_CHANGES] = c;
    if (dropped) r.drops.set(c.why, (r.drops.get(c.why) ?? 0) + 1);
  }

  /**
   * Keep a completed flow's rate ring only while it is among this host's TRACE_FLOWS slowest
   * completed flows (a superset of its share of the run's slowest), so memory stays bounded by
   * the active flows however long the run.
   */
  private rankCompleted(st: TxFlow): void {
    if (st.rateRing === null || st.endNs === null) return;
    const id = st.plan.spec.id;
    const size = reportedSizeBytes(st.plan.spec.sizeBytes, st.endNs, st.postedBytes, 0);
    const ideal = plannedIdealFctNs(this.plan, id, size);
    const entry = { key: slownessKey(st.startNs, st.endNs, st.endNs, ideal), id };
    const list = this.slowest;
    let i = list.length;
    while (i > 0 && slowerFirst(entry, list[i - 1]) < 0) i--;
    if (i >= TRACE_FLOWS) {
      this.releaseRing(st);
      return;
    }
    list.splice(i, 0, entry);
    if (list.length > TRACE_FLOWS) this.releaseRing(this.txFlows.get(list.pop()!.id)!);
  }

  private releaseRing(st: TxFlow): void {
    const r = st.rateRing;
    if (r === null) return;
    st.rateRing = null;
    r.ring.fill(undefined);
    r.count = 0;
    r.drops.clear();
    this.freeRings.push(r);
  }

  /**
   * In-order payload bytes per flow, as the NIC delivers them (NicObserver.onDelivered: every
   * transport's rule, so selective repeat's out-of-order arrivals count once their hole closes,
   * and a trimmed packet never).
   */
  private onDelivered(qpn: number, payloadBytes: number): void {
    const i = qpn - FIRST_QPN;
    const rx = i >= 0 && i < this.rxQps.length ? this.rxQps[i] : undefined;
    if (rx === undefined) return;
    let bytes = payloadBytes;
    while (bytes > 0) {
      if (rx.head >= rx.msgFlow.length) {
        // Derived messages: a long-lived flow's, of a known constant size, appended as they arrive.
        if (rx.fromPeer) break;
        const f = rx.qp.flowIds.map((id) => this.plan.flows[id]).find((x) => x.messageBytes === null);
        if (f === undefined) break;
        rx.msgFlow.push(f.spec.id);
        rx.msgBytes.push(f.spec.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
      }
      const size = rx.msgBytes[rx.head];
      const take = Math.min(bytes, size - rx.inHead);
      if (rx.repHead !== rx.head) {
        rx.repHead = rx.head;
        rx.rep = this.rxByFlow.get(rx.msgFlow[rx.head]);
      }
      const r = rx.rep;
      if (r !== undefined) r.deliveredBytes += take;
      rx.inHead += take;
      bytes -= take;
      if (rx.inHead >= size) {
        rx.head++;
        rx.inHead = 0;
      }
    }
  }

  /**
   * Record the pacing rate of every active flow at emulated `t`; returns their sum over the
   * finite ones (what the host port is expected to carry).
   */
  sampleRates(t: number): number {
    let sumBps = 0;
    for (const id of this.active) {
      let pts = this.rates.get(id);
      if (pts === undefined) {
        pts = [];
        this.rates.set(id, pts);
      }
      const r = this.nic.qpRateBps(this.plan.flows[id].qp.srcQpn);
      pts.push(t, Math.round(r));
      if (Number.isFinite(r)) sumBps += r;
    }
    return sumBps;
  }

  /**
   * Whether a flow this host sends has still to complete (not started yet, or running): then the
   * run cannot end before this host's next event (lockstep's end bound, docs/realtime.md).
   */
  hasUnfinishedSends(): boolean {
    return this.completedTx < this.txFlows.size;
  }

  /** Flows currently sending. */
  activeFlows(): Iterable<number> {
    return this.active;
  }

  srcQpnOf(flowId: number): number {
    return this.plan.flows[flowId].qp.srcQpn;
  }

  /** Every QPN this host uses. */
  qpns(): number[] {
    const out: number[] = [];
    for (const qp of this.plan.qps) {
      if (qp.src.name === this.host.name) out.push(qp.srcQpn);
      if (qp.dst.name === this.host.name) out.push(qp.dstQpn);
    }
    return out;
  }

  /** What this host received of flow `flowId` (undefined: it is not the flow's receiver). */
  rxOf(flowId: number): Readonly<NodeRxReport> | undefined {
    return this.rxByFlow.get(flowId);
  }

  flowReports(): NodeFlowReport[] {
    return [...this.txFlows.values()].map((st) => {
      const rateLog = rateLogOf(st.rateRing);
      return {
        id: st.plan.spec.id,
        started: st.started,
        startNs: st.startNs,
        endNs: st.endNs,
        postedBytes: st.postedBytes,
        messagesPosted: st.messagesPosted,
        senderCompletions: st.senderCompletions,
        ...(rateLog !== undefined ? { rateLog } : {}),
      };
    });
  }

  rxReports(): NodeRxReport[] {
    return [...this.rxByFlow.values()].map((r) => ({ ...r }));
  }

  /** Rate series of this host's flows, by flow id. */
  rateSeries(): Record<string, FlatSeries> {
    const out: Record<string, FlatSeries> = {};
    for (const [id, pts] of this.flatRateSeries()) out[String(id)] = pts.slice();
    return out;
  }

  /** Rate series of this host's flows as flat [t, bps, …] arrays (this app's own), by flow id ascending. */
  flatRateSeries(): [number, number[]][] {
    return [...this.rates].sort((a, b) => a[0] - b[0]);
  }
}

/**
 * A set of message ordinals that arrive mostly in order (one QP completes its messages in
 * order): everything below `below` is in, the rest sits in a small set until the gap closes.
 */
class OrdinalSet {
  private below = 0;
  private above: Set<number> | null = null;

  /** Adds `k`; false when it was already in. */
  add(k: number): boolean {
    if (k < this.below || this.above?.has(k) === true) return false;
    if (k !== this.below) {
      this.above ??= new Set();
      this.above.add(k);
      return true;
    }
    this.below++;
    while (this.above?.delete(this.below) === true) this.below++;
    return true;
  }
}

interface HostFlows {
  tx: PlannedFlow[];
  rx: PlannedFlow[];
  /** Static starts of the flows the host sends, in the plan's (startNs, id) order. */
  starts: PlannedFlow[];
}

/** The plan's flows by host, indexed once per plan (one pass, not one per host). */
const byHost = new WeakMap<RunPlan, Map<string, HostFlows>>();

function flowsOf(plan: RunPlan, host: string): HostFlows {
  let index = byHost.get(plan);
  if (index === undefined) {
    index = new Map();
    const of = (h: string) => {
      let e = index!.get(h);
      if (e === undefined) index!.set(h, (e = { tx: [], rx: [], starts: [] }));
      return e;
    };
    for (const f of plan.flows) {
      of(f.spec.src).tx.push(f);
      of(f.spec.dst).rx.push(f);
    }
    for (const f of plan.staticStarts) of(f.spec.src).starts.push(f);
    byHost.set(plan, index);
  }
  return index.get(host) ?? { tx: [], rx: [], starts: [] };
}

function msgId(flowId: number, ordinal: number): number {
  return flowId * MSG_ID_SPACE + ordinal;
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

function pathInfo(qp: PlannedQp) {
  return {
    baseRttNs: Math.round(qp.path.baseRttNs),
    bottleneckRateBps: qp.path.bottleneckRateBps,
    hops: qp.path.hops,
    linkRatesBps: qp.path.links.map((l) => l.rateBps),
    propDelayNs: qp.path.propDelayNs,
  };
}
