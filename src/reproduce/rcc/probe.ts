/**
 * A virtual-time run of a scenario with RCC's measurement points attached: the payload each flow
 * delivers to its receiver NIC and the queue of watched switch egress ports (read at every
 * change, kept per time bin), optionally the window every ACK carries, and the receiver QPs' RCC
 * state (mode, PID entry time) read through `qpInspect`. Wrappers only observe; the firmware
 * runs unchanged.
 */

import type { Nic } from '../../../nic/api.js';
import { createNic } from '../../../nic/api.js';
import type { Switch } from '../../../switch/api.js';
import { createSwitch } from '../../../switch/api.js';
import type { Scenario } from '../../config/scenario.js';
import type { FirmwareEnv } from '../../env/env.js';
import { planFromSetup } from '../../runtime/app/plan.js';
import { type RunOutput, runScenario } from '../../runtime/run.js';
import { setupRun } from '../../runtime/scenario-setup.js';
import type { Topology } from '../../topology/model.js';
import { FrameKind, type Packet } from '../../wire/packet.js';
import type { FlowSpec } from '../../workload/generate.js';
import { loadPaperScenario } from '../paper-scenario.js';

/** A switch egress port whose queue is recorded. */
export interface WatchedPort {
  sw: string;
  port: number;
}

/** Growable array of numbers indexed by time bin. */
class Bins {
  data: Float64Array;
  length = 0;
  constructor(private readonly fill: number) {
    this.data = new Float64Array(1024).fill(fill);
  }
  ensure(i: number): void {
    if (i < this.data.length) {
      if (i >= this.length) this.length = i + 1;
      return;
    }
    let n = this.data.length;
    while (n <= i) n *= 2;
    const d = new Float64Array(n).fill(this.fill);
    d.set(this.data.subarray(0, this.length));
    this.data = d;
    this.length = i + 1;
  }
  get(i: number): number {
    return i < this.length ? this.data[i] : this.fill;
  }
}

/**
 * A queue recorded at every change and kept per time bin: the max, the min and the integral
 * (byte·ns) of each bin, so long runs stay small and window statistics stay exact to a bin.
 */
export class QueueTrace {
  readonly max = new Bins(0);
  readonly min = new Bins(Number.POSITIVE_INFINITY);
  readonly area = new Bins(0);
  private cur = 0;
  private lastNs = 0;
  constructor(readonly binNs: number) {}

  update(tNs: number, bytes: number): void {
    if (bytes === this.cur) return;
    this.carry(tNs);
    this.cur = bytes;
    const b = Math.floor(tNs / this.binNs);
    this.mark(b, bytes);
  }

  /** Account the current value up to `tNs` (call once at the end of the run). */
  carry(tNs: number): void {
    const bin = this.binNs;
    let t = this.lastNs;
    while (t < tNs) {
      const b = Math.floor(t / bin);
      const edge = Math.min(tNs, (b + 1) * bin);
      this.mark(b, this.cur);
      this.area.ensure(b);
      this.area.data[b] += this.cur * (edge - t);
      t = edge;
    }
    this.lastNs = Math.max(this.lastNs, tNs);
  }

  private mark(b: number, v: number): void {
    this.max.ensure(b);
    this.min.ensure(b);
    if (v > this.max.data[b]) this.max.data[b] = v;
    if (v < this.min.data[b]) this.min.data[b] = v;
  }
}

export interface FlowProbe {
  spec: FlowSpec;
  srcQpn: number;
  dstQpn: number;
  /** Unloaded RTT of the flow's path, ns, as the NIC gets it (T of the spec). */
  baseRttNs: number;
  /** Payload bytes delivered to the receiver NIC per time bin. */
  rx: Bins;
  /** Arrival of the flow's first and last data packet at the receiver, ns (NaN: none). */
  firstRxNs: number;
  lastRxNs: number;
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
  watch?: WatchedPort[];
  /** Time bin of deliveries and queues, ns (default 100). */
  binNs?: number;
  /** Record ACK windows (default false). */
  acks?: boolean;
  /** Record packet deliveries (default true). */
  deliveries?: boolean;
}

export function portKey(p: WatchedPort): string {
  return `${p.sw}:${p.port}`;
}

export function probedRun(scenario: Scenario, o: ProbeOptions): RccProbe {
  const setup = setupRun(scenario, { seed: o.seed });
  const binNs = o.binNs ?? 100;
  // The runtime's own plan: the QPNs and paths the virtual run will use.
  const plan = planFromSetup(setup);
  const flows: FlowProbe[] = plan.flows.map(({ spec, qp }) => ({
    spec,
    srcQpn: qp.srcQpn,
    dstQpn: qp.dstQpn,
    baseRttNs: Math.round(qp.path.baseRttNs),
    rx: new Bins(0),
    firstRxNs: Number.NaN,
    lastRxNs: Number.NaN,
    ackNs: [],
    ackWindow: [],
  }));
  // Receiver host → receiver QPN → flows on that QP (the latest started takes the packet).
  const byRx = new Map<string, Map<number, FlowProbe[]>>();
  // Receiver host → sender QPN (what its ACKs name) → flows.
  const byAck = new Map<string, Map<number, FlowProbe[]>>();
  const add = (m: Map<string, Map<number, FlowProbe[]>>, host: string, qpn: number, f: FlowProbe) => {
    let h = m.get(host);
    if (h === undefined) m.set(host, (h = new Map()));
    h.set(qpn, [...(h.get(qpn) ?? []), f]);
  };
  for (const f of flows) {
    add(byRx, f.spec.dst, f.dstQpn, f);
    add(byAck, f.spec.dst, f.srcQpn, f);
  }
  const pick = (list: FlowProbe[] | undefined, nowNs: number): FlowProbe | undefined => {
    if (list === undefined) return undefined;
    let best = list[0];
    for (const f of list) if (f.spec.startNs <= nowNs) best = f;
    return best;
  };
  const keepRx = o.deliveries !== false;
  const keepAcks = o.acks === true;
  const nics = new Map<string, Nic>();
  const switches = new Map<string, Switch>();
  const queues = new Map<string, QueueTrace>();
  const watchBySw = new Map<string, number[]>();
  for (const w of o.watch ?? []) {
    queues.set(portKey(w), new QueueTrace(binNs));
    watchBySw.set(w.sw, [...(watchBySw.get(w.sw) ?? []), w.port]);
  }

  const out = runScenario({
    scenario,
    seed: o.seed,
    outDir: o.outDir,
    print: null,
    createSwitch: (env, cfg) => {
      const ports = watchBySw.get(cfg.name);
      if (ports === undefined) {
        const sw = createSwitch(env, cfg);
        switches.set(cfg.name, sw);
        return sw;
      }
      const traces = ports.map((p) => queues.get(`${cfg.name}:${p}`)!);
      let sw: Switch | null = null;
      const record = () => {
        const t = env.now();
        for (let i = 0; i < ports.length; i++) traces[i].update(t, sw!.queueBytes(ports[i]));
      };
      // A port dequeues its next frame in the same timer callback that sends the previous one,
      // so the queue is read after every timer callback and every received frame.
      const wrapped: FirmwareEnv = {
        now: () => env.now(),
        setTimer: (at, fn) =>
          env.setTimer(at, () => {
            fn();
            record();
          }),
        cancelTimer: (id) => env.cancelTimer(id),
        rng: env.rng,
        log: env.log,
        nextPacketId: () => env.nextPacketId(),
        send: (port, pkt) => env.send(port, pkt),
      };
      sw = createSwitch(wrapped, cfg);
      const receive = sw.receive.bind(sw);
      sw.receive = (port: number, pkt: Packet) => {
        receive(port, pkt);
        record();
      };
      switches.set(cfg.name, sw);
      return sw;
    },
    createNic: (env, cfg) => {
      const node = cfg.name;
      const acks = keepAcks ? byAck.get(node) : undefined;
      const wrapped: FirmwareEnv =
        acks === undefined
          ? env
          : {
              now: () => env.now(),
              setTimer: (at, fn) => env.setTimer(at, fn),
              cancelTimer: (id) => env.cancelTimer(id),
              rng: env.rng,
              log: env.log,
              nextPacketId: () => env.nextPacketId(),
              send: (port, pkt) => {
                const w = pkt.ext?.windowBytes ?? null;
                if (pkt.kind === FrameKind.Ack && w !== null) {
                  const t = env.now();
                  const f = pick(acks.get(pkt.destQp), t);
                  if (f !== undefined) {
                    f.ackNs.push(t);
                    f.ackWindow.push(w);
                  }
                }
                env.send(port, pkt);
              },
            };
      const nic = createNic(wrapped, cfg);
      const rx = byRx.get(node);
      if (keepRx && rx !== undefined) {
        const receive = nic.receive.bind(nic);
        nic.receive = (port: number, pkt: Packet) => {
          if (pkt.kind === FrameKind.Data) {
            const t = env.now();
            const f = pick(rx.get(pkt.destQp), t);
            if (f !== undefined) {
              const b = Math.floor(t / binNs);
              f.rx.ensure(b);
              f.rx.data[b] += pkt.payloadLen;
              if (Number.isNaN(f.firstRxNs)) f.firstRxNs = t;
              f.lastRxNs = t;
            }
          }
          receive(port, pkt);
        };
      }
      nics.set(node, nic);
      return nic;
    },
  });
  for (const q of queues.values()) q.carry(out.results.durationNs);
  return {
    out,
    topo: setup.topo,
    binNs,
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

/** The switch egress port that feeds host `host` (its last hop). */
export function lastHopOf(topo: Topology, host: string): WatchedPort {
  const h = topo.byName.get(host)!;
  return { sw: h.ports[0].peerNode, port: h.ports[0].peerPort };
}

/** The egress port of switch `a` toward neighbour `b`. */
export function portToward(topo: Topology, a: string, b: string): WatchedPort {
  const node = topo.byName.get(a)!;
  const p = node.ports.find((x) => x.peerNode === b);
  if (p === undefined) throw new Error(`${a} and ${b} are not linked`);
  return { sw: a, port: p.index };
}

// ------------------------------------------------------------------------------ measurements

/** Bins [from, to) of a time window (to a bin). */
function binRange(binNs: number, fromNs: number, toNs: number): [number, number] {
  return [Math.max(0, Math.round(fromNs / binNs)), Math.max(0, Math.round(toNs / binNs))];
}

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

/** Jain's fairness index of positive rates. */
export function jain(xs: number[]): number {
  const s = xs.reduce((a, b) => a + b, 0);
  const s2 = xs.reduce((a, b) => a + b * b, 0);
  return s2 > 0 ? (s * s) / (xs.length * s2) : 1;
}
