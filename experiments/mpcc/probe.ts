/**
 * A virtual-time run of an MPCC scenario with measurement points attached for the reproduction
 * checks, all read through the firmware's trace hooks (src/probe): exact queue traces of chosen
 * switch egress ports (every change), a time-weighted queue histogram of every switch egress
 * port, the data arriving at receivers, the INT of every ACK reaching a sender (for AC2 and for
 * replaying the controller to time it) and every window/rate change. Nothing here changes what
 * the firmware does, so the run is the one `rocelab run` makes (unless a check adds a plug-in).
 */

import type { Nic } from '../../nic/api.js';
import type { MpccHop } from '../../src/cc/mpcc/controller.js';
import type { Scenario } from '../../src/config/scenario.js';
import { tracer } from '../../src/probe/probe.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { Topology } from '../../src/topology/model.js';
import { hostPath } from '../../src/topology/path.js';
import type { Routes } from '../../src/topology/routing.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { type ObserveOptions, observedRun } from '../observed-run.js';
import { paperScenarios } from '../paper-scenario.js';
import { type PortRef, portKey } from '../ports.js';
import type { ReproContext } from '../types.js';

/** Queue of one port after every change: times (ns) and bytes (all priorities). */
export interface QueueTrace {
  t: number[];
  q: number[];
}

export interface ProbeOptions extends ReproContext {
  /** Ports whose exact queue trace is kept. */
  watch?: PortRef[];
  /** Time-weighted histogram (1 KB bins) of every switch egress port's queue. */
  histogram?: boolean;
  /** Keep data arrivals at receivers (default true). */
  arrivals?: boolean;
  /** Keep the INT of every ACK at senders. */
  ackInt?: boolean;
  /** A switch plug-in added to every switch (AC8 reads the INT stamps at dequeue). */
  cp?: SwitchCpFactory;
  /** Every frame a NIC receives, before the NIC sees it (with the NIC, to read QP state). */
  onNicRx?: (node: string, nic: Nic, pkt: Packet) => void;
  /** Right after a NIC handled a frame. */
  afterNicRx?: (node: string, nic: Nic, pkt: Packet) => void;
  /** The engine's progress (ObserveOptions.onProgress). */
  onProgress?: ObserveOptions['onProgress'];
}

export const HISTOGRAM_BIN_BYTES = 1000;
export const HISTOGRAM_BINS = 40_000;

export const mpccScenario = paperScenarios('mpcc');

/** The thesis' D_base of the path src→dst (docs/algorithms/mpcc.md; the HPCC convention), ns. */
export function baseRttOf(p: { topo: Topology; routes: Routes }, src: string, dst: string): number {
  return hostPath(p.topo, p.routes, src, dst, 1000).hpccBaseRttNs;
}

/** Time spent at `last.q` since `last.t`, added to its 1 KB bin of `h`. */
function histAdd(h: Float64Array, last: { t: number; q: number }, nowNs: number): void {
  h[Math.min(HISTOGRAM_BINS - 1, Math.floor(last.q / HISTOGRAM_BIN_BYTES))] += nowNs - last.t;
}

export type Probe = ReturnType<typeof probedRun>;

export function probedRun(scenario: Scenario, o: ProbeOptions) {
  const setup = setupRun(scenario, { seed: o.seed });
  const queues = new Map<string, QueueTrace>();
  for (const w of o.watch ?? []) queues.set(portKey(w), { t: [0], q: [0] });
  const histogram = new Map<string, Float64Array>();
  const histLast = new Map<string, { t: number; q: number }>();
  /** Data at receivers (`sizeBytes`: the emulated frame, wire bytes). */
  const arrivals: { node: string; srcIp: number; timeNs: number; sizeBytes: number }[] = [];
  /** The INT of ACKs at senders; `inflightBytes`: payload in flight after it, as the control step saw it. */
  const ackInts: {
    node: string;
    qpn: number;
    timeNs: number;
    nhop: number;
    hops: MpccHop[];
    inflightBytes: number;
  }[] = [];
  const windows: number[] = [];
  const nics = new Map<string, Nic>();
  const keepArrivals = o.arrivals !== false;

  // The INT of an ACK, recorded as it arrives and completed once the NIC handled it.
  let pendingAck: (typeof ackInts)[number] | null = null;
  const own = tracer({
    queue:
      queues.size === 0 && o.histogram !== true
        ? undefined
        : (name, t, port, q) => {
            const key = `${name}:${port}`;
            const tr = queues.get(key);
            if (tr !== undefined) {
              tr.t.push(t);
              tr.q.push(q);
            }
            if (o.histogram !== true) return;
            let h = histogram.get(key);
            let last = histLast.get(key);
            if (h === undefined || last === undefined) {
              histogram.set(key, (h = new Float64Array(HISTOGRAM_BINS)));
              histLast.set(key, (last = { t: 0, q: 0 }));
            }
            histAdd(h, last, t);
            last.t = t;
            last.q = q;
          },
    nicRx: (node, t, pkt) => {
      o.onNicRx?.(node, nics.get(node)!, pkt);
      if (keepArrivals && pkt.kind === FrameKind.Data)
        arrivals.push({ node, srcIp: pkt.srcIp, timeNs: t, sizeBytes: pkt.sizeBytes });
      if (o.ackInt === true && pkt.kind === FrameKind.Ack && pkt.int !== null && pkt.int.layout === 'mpcc') {
        pendingAck = {
          node,
          qpn: pkt.destQp,
          timeNs: t,
          nhop: pkt.int.nhop,
          hops: pkt.int.hops.map((h) => ({ qlenBytes: h.qlenBytes, activeFlows: h.activeFlows })),
          inflightBytes: 0,
        };
        ackInts.push(pendingAck);
      }
    },
    nicRxDone: (node, _t, pkt) => {
      // The step ran while the NIC handled the ACK; its in-flight input is in the QP's last step record.
      const rec = pendingAck;
      pendingAck = null;
      const nic = nics.get(node)!;
      if (rec !== null) rec.inflightBytes = nic.qpInspect(rec.qpn).stepInflightBytes ?? 0;
      o.afterNicRx?.(node, nic, pkt);
    },
  });

  const { out } = observedRun(scenario, {
    seed: o.seed,
    outDir: o.outDir,
    trace: own,
    onProgress: o.onProgress,
    cpAfter: o.cp === undefined ? [] : [o.cp],
    nics,
    nicObserver: () => ({
      onRateChange: (c) => {
        if (c.windowBytes !== null) windows.push(c.windowBytes);
      },
    }),
  });
  // Close the histogram at the run's end.
  for (const [key, last] of histLast)
    histAdd(histogram.get(key)!, last, Math.max(last.t, out.results.durationNs));
  return {
    out,
    scenario,
    topo: setup.topo,
    routes: setup.routes,
    hostIp: new Map(setup.topo.hosts.map((h) => [h.name, h.ip])),
    queues,
    /** Per port "sw:port": time (ns) spent with the queue in [k KB, (k+1) KB). */
    histogram,
    arrivals,
    ackInts,
    /** Every window an MPCC QP applied, bytes. */
    windows,
    nics,
  };
}

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

/** First time the queue exceeds 0. */
export function firstQueued(tr: QueueTrace): number | null {
  for (let i = 0; i < tr.t.length; i++) if (tr.q[i] > 0) return tr.t[i];
  return null;
}

/**
 * Convergence after the peak in [fromNs, toNs] (docs/algorithms/mpcc.md, AC3): the largest queue
 * there and the first time it was reached; T_conv = the first instant after it with Q ≤ level,
 * measured from `fromNs` (null: not within the window).
 */
export function convergence(tr: QueueTrace, fromNs: number, toNs: number, levelBytes: number) {
  const { t, q } = tr;
  let peakBytes = -1;
  let peakNs = fromNs;
  for (let i = 0; i < t.length; i++)
    if (t[i] >= fromNs && t[i] <= toNs && q[i] > peakBytes) {
      peakBytes = q[i];
      peakNs = t[i];
    }
  for (let i = 0; i < t.length; i++) {
    const end = i + 1 < t.length ? t[i + 1] : Number.POSITIVE_INFINITY;
    if (end <= peakNs || q[i] > levelBytes) continue;
    const at = Math.max(peakNs, t[i]);
    return { peakBytes, peakNs, convNs: at > toNs ? null : at - fromNs };
  }
  return { peakBytes, peakNs, convNs: null };
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

/** Least-squares slope of the queue trace over [fromNs, toNs], bytes per ns (samples every 100 ns). */
export function queueSlope(tr: QueueTrace, fromNs: number, toNs: number): number {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let t = fromNs; t <= toNs; t += 100) {
    xs.push(t);
    ys.push(queueAt(tr, t));
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
