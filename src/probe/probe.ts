/**
 * The observation API of a run: a `Tracer` hands each node's firmware a trace-hook table
 * (src/env/trace.ts), and the `Probe` is the tracer that keeps time bins in emulated ns: per
 * flow the data bytes its sender put on the wire, the payload its receiver got and the ACK, CNP
 * and CNM frames its sender received; per switch egress port the bytes sent and the queue (max
 * and mean per bin). Every quantity is recorded at exactly one node, on that node's emulated
 * clock, so a real run's nodes each bin their own part and the merge (`mergeProbeReports`) sums
 * them: the bins mean the same in virtual and real runs (docs/results.md "probes").
 */
import type { NicConfig, NicObserver } from '../../nic/api.js';
import type { NicTrace, SwitchTrace } from '../env/trace.js';
import type { RunPlan } from '../runtime/app/plan.js';
import { FrameKind, type Packet, type PfcBody } from '../wire/packet.js';
import { Bins, QueueBins } from './bins.js';

/** Hands out the hook table of each node (null: nothing to observe there). */
export interface Tracer {
  nic(host: string): NicTrace | null;
  switch(name: string): SwitchTrace | null;
}

/** Callbacks by node name; `tracer()` turns them into hook tables. */
export interface TraceCallbacks {
  nicTx?(host: string, nowNs: number, pkt: Packet): void;
  nicRx?(host: string, nowNs: number, pkt: Packet): void;
  nicRxDone?(host: string, nowNs: number, pkt: Packet): void;
  switchRx?(name: string, nowNs: number, port: number, pkt: Packet): void;
  switchTx?(name: string, nowNs: number, port: number, pkt: Packet): void;
  queue?(name: string, nowNs: number, port: number, queueBytes: number): void;
}

const noop = (): void => {};

/** A tracer from per-node callbacks (every node gets hooks when any callback of its kind is set). */
export function tracer(cb: TraceCallbacks): Tracer {
  const nicOn = cb.nicTx !== undefined || cb.nicRx !== undefined || cb.nicRxDone !== undefined;
  const swOn = cb.switchRx !== undefined || cb.switchTx !== undefined || cb.queue !== undefined;
  return {
    nic: (host) => {
      if (!nicOn) return null;
      const { nicTx, nicRx, nicRxDone } = cb;
      return {
        tx: nicTx === undefined ? noop : (t, p) => nicTx(host, t, p),
        rx: nicRx === undefined ? noop : (t, p) => nicRx(host, t, p),
        rxDone: nicRxDone === undefined ? noop : (t, p) => nicRxDone(host, t, p),
      };
    },
    switch: (name) => {
      if (!swOn) return null;
      const { switchRx, switchTx, queue } = cb;
      return {
        rx: switchRx === undefined ? noop : (t, port, p) => switchRx(name, t, port, p),
        tx: switchTx === undefined ? noop : (t, port, p) => switchTx(name, t, port, p),
        queue: queue === undefined ? noop : (t, port, b) => queue(name, t, port, b),
      };
    },
  };
}

/** Both tables' hooks, `a`'s first. */
export function chainNicTrace(a: NicTrace | null, b: NicTrace | null): NicTrace | null {
  if (a === null) return b;
  if (b === null) return a;
  return {
    tx: (t, p) => {
      a.tx(t, p);
      b.tx(t, p);
    },
    rx: (t, p) => {
      a.rx(t, p);
      b.rx(t, p);
    },
    rxDone: (t, p) => {
      a.rxDone(t, p);
      b.rxDone(t, p);
    },
  };
}

export function chainSwitchTrace(a: SwitchTrace | null, b: SwitchTrace | null): SwitchTrace | null {
  if (a === null) return b;
  if (b === null) return a;
  return {
    rx: (t, port, p) => {
      a.rx(t, port, p);
      b.rx(t, port, p);
    },
    tx: (t, port, p) => {
      a.tx(t, port, p);
      b.tx(t, port, p);
    },
    queue: (t, port, q) => {
      a.queue(t, port, q);
      b.queue(t, port, q);
    },
  };
}

/** Every tracer's hooks, in list order. */
export function chainTracers(list: readonly (Tracer | null | undefined)[]): Tracer | null {
  const ts = list.filter((t): t is Tracer => t != null);
  if (ts.length === 0) return null;
  if (ts.length === 1) return ts[0];
  return {
    nic: (h) => ts.reduce<NicTrace | null>((acc, t) => chainNicTrace(acc, t.nic(h)), null),
    switch: (s) => ts.reduce<SwitchTrace | null>((acc, t) => chainSwitchTrace(acc, t.switch(s)), null),
  };
}

// ---------------------------------------------------------------------------------- the Probe

export interface ProbePortRef {
  node: string;
  port: number;
}

/** What to bin (the scenario's `probes` key, resolved). */
export interface ProbeSpec {
  binNs: number;
  /** Switch egress ports whose queue and sent bytes are binned: every switch port, or a list. */
  ports: 'all' | readonly ProbePortRef[];
  /** Per-flow bins (sent and received bytes, feedback frames received). */
  flows: boolean;
  /**
   * (optional) Variables of the flows' QPs (`qpInspect`: the algorithm's state) to keep per bin:
   * read at the sender after each ACK/NAK/CNP/CNM and at the receiver after each data frame.
   */
  qpState?: readonly string[];
}

export interface ProbePortBins {
  node: string;
  port: number;
  /** Bytes of every frame the port put on the wire, per bin. */
  txBytes: number[];
  /** Largest queue (all priorities) in the bin, bytes. */
  queueMaxBytes: number[];
  /** Time-average queue over the bin, bytes (3 decimals). */
  queueMeanBytes: number[];
  /** PFC frames the port sent that pause a class, and of those the XOFF transitions (class not paused before). */
  pfcPauseTx: number[];
  pfcXoffTx: number[];
}

export interface ProbeFlowBins {
  id: number;
  /** Wire bytes of the flow's data frames leaving its sender's NIC (retransmissions included). */
  txBytes: number[];
  /** Payload bytes of the flow's data frames reaching its receiver's NIC (any PSN). */
  rxBytes: number[];
  /** ACK/NAK, CNP and CNM frames for the flow reaching its sender's NIC. */
  ackRx: number[];
  cnpRx: number[];
  cnmRx: number[];
  /**
   * With `qpState`: each variable of the sender's and the receiver's QP, its last value in the
   * bin (carried over bins without a frame; null before the first).
   */
  senderState?: Record<string, (number | null)[]>;
  receiverState?: Record<string, (number | null)[]>;
}

/** The `probes` section of results.json, and one node's part of it (same shape, zeros elsewhere). */
export interface ProbeResults {
  binNs: number;
  bins: number;
  ports: ProbePortBins[];
  flows: ProbeFlowBins[];
}

/** Live bins of one flow, for experiments reading them during or right after a run. */
export interface FlowBins {
  id: number;
  /** Sending and receiving host. */
  src: string;
  dst: string;
  /** Start time of the flow as planned (the earliest start), ns. */
  startNs: number;
  tx: Bins;
  rx: Bins;
  ackRx: Bins;
  cnpRx: Bins;
  cnmRx: Bins;
  /** First and last data arrival at the receiver NIC, ns (NaN: none). */
  firstRxNs: number;
  lastRxNs: number;
  srcQpn: number;
  dstQpn: number;
  /** Per `qpState` variable: its last value in each bin (NaN: no sample). */
  senderState: Map<string, Bins>;
  receiverState: Map<string, Bins>;
}

/** What the Probe reads QP state from (a NIC). */
export interface QpInspector {
  qpInspect(qpn: number): Record<string, number>;
}

export interface PortBins {
  node: string;
  port: number;
  tx: Bins;
  queue: QueueBins;
  pauseTx: Bins;
  xoffTx: Bins;
  /** Classes this port's last PFC frames left paused (bit per priority). */
  xoffMask: number;
}

type QpIndex = Map<number, Map<number, FlowBins[]>>;

function index(m: Map<string, QpIndex>, node: string, ip: number, qpn: number, f: FlowBins): void {
  let byIp = m.get(node);
  if (byIp === undefined) m.set(node, (byIp = new Map()));
  let byQp = byIp.get(ip >>> 0);
  if (byQp === undefined) byIp.set(ip >>> 0, (byQp = new Map()));
  const list = byQp.get(qpn);
  if (list === undefined) byQp.set(qpn, [f]);
  else list.push(f);
}

/** The flow of a QP that frames at `nowNs` belong to: the latest one started by then. */
function pick(list: FlowBins[] | undefined, nowNs: number): FlowBins | undefined {
  if (list === undefined) return undefined;
  let best = list[0];
  for (const f of list) if (f.startNs <= nowNs) best = f;
  return best;
}

export function portKey(p: ProbePortRef): string {
  return `${p.node}:${p.port}`;
}

export class Probe implements Tracer {
  readonly binNs: number;
  readonly flows: FlowBins[];
  readonly ports = new Map<string, PortBins>();
  /** Sender host → remote IP → remote QPN → flows (data out, CNM in). */
  private readonly bySenderRemote = new Map<string, QpIndex>();
  /** Sender host → 0 → local QPN → flows (ACK, NAK, CNP in). */
  private readonly bySenderLocal = new Map<string, QpIndex>();
  /** Receiver host → 0 → local QPN → flows (data in). */
  private readonly byReceiver = new Map<string, QpIndex>();
  private endNs = 0;

  constructor(
    readonly spec: ProbeSpec,
    plan: Pick<RunPlan, 'flows' | 'topo'>,
  ) {
    if (!(spec.binNs >= 1)) throw new Error(`probe bin must be ≥ 1 ns, got ${spec.binNs}`);
    this.binNs = spec.binNs;
    if (spec.ports !== 'all')
      for (const p of spec.ports) this.ports.set(portKey(p), this.newPort(p.node, p.port));
    else
      for (const s of plan.topo.switches)
        for (const p of s.ports) this.ports.set(`${s.name}:${p.index}`, this.newPort(s.name, p.index));
    this.flows = spec.flows
      ? plan.flows.map(({ spec: f, qp }) => {
          const fb: FlowBins = {
            id: f.id,
            src: qp.src.name,
            dst: qp.dst.name,
            startNs: f.startNs,
            tx: new Bins(),
            rx: new Bins(),
            ackRx: new Bins(),
            cnpRx: new Bins(),
            cnmRx: new Bins(),
            firstRxNs: Number.NaN,
            lastRxNs: Number.NaN,
            srcQpn: qp.srcQpn,
            dstQpn: qp.dstQpn,
            senderState: new Map((spec.qpState ?? []).map((v) => [v, new Bins(Number.NaN)])),
            receiverState: new Map((spec.qpState ?? []).map((v) => [v, new Bins(Number.NaN)])),
          };
          index(this.bySenderRemote, qp.src.name, qp.dst.ip, qp.dstQpn, fb);
          index(this.bySenderLocal, qp.src.name, 0, qp.srcQpn, fb);
          index(this.byReceiver, qp.dst.name, 0, qp.dstQpn, fb);
          return fb;
        })
      : [];
  }

  private newPort(node: string, port: number): PortBins {
    return {
      node,
      port,
      tx: new Bins(),
      queue: new QueueBins(this.binNs),
      pauseTx: new Bins(),
      xoffTx: new Bins(),
      xoffMask: 0,
    };
  }

  private bin(tNs: number): number {
    return Math.floor(tNs / this.binNs);
  }

  private readonly inspectors = new Map<string, QpInspector>();

  /** The NIC of `host`, for `qpState` (runtimes call this once they created it). */
  attach(host: string, nic: QpInspector): void {
    this.inspectors.set(host, nic);
  }

  private sample(host: string, t: number, state: Map<string, Bins>, qpn: number): void {
    const nic = this.inspectors.get(host);
    if (nic === undefined || state.size === 0) return;
    const vars = nic.qpInspect(qpn);
    const b = this.bin(t);
    for (const [name, bins] of state) {
      const v = vars[name];
      if (v === undefined) continue;
      bins.ensure(b);
      bins.data[b] = v;
    }
  }

  nic(host: string): NicTrace | null {
    const remote = this.bySenderRemote.get(host);
    const local = this.bySenderLocal.get(host)?.get(0);
    const rxq = this.byReceiver.get(host)?.get(0);
    if (remote === undefined && local === undefined && rxq === undefined) return null;
    return {
      tx: (t, pkt) => {
        if (pkt.kind !== FrameKind.Data || remote === undefined) return;
        const f = pick(remote.get(pkt.dstIp >>> 0)?.get(pkt.destQp), t);
        if (f !== undefined) f.tx.add(this.bin(t), pkt.sizeBytes);
      },
      rx: (t, pkt) => {
        switch (pkt.kind) {
          case FrameKind.Data: {
            const f = pick(rxq?.get(pkt.destQp), t);
            if (f === undefined) return;
            f.rx.add(this.bin(t), pkt.payloadLen);
            if (Number.isNaN(f.firstRxNs)) f.firstRxNs = t;
            f.lastRxNs = t;
            return;
          }
          case FrameKind.Ack:
          case FrameKind.Nak: {
            const f = pick(local?.get(pkt.destQp), t);
            if (f !== undefined) f.ackRx.add(this.bin(t), 1);
            return;
          }
          case FrameKind.Cnp: {
            const f = pick(local?.get(pkt.destQp), t);
            if (f !== undefined) f.cnpRx.add(this.bin(t), 1);
            return;
          }
          case FrameKind.Cnm: {
            const body = pkt.cnm;
            if (body === null || remote === undefined) return;
            const f = pick(remote.get(body.flowDstIp >>> 0)?.get(body.destQpn), t);
            if (f !== undefined) f.cnmRx.add(this.bin(t), 1);
            return;
          }
        }
      },
      rxDone:
        (this.spec.qpState ?? []).length === 0
          ? noop
          : (t, pkt) => {
              if (pkt.kind === FrameKind.Data) {
                const f = pick(rxq?.get(pkt.destQp), t);
                if (f !== undefined) this.sample(host, t, f.receiverState, f.dstQpn);
                return;
              }
              let f: FlowBins | undefined;
              if (pkt.kind === FrameKind.Cnm)
                f =
                  pkt.cnm === null
                    ? undefined
                    : pick(remote?.get(pkt.cnm.flowDstIp >>> 0)?.get(pkt.cnm.destQpn), t);
              else if (pkt.kind !== FrameKind.Pfc) f = pick(local?.get(pkt.destQp), t);
              if (f !== undefined) this.sample(host, t, f.senderState, f.srcQpn);
            },
    };
  }

  switch(name: string): SwitchTrace | null {
    const mine: (PortBins | undefined)[] = [];
    for (const p of this.ports.values()) if (p.node === name) mine[p.port] = p;
    if (mine.length === 0) return null;
    return {
      rx: noop,
      tx: (t, port, pkt) => {
        const p = mine[port];
        if (p === undefined) return;
        const b = this.bin(t);
        p.tx.add(b, pkt.sizeBytes);
        if (pkt.kind === FrameKind.Pfc && pkt.pfc !== null) pfcSent(p, b, pkt.pfc);
      },
      queue: (t, port, bytes) => {
        const p = mine[port];
        if (p !== undefined) p.queue.update(t, bytes);
      },
    };
  }

  /** Close the bins at the run's end (queue integrals up to `endNs`). Idempotent. */
  finish(endNs: number): void {
    this.endNs = Math.max(this.endNs, endNs);
    for (const p of this.ports.values()) p.queue.carry(this.endNs);
  }

  /** The port bins of `sw:port`. */
  port(node: string, port: number): PortBins | undefined {
    return this.ports.get(`${node}:${port}`);
  }

  /**
   * The bins as results.json carries them: every port and flow, or only what `node` recorded
   * (its own ports; its flows, zeros on the side another node records). Bins cover [0, endNs).
   */
  report(endNs: number, node?: string): ProbeResults {
    this.finish(endNs);
    const bins = Math.ceil(endNs / this.binNs);
    const zeros = () => new Array<number>(bins).fill(0);
    const ports: ProbePortBins[] = [];
    for (const p of this.ports.values()) {
      if (node !== undefined && p.node !== node) continue;
      ports.push({
        node: p.node,
        port: p.port,
        txBytes: p.tx.toArray(bins),
        queueMaxBytes: p.queue.max.toArray(bins),
        queueMeanBytes: p.queue.area.toArray(bins).map((a, i) => {
          const span = Math.min(this.binNs, endNs - i * this.binNs);
          return Math.round((a / span) * 1000) / 1000;
        }),
        pfcPauseTx: p.pauseTx.toArray(bins),
        pfcXoffTx: p.xoffTx.toArray(bins),
      });
    }
    const flows: ProbeFlowBins[] = [];
    for (const f of this.flows) {
      const snd = node === undefined || f.src === node;
      const rcv = node === undefined || f.dst === node;
      if (!snd && !rcv) continue;
      flows.push({
        id: f.id,
        txBytes: snd ? f.tx.toArray(bins) : zeros(),
        rxBytes: rcv ? f.rx.toArray(bins) : zeros(),
        ackRx: snd ? f.ackRx.toArray(bins) : zeros(),
        cnpRx: snd ? f.cnpRx.toArray(bins) : zeros(),
        cnmRx: snd ? f.cnmRx.toArray(bins) : zeros(),
        ...(snd && f.senderState.size > 0 ? { senderState: stateArrays(f.senderState, bins) } : {}),
        ...(rcv && f.receiverState.size > 0 ? { receiverState: stateArrays(f.receiverState, bins) } : {}),
      });
    }
    return { binNs: this.binNs, bins, ports, flows };
  }
}

/** Last value per bin, carried over bins without a sample; null before the first. */
function stateArrays(state: Map<string, Bins>, bins: number): Record<string, (number | null)[]> {
  const out: Record<string, (number | null)[]> = {};
  for (const [name, b] of state) {
    let last: number | null = null;
    out[name] = b.toArray(bins).map((v) => (Number.isNaN(v) ? last : (last = v)));
  }
  return out;
}

/** A PFC frame left port `p` in bin `b`: count pauses, and XOFF transitions per class. */
function pfcSent(p: PortBins, b: number, pfc: PfcBody): void {
  let pauses = false;
  for (let prio = 0; prio < 8; prio++) {
    if (((pfc.classEnable >> prio) & 1) === 0) continue;
    const bit = 1 << prio;
    if ((pfc.quanta[prio] ?? 0) === 0) {
      p.xoffMask &= ~bit;
      continue;
    }
    pauses = true;
    if ((p.xoffMask & bit) === 0) {
      p.xoffMask |= bit;
      p.xoffTx.add(b, 1);
    }
  }
  if (pauses) p.pauseTx.add(b, 1);
}

/** Sum node parts (same spec) into the results' `probes` section: queue maxima by max, the rest by sum. */
export function mergeProbeReports(parts: readonly ProbeResults[]): ProbeResults | null {
  if (parts.length === 0) return null;
  const bins = Math.max(...parts.map((p) => p.bins));
  const merge = <T extends object>(into: Map<string, T>, key: string, item: T) => {
    const cur = into.get(key);
    const arrays = Object.entries(item).filter((e): e is [string, number[]] => Array.isArray(e[1]));
    if (cur === undefined) {
      const copy = { ...item } as Record<string, unknown>;
      for (const [k, v] of arrays) copy[k] = [...v, ...new Array<number>(bins - v.length).fill(0)];
      into.set(key, copy as T);
      return;
    }
    for (const [k, v] of arrays) {
      const acc = (cur as Record<string, number[]>)[k];
      for (let i = 0; i < v.length; i++)
        acc[i] = k === 'queueMaxBytes' ? Math.max(acc[i], v[i]) : acc[i] + v[i];
    }
    // QP state comes from one node each (sender, receiver): taken as it is.
    for (const [k, v] of Object.entries(item))
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) (cur as Record<string, unknown>)[k] ??= v;
  };
  const ports = new Map<string, ProbePortBins>();
  const flows = new Map<string, ProbeFlowBins>();
  for (const part of parts) {
    for (const p of part.ports) merge(ports, `${p.node}:${p.port}`, p);
    for (const f of part.flows) merge(flows, String(f.id), f);
  }
  return {
    binNs: parts[0].binNs,
    bins,
    ports: [...ports.values()].sort((a, b) =>
      a.node === b.node ? a.port - b.port : a.node < b.node ? -1 : 1,
    ),
    flows: [...flows.values()]
      .sort((a, b) => a.id - b.id)
      .map(({ senderState, receiverState, ...f }) => ({
        ...f,
        ...(senderState === undefined ? {} : { senderState }),
        ...(receiverState === undefined ? {} : { receiverState }),
      })),
  };
}

/**
 * `cfg` with `extra` observing its NIC's message completions and rate changes too (called before
 * the runtime's own observer, which stays in charge of the application).
 */
export function observeNic(cfg: NicConfig, extra: Partial<NicObserver>): NicConfig {
  const own = cfg.observer;
  return {
    ...cfg,
    observer: {
      onMessageComplete: (c) => {
        extra.onMessageComplete?.(c);
        own.onMessageComplete(c);
      },
      onRateChange: (c) => {
        extra.onRateChange?.(c);
        own.onRateChange?.(c);
      },
    },
  };
}
