/**
 * The application on one real host: it opens the QPs of the flows this host takes part in,
 * posts the messages of the flows it sends (at their emulated start times), and accounts for
 * completions and in-order deliveries the way the virtual runtime does (virtual-run.ts), so the
 * merged results have the same meaning.
 *
 * Message ids are static (flowId · 2^20 + ordinal) so a receiver can announce them (`expect`)
 * without hearing from the sender; a receiver completion whose id already completed is a
 * duplicate delivery, which go-back-N must never produce.
 */
import type { Nic } from '../../../nic/api.js';
import type { FirmwareEnv } from '../../env/env.js';
import type { TopologyNode } from '../../topology/model.js';
import { FrameKind, type Packet } from '../../wire/packet.js';
import {
  LONG_FLOW_DEPTH,
  LONG_FLOW_MESSAGE_BYTES,
  type PlannedFlow,
  type PlannedQp,
  type RunPlan,
} from '../app/plan.js';
import type { NodeFlowReport, NodeRxReport } from './protocol.js';

const MSG_ID_SPACE = 2 ** 20;
const PSN_MASK = 0xffffff;
const INITIAL_PSN = 0;

interface TxFlow {
  plan: PlannedFlow;
  started: boolean;
  startNs: number;
  endNs: number | null;
  stopped: boolean;
  postedBytes: number;
  messagesPosted: number;
  messagesOutstanding: number;
  senderCompletions: number;
  nextOrdinal: number;
}

interface RxQp {
  qp: PlannedQp;
  /** Flow and size of every message expected on the QP, in posting order (static). */
  msgFlow: number[];
  msgBytes: number[];
  head: number;
  inHead: number;
  expectedPsn: number;
  /** Whether ids were announced with expect() (all flows finite and statically started). */
  announced: boolean;
  completions: number;
}

export interface HostDriverEvents {
  flowDone(flowId: number, endNs: number, fctNs: number): void;
}

export class HostDriver {
  readonly txFlows = new Map<number, TxFlow>();
  private readonly rxQps = new Map<number, RxQp>();
  private readonly rxByFlow = new Map<number, NodeRxReport>();
  private readonly createdTx = new Set<string>();
  private readonly starts: PlannedFlow[];
  private nextStart = 0;
  private readonly doneIds = new Set<number>();
  private readonly rxDoneIds = new Set<number>();
  duplicateDeliveries = 0;
  duplicateCompletions = 0;
  unknownCompletions = 0;
  private readonly active = new Set<number>();

  constructor(
    private readonly host: TopologyNode,
    private readonly plan: RunPlan,
    private readonly env: FirmwareEnv,
    private readonly events: HostDriverEvents,
  ) {
    for (const f of plan.flows) {
      if (f.spec.src === host.name) {
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
        });
      }
      if (f.spec.dst === host.name)
        this.rxByFlow.set(f.spec.id, { flowId: f.spec.id, deliveredBytes: 0, receiverCompletions: 0 });
    }
    this.starts = plan.staticStarts.filter((f) => f.spec.src === host.name);
  }

  private nic!: Nic;

  /** Open the receive side of every QP this host terminates (before any data can arrive). */
  attach(nic: Nic): void {
    this.nic = nic;
    for (const qp of this.plan.qps) {
      if (qp.dst.name !== this.host.name) continue;
      const flows = qp.flowIds.map((id) => this.plan.flows[id]);
      const announced = flows.every((f) => f.messageBytes !== null && f.spec.waitGroup < 0);
      const rx: RxQp = {
        qp,
        msgFlow: [],
        msgBytes: [],
        head: 0,
        inHead: 0,
        expectedPsn: INITIAL_PSN,
        announced,
        completions: 0,
      };
      nic.createQp({
        qpn: qp.dstQpn,
        remoteQpn: qp.srcQpn,
        remoteIp: qp.src.ip,
        srcPort: qp.srcPort,
        path: pathInfo(qp),
        initialPsn: INITIAL_PSN,
      });
      for (const f of flows) {
        const sizes = f.messageBytes;
        if (sizes === null) continue;
        sizes.forEach((b, k) => {
          rx.msgFlow.push(f.spec.id);
          rx.msgBytes.push(b);
          if (announced)
            nic.expect({ qpn: qp.dstQpn, id: f.spec.id * MSG_ID_SPACE + k, bytes: b, verb: f.verb });
        });
      }
      this.rxQps.set(qp.dstQpn, rx);
    }
  }

  /** Arm the static flow starts (emulated times on the synced clock). */
  armStarts(): void {
    if (this.starts.length > 0) this.env.setTimer(this.starts[0].spec.startNs, this.startDue);
  }

  private readonly startDue = (): void => {
    const now = this.env.now();
    while (this.nextStart < this.starts.length && this.starts[this.nextStart].spec.startNs <= now)
      this.startFlow(this.starts[this.nextStart++].spec.id);
    if (this.nextStart < this.starts.length)
      this.env.setTimer(this.starts[this.nextStart].spec.startNs, this.startDue);
  };

  /** Start a flow (static start, or a barrier release relayed by the launcher). */
  startFlow(flowId: number): void {
    const st = this.txFlows.get(flowId);
    if (st === undefined || st.started) return;
    const qp = st.plan.qp;
    st.started = true;
    st.startNs = this.env.now();
    if (!this.createdTx.has(qp.key)) {
      this.createdTx.add(qp.key);
      this.nic.createQp({
        qpn: qp.srcQpn,
        remoteQpn: qp.dstQpn,
        remoteIp: qp.dst.ip,
        srcPort: qp.srcPort,
        path: pathInfo(qp),
        initialPsn: INITIAL_PSN,
      });
    }
    this.active.add(flowId);
    const sizes = st.plan.messageBytes;
    if (sizes !== null) {
      for (const b of sizes) this.post(st, b);
    } else {
      const spec = st.plan.spec;
      for (let k = 0; k < LONG_FLOW_DEPTH; k++) this.post(st, spec.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
      if (spec.stopNs !== null) this.env.setTimer(spec.stopNs, () => (st.stopped = true));
    }
  }

  private post(st: TxFlow, bytes: number): void {
    const id = st.plan.spec.id * MSG_ID_SPACE + st.nextOrdinal++;
    st.postedBytes += bytes;
    st.messagesPosted++;
    st.messagesOutstanding++;
    this.nic.post({ qpn: st.plan.qp.srcQpn, id, bytes, verb: st.plan.verb });
  }

  onSenderComplete(msgId: number, completeNs: number): void {
    const flowId = Math.floor(msgId / MSG_ID_SPACE);
    const st = this.txFlows.get(flowId);
    if (st === undefined) {
      this.unknownCompletions++;
      return;
    }
    st.senderCompletions++;
    if (this.doneIds.has(msgId)) {
      this.duplicateCompletions++;
      return;
    }
    this.doneIds.add(msgId);
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
    this.active.delete(flowId);
    this.events.flowDone(flowId, completeNs, completeNs - st.startNs);
  }

  onReceiverComplete(msgId: number, qpn: number): void {
    const rx = this.rxQps.get(qpn);
    if (rx === undefined) {
      this.unknownCompletions++;
      return;
    }
    rx.completions++;
    // Without announced ids the completion carries the message's ordinal on the QP.
    const key = rx.announced ? msgId : qpn * MSG_ID_SPACE * 64 + msgId;
    if (this.rxDoneIds.has(key)) {
      this.duplicateDeliveries++;
      return;
    }
    this.rxDoneIds.add(key);
    const flowId = rx.announced
      ? Math.floor(msgId / MSG_ID_SPACE)
      : rx.qp.flowIds.length === 1
        ? rx.qp.flowIds[0]
        : -1;
    const r = this.rxByFlow.get(flowId);
    if (r !== undefined) r.receiverCompletions++;
  }

  /** Receive tap: in-order payload per flow (virtual-run.ts onDataDelivered). */
  onRx(pkt: Packet): void {
    if (pkt.kind !== FrameKind.Data) return;
    const rx = this.rxQps.get(pkt.destQp);
    if (rx === undefined || pkt.psn !== rx.expectedPsn) return;
    rx.expectedPsn = (pkt.psn + 1) & PSN_MASK;
    let bytes = pkt.payloadLen;
    while (bytes > 0) {
      if (rx.head >= rx.msgFlow.length) {
        // long-lived flows: messages of a known constant size, appended as they arrive
        const f = rx.qp.flowIds.map((id) => this.plan.flows[id]).find((x) => x.messageBytes === null);
        if (f === undefined) break;
        rx.msgFlow.push(f.spec.id);
        rx.msgBytes.push(f.spec.messageBytes ?? LONG_FLOW_MESSAGE_BYTES);
      }
      const size = rx.msgBytes[rx.head];
      const take = Math.min(bytes, size - rx.inHead);
      const r = this.rxByFlow.get(rx.msgFlow[rx.head]);
      if (r !== undefined) r.deliveredBytes += take;
      rx.inHead += take;
      bytes -= take;
      if (rx.inHead >= size) {
        rx.head++;
        rx.inHead = 0;
      }
    }
  }

  /** Flows currently sending (for rate series and load accounting). */
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

  flowReports(): NodeFlowReport[] {
    return [...this.txFlows.values()].map((st) => ({
      id: st.plan.spec.id,
      started: st.started,
      startNs: st.startNs,
      endNs: st.endNs,
      postedBytes: st.postedBytes,
      messagesPosted: st.messagesPosted,
      senderCompletions: st.senderCompletions,
    }));
  }

  rxReports(): NodeRxReport[] {
    return [...this.rxByFlow.values()];
  }
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
