/**
 * A virtual-time run of an MPCC scenario with measurement points attached for the reproduction
 * checks: exact queue traces of chosen switch egress ports (every enqueue and dequeue), a
 * time-weighted queue histogram of every switch egress port, the data arriving at receivers,
 * the INT of every ACK reaching a sender (for AC2 and for replaying the controller to time it),
 * INT stamps at a chosen port (AC8) and every window/rate change. Nothing here changes what the
 * firmware does: an extra switch plug-in (switch/cp.ts) only reads the queues as they change and
 * the INT stamps as they are written, and the NICs are watched through their trace hooks
 * (src/probe).
 */

import { createNic, type Nic, type RateChange } from '../../nic/api.js';
import type { Scenario } from '../../src/config/scenario.js';
import { observeNic, tracer } from '../../src/probe/probe.js';
import { type RunOutput, runScenario } from '../../src/runtime/run.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { Topology } from '../../src/topology/model.js';
import { hostPath } from '../../src/topology/path.js';
import type { Routes } from '../../src/topology/routing.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createSwitch, type Switch } from '../../switch/api.js';
import type { SwitchCp, SwitchCpIo } from '../../switch/cp.js';
import { loadPaperScenario } from '../paper-scenario.js';
import { type PortRef, portKey } from '../ports.js';

/** Queue of one port after every change: times (ns) and bytes (all priorities). */
export interface QueueTrace {
  t: number[];
  q: number[];
}

export interface DataArrival {
  node: string;
  srcIp: number;
  timeNs: number;
  /** Emulated frame size (wire bytes) and payload. */
  sizeBytes: number;
  payloadBytes: number;
}

export interface AckInt {
  node: string;
  qpn: number;
  timeNs: number;
  nhop: number;
  q: number[];
  n: number[];
  /** Payload bytes in flight after this ACK, as the control step saw them. */
  inflightBytes: number;
}

export interface IntStamp {
  timeNs: number;
  /** The hop just written. */
  q: number;
  n: number;
  /** Queue bytes of the port at that instant (read by the plug-in). */
  queueBytes: number;
  srcIp: number;
  dstIp: number;
  srcPort: number;
  destQp: number;
  pktId: number;
  nhop: number;
}

/** A data frame of an MPCC flow entering a stamp port's queue (the flow counter's touch). */
export interface Enqueue {
  timeNs: number;
  srcIp: number;
  dstIp: number;
  srcPort: number;
  destQp: number;
}

export interface ProbeOptions {
  outDir: string;
  seed?: number;
  /** Ports whose exact queue trace is kept. */
  watch?: PortRef[];
  /** Time-weighted histogram (1 KB bins) of every switch egress port's queue. */
  histogram?: boolean;
  /** Keep data arrivals at receivers (default true). */
  arrivals?: boolean;
  /** Keep the INT of every ACK at senders. */
  ackInt?: boolean;
  /** INT stamps at these ports (AC8), every switch when 'all'. */
  stamps?: PortRef[] | 'all';
  /** Every frame a NIC receives, before the NIC sees it (with the NIC, to read QP state). */
  onNicRx?: (node: string, nic: Nic, pkt: Packet, timeNs: number) => void;
  /** Right after a NIC handled a frame. */
  afterNicRx?: (node: string, nic: Nic, pkt: Packet, timeNs: number) => void;
}

export interface Probe {
  out: RunOutput;
  scenario: Scenario;
  topo: Topology;
  routes: Routes;
  hostIp: Map<string, number>;
  queues: Map<string, QueueTrace>;
  /** Per port "sw:port": seconds·… time (ns) spent with the queue in [k KB, (k+1) KB). */
  histogram: Map<string, Float64Array>;
  arrivals: DataArrival[];
  ackInts: AckInt[];
  stamps: Map<string, IntStamp[]>;
  enqueues: Map<string, Enqueue[]>;
  rateChanges: (RateChange & { node: string })[];
  nics: Map<string, Nic>;
  switches: Map<string, Switch>;
}

export const HISTOGRAM_BIN_BYTES = 1000;
const HISTOGRAM_BINS = 40_000;

/** A scenario of scenarios/papers/mpcc with --set-style overrides. */
export function mpccScenario(file: string, overrides: string[] = []): Scenario {
  return loadPaperScenario('mpcc', file, overrides);
}

/** The thesis' D_base of the path src→dst (docs/algorithms/mpcc.md; the HPCC convention), ns. */
export function baseRttOf(
  p: Probe | { topo: Topology; routes: Routes },
  src: string,
  dst: string,
  mtu = 1000,
): number {
  return hostPath(p.topo, p.routes, src, dst, mtu).hpccBaseRttNs;
}

export function probedRun(scenario: Scenario, o: ProbeOptions): Probe {
  const setup = setupRun(scenario, { seed: o.seed });
  const queues = new Map<string, QueueTrace>();
  for (const w of o.watch ?? []) queues.set(portKey(w), { t: [0], q: [0] });
  const histogram = new Map<string, Float64Array>();
  const histLast = new Map<string, { t: number; q: number }>();
  const arrivals: DataArrival[] = [];
  const ackInts: AckInt[] = [];
  const stamps = new Map<string, IntStamp[]>();
  const enqueues = new Map<string, Enqueue[]>();
  const stampAll = o.stamps === 'all';
  const stampPorts = new Set(o.stamps === undefined || o.stamps === 'all' ? [] : o.stamps.map(portKey));
  const rateChanges: (RateChange & { node: string })[] = [];
  const nics = new Map<string, Nic>();
  const switches = new Map<string, Switch>();
  const hostIp = new Map(setup.topo.hosts.map((h) => [h.name, h.ip]));
  const keepArrivals = o.arrivals !== false;
  const watchAny = queues.size > 0 || o.histogram === true;

  const observer = (io: SwitchCpIo): SwitchCp => {
    const name = io.switchName;
    const change = (port: number) => {
      const key = `${name}:${port}`;
      const now = io.now();
      const q = io.queueBytes(port);
      const tr = queues.get(key);
      if (tr !== undefined) {
        tr.t.push(now);
        tr.q.push(q);
      }
      if (o.histogram === true) {
        let h = histogram.get(key);
        let last = histLast.get(key);
        if (h === undefined || last === undefined) {
          h = new Float64Array(HISTOGRAM_BINS);
          last = { t: 0, q: 0 };
          histogram.set(key, h);
          histLast.set(key, last);
        }
        h[Math.min(HISTOGRAM_BINS - 1, Math.floor(last.q / HISTOGRAM_BIN_BYTES))] += now - last.t;
        last.t = now;
        last.q = q;
      }
    };
    const cp: SwitchCp = { name: 'mpcc-probe' };
    const stampAny = stampAll || stampPorts.size > 0;
    if (watchAny || stampAny) {
      cp.onEnqueue = (pkt, outPort) => {
        if (watchAny) change(outPort);
        if (!stampAny || pkt.kind !== FrameKind.Data || pkt.int === null || pkt.int.layout !== 'mpcc') return;
        const key = `${name}:${outPort}`;
        if (!stampAll && !stampPorts.has(key)) return;
        let list = enqueues.get(key);
        if (list === undefined) enqueues.set(key, (list = []));
        list.push({
          timeNs: io.now(),
          srcIp: pkt.srcIp,
          dstIp: pkt.dstIp,
          srcPort: pkt.srcPort,
          destQp: pkt.destQp,
        });
      };
    }
    if (watchAny || stampAny) {
      cp.onDequeue = (pkt, outPort) => {
        if (watchAny) change(outPort);
        const key = `${name}:${outPort}`;
        const st = pkt.int;
        if (pkt.kind !== FrameKind.Data || st === null || st.layout !== 'mpcc') return;
        if (!stampAll && !stampPorts.has(key)) return;
        const hop = st.nhop <= 5 ? st.hops[st.nhop - 1] : undefined;
        let list = stamps.get(key);
        if (list === undefined) stamps.set(key, (list = []));
        list.push({
          timeNs: io.now(),
          q: hop?.qlenBytes ?? -1,
          n: hop?.activeFlows ?? -1,
          queueBytes: io.queueBytes(outPort),
          srcIp: pkt.srcIp,
          dstIp: pkt.dstIp,
          srcPort: pkt.srcPort,
          destQp: pkt.destQp,
          pktId: pkt.id,
          nhop: st.nhop,
        });
      };
    }
    return cp;
  };

  // The INT of an ACK, recorded as it arrives and completed once the NIC handled it.
  let pendingAck: AckInt | null = null;
  const nicTrace = tracer({
    nicRx: (node, t, pkt) => {
      o.onNicRx?.(node, nics.get(node)!, pkt, t);
      if (keepArrivals && pkt.kind === FrameKind.Data)
        arrivals.push({
          node,
          srcIp: pkt.srcIp,
          timeNs: t,
          sizeBytes: pkt.sizeBytes,
          payloadBytes: pkt.payloadLen,
        });
      if (o.ackInt === true && pkt.kind === FrameKind.Ack && pkt.int !== null && pkt.int.layout === 'mpcc') {
        const hops = pkt.int.hops;
        pendingAck = {
          node,
          qpn: pkt.destQp,
          timeNs: t,
          nhop: pkt.int.nhop,
          q: hops.map((h) => h.qlenBytes),
          n: hops.map((h) => h.activeFlows),
          inflightBytes: 0,
        };
        ackInts.push(pendingAck);
      }
    },
    nicRxDone: (node, t, pkt) => {
      // The step ran while the NIC handled the ACK; its in-flight input is in the QP's last step record.
      const rec = pendingAck;
      pendingAck = null;
      const nic = nics.get(node)!;
      if (rec !== null) rec.inflightBytes = nic.qpInspect(rec.qpn).stepInflightBytes ?? 0;
      o.afterNicRx?.(node, nic, pkt, t);
    },
  });

  const out = runScenario({
    scenario,
    seed: o.seed,
    outDir: o.outDir,
    print: null,
    trace: nicTrace,
    createSwitch: (env, cfg) => {
      const sw = createSwitch(env, { ...cfg, cp: [...(cfg.cp ?? []), observer] });
      switches.set(cfg.name, sw);
      return sw;
    },
    createNic: (env, cfg) => {
      const node = cfg.name;
      const nic = createNic(env, observeNic(cfg, { onRateChange: (c) => rateChanges.push({ ...c, node }) }));
      nics.set(node, nic);
      return nic;
    },
  });
  // Close the histogram at the run's end.
  if (o.histogram === true) {
    const end = out.results.durationNs;
    for (const [key, last] of histLast) {
      const h = histogram.get(key)!;
      h[Math.min(HISTOGRAM_BINS - 1, Math.floor(last.q / HISTOGRAM_BIN_BYTES))] += Math.max(0, end - last.t);
      last.t = end;
    }
  }
  return {
    out,
    scenario,
    topo: setup.topo,
    routes: setup.routes,
    hostIp,
    queues,
    histogram,
    arrivals,
    ackInts,
    stamps,
    enqueues,
    rateChanges,
    nics,
    switches,
  };
}

// ------------------------------------------------------------------------------ measurements

/** Time average of a step-function queue trace over [fromNs, toNs). */
export function timeAverage(tr: QueueTrace, fromNs: number, toNs: number): number {
  let area = 0;
  const { t, q } = tr;
  for (let i = 0; i < t.length; i++) {
    const a = Math.max(fromNs, t[i]);
    const b = Math.min(toNs, i + 1 < t.length ? t[i + 1] : toNs);
    if (b > a) area += q[i] * (b - a);
  }
  return area / (toNs - fromNs);
}

/** Largest queue in [fromNs, toNs] and the first time it was reached. */
export function peakOf(
  tr: QueueTrace,
  fromNs = 0,
  toNs = Number.POSITIVE_INFINITY,
): { q: number; t: number } {
  let best = { q: -1, t: fromNs };
  for (let i = 0; i < tr.t.length; i++) {
    if (tr.t[i] < fromNs || tr.t[i] > toNs) continue;
    if (tr.q[i] > best.q) best = { q: tr.q[i], t: tr.t[i] };
  }
  return best;
}

/** First time ≥ fromNs at which the queue is ≤ `levelBytes` (null: never). */
export function firstAtOrBelow(tr: QueueTrace, fromNs: number, levelBytes: number): number | null {
  for (let i = 0; i < tr.t.length; i++) {
    const end = i + 1 < tr.t.length ? tr.t[i + 1] : Number.POSITIVE_INFINITY;
    if (end <= fromNs) continue;
    if (tr.q[i] <= levelBytes) return Math.max(fromNs, tr.t[i]);
  }
  return null;
}

/** First time the queue exceeds 0. */
export function firstQueued(tr: QueueTrace): number | null {
  for (let i = 0; i < tr.t.length; i++) if (tr.q[i] > 0) return tr.t[i];
  return null;
}

/**
 * Convergence after the peak in [fromNs, toNs] (docs/algorithms/mpcc.md, AC3): T_conv = first instant after the
 * peak with Q ≤ level, measured from `fromNs`.
 */
export function convergence(
  tr: QueueTrace,
  fromNs: number,
  toNs: number,
  levelBytes: number,
): { peakBytes: number; peakNs: number; convNs: number | null } {
  const pk = peakOf(tr, fromNs, toNs);
  const t = firstAtOrBelow(tr, pk.t, levelBytes);
  return { peakBytes: pk.q, peakNs: pk.t, convNs: t === null || t > toNs ? null : t - fromNs };
}

/** Wire bytes each source delivered to `dst` in [fromNs, toNs). */
export function bytesBySource(p: Probe, dst: string, fromNs: number, toNs: number): Map<number, number> {
  const m = new Map<number, number>();
  for (const a of p.arrivals) {
    if (a.node !== dst || a.timeNs < fromNs || a.timeNs >= toNs) continue;
    m.set(a.srcIp, (m.get(a.srcIp) ?? 0) + a.sizeBytes);
  }
  return m;
}

/** Least-squares line through (xs, ys): its slope and the means it passes through. */
export function lsFit(xs: number[], ys: number[]): { slope: number; mx: number; my: number } {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let k = 0; k < n; k++) {
    sxy += (xs[k] - mx) * (ys[k] - my);
    sxx += (xs[k] - mx) ** 2;
  }
  return { slope: sxy / sxx, mx, my };
}

/** Least-squares slope of the queue trace over [fromNs, toNs], bytes per ns (samples every `stepNs`). */
export function queueSlope(tr: QueueTrace, fromNs: number, toNs: number, stepNs = 100): number {
  const xs: number[] = [];
  const ys: number[] = [];
  let i = 0;
  for (let t = fromNs; t <= toNs; t += stepNs) {
    while (i + 1 < tr.t.length && tr.t[i + 1] <= t) i++;
    xs.push(t);
    ys.push(tr.q[i]);
  }
  return lsFit(xs, ys).slope;
}

/** Queue value at time t (step function). */
export function queueAt(tr: QueueTrace, tNs: number): number {
  let lo = 0;
  let hi = tr.t.length - 1;
  if (tNs < tr.t[0]) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (tr.t[mid] <= tNs) lo = mid;
    else hi = mid - 1;
  }
  return tr.q[lo];
}
