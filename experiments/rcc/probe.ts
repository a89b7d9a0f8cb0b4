/**
 * A virtual-time run of a scenario with RCC's measurement points attached through the probe API
 * (src/probe): the payload each flow delivers to its receiver NIC and the queue of watched switch
 * egress ports, kept per time bin, optionally the window every ACK carries, and the QPs' RCC
 * state (mode, PID entry time) read through `qpInspect`. The hooks only observe.
 */

import type { Scenario } from '../../src/config/scenario.js';
import { binRange, type QueueBins } from '../../src/probe/bins.js';
import { type FlowBins, tracer } from '../../src/probe/probe.js';
import { FrameKind } from '../../src/wire/packet.js';
import { binnedRun } from '../observed-run.js';
import { paperScenarios } from '../paper-scenario.js';
import type { PortRef } from '../ports.js';
import type { ReproContext } from '../types.js';

export interface FlowProbe extends FlowBins {
  /** ACKs the receiver sent (when asked for): time and assigned window (bytes). */
  ackNs: number[];
  ackWindow: number[];
}

export interface ProbeOptions extends ReproContext {
  watch?: PortRef[];
  /** Time bin of deliveries and queues, ns (default 100). */
  binNs?: number;
  /** Record ACK windows (default false). */
  acks?: boolean;
}

export type RccProbe = ReturnType<typeof probedRun>;

export function probedRun(scenario: Scenario, o: ProbeOptions) {
  const watch = o.watch ?? [];
  const ports = watch.map((w) => ({ node: w.sw, port: w.port }));
  let flows: FlowProbe[] = [];
  const { probe, out, nics } = binnedRun(scenario, { ...o, binNs: o.binNs ?? 100, ports }, (probe) => {
    flows = probe.flows.map((f) => Object.assign(f, { ackNs: [], ackWindow: [] }));
    // Receiver host → sender QPN (what its ACKs name) → flows; the latest started takes the ACK.
    const byAck = new Map<string, FlowProbe[]>();
    for (const f of flows)
      byAck.set(`${f.dst}:${f.srcQpn}`, [...(byAck.get(`${f.dst}:${f.srcQpn}`) ?? []), f]);
    const acks = tracer({
      nicTx: (host, t, pkt) => {
        const w = pkt.ext?.windowBytes ?? null;
        if (pkt.kind !== FrameKind.Ack || w === null) return;
        let f: FlowProbe | undefined;
        for (const c of byAck.get(`${host}:${pkt.destQp}`) ?? [])
          if (f === undefined || c.startNs <= t) f = c;
        if (f === undefined) return;
        f.ackNs.push(t);
        f.ackWindow.push(w);
      },
    });
    return o.acks === true ? acks : null;
  });
  return {
    out,
    binNs: probe.binNs,
    flows,
    /** The queues of the watched ports, in `watch` order. */
    queues: watch.map((w) => probe.port(w.sw, w.port)!.queue),
    /** The qpInspect of a flow's receiver and sender QP at the end of the run. */
    receiverState: (id: number) => nics.get(flows[id].dst)!.qpInspect(flows[id].dstQpn),
    senderState: (id: number) => nics.get(flows[id].src)!.qpInspect(flows[id].srcQpn),
  };
}

export const rccScenario = paperScenarios('rcc');

/** Goodput (payload bit/s) of a flow over [fromNs, toNs) (to a bin). */
export function goodputBps(p: RccProbe, f: FlowProbe, fromNs: number, toNs: number): number {
  const [a, b] = binRange(p.binNs, fromNs, toNs);
  return b > a ? (f.rx.sum(a, b) * 8e9) / ((b - a) * p.binNs) : 0;
}

/** Max and time-average queue over [fromNs, toNs) (to a bin). */
export function queueStats(tr: QueueBins, fromNs: number, toNs: number) {
  const [a, b] = binRange(tr.binNs, fromNs, toNs);
  let max = 0;
  for (let i = a; i < b; i++) max = Math.max(max, tr.max.get(i));
  return { maxBytes: max, meanBytes: b > a ? tr.area.sum(a, b) / ((b - a) * tr.binNs) : 0 };
}

export function queueMax(tr: QueueBins, fromNs: number, toNs: number): number {
  return queueStats(tr, fromNs, toNs).maxBytes;
}

/** Start of the first bin at or after `fromNs` in which the queue was ≤ `bytes` (NaN: none before `toNs`). */
export function firstTimeAtOrBelow(tr: QueueBins, bytes: number, fromNs: number, toNs: number): number {
  const [a, b] = binRange(tr.binNs, fromNs, toNs);
  for (let i = a; i < b; i++) if (tr.min.get(i) <= bytes) return i * tr.binNs;
  return Number.NaN;
}

/** Start of the first bin at or after `fromNs` in which the queue exceeded `bytes` (NaN: never). */
export function firstTimeAbove(tr: QueueBins, bytes: number, fromNs = 0): number {
  const a = Math.max(0, Math.floor(fromNs / tr.binNs));
  for (let i = a; i < tr.max.length; i++) if (tr.max.get(i) > bytes) return i * tr.binNs;
  return Number.NaN;
}

/** Time (bin start) of the queue's maximum in [fromNs, toNs). */
export function peakTime(tr: QueueBins, fromNs: number, toNs: number): number {
  const [a, b] = binRange(tr.binNs, fromNs, toNs);
  let best = a;
  for (let i = a; i < b; i++) if (tr.max.get(i) > tr.max.get(best)) best = i;
  return best * tr.binNs;
}
