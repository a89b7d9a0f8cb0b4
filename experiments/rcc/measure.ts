/**
 * Shared quantities and analyses of RCC's checks: the spec states everything in units of
 * T = T_base and BDP = C·T, with eff = payload / frame bytes and "MTU" on the wire = one full
 * data frame; these helpers derive them from a scenario and evaluate the join/leave and
 * incast criteria on a probe.
 */

import { configuredBaseOwdNs, dataFrameBytes, payloadEfficiency } from '../../src/cc/rcc/np.js';
import type { Scenario } from '../../src/config/scenario.js';
import { nicFor } from '../../src/config/scenario.js';
import { scenarioTopology } from '../../src/runtime/scenario-setup.js';
import { type HostPath, hostPath } from '../../src/topology/path.js';
import { computeRoutes } from '../../src/topology/routing.js';
import { flowInfoOf, jain, type PortRef } from '../ports.js';
import { type FlowProbe, goodputBps, type RccProbe } from './probe.js';

/** Switch egress ports a flow crosses (the path hostPath and the NIC's path info describe). */
export function egressPorts(path: HostPath): PortRef[] {
  return path.links.slice(1).map((l, i) => ({ sw: path.links[i].peerNode, port: l.index }));
}

export type PathScale = ReturnType<typeof pathScale>;

export function pathScale(s: Scenario, src: string, dst: string) {
  const topo = scenarioTopology(s);
  const mtu = nicFor(s, src).mtuBytes;
  const path = hostPath(topo, computeRoutes(topo), src, dst, mtu);
  const tNs = Math.round(path.baseRttNs);
  const lineRateBps = path.links[path.links.length - 1].rateBps;
  const baseOwdNs = configuredBaseOwdNs(flowInfoOf(path, mtu));
  return {
    /** C, bit/s (the receiver's link). */
    lineRateBps,
    /** T: the unloaded RTT as the NIC gets it, ns. */
    tNs,
    /** BDP = C·T in bytes on the wire. */
    bdpBytes: (lineRateBps * tNs) / 8e9,
    eff: payloadEfficiency(mtu),
    /** One full data frame on the wire (the spec's MTU in queue terms). */
    frameBytes: dataFrameBytes(mtu),
    /** Base one-way delay of a full data packet, ns. */
    baseOwdNs,
    /** The switch egress ports on the path. */
    ports: egressPorts(path),
  };
}

export const gbps = (bps: number, digits = 1) => `${(bps / 1e9).toFixed(digits)}`;
export const kb = (bytes: number, digits = 1) => `${(bytes / 1000).toFixed(digits)} KB`;
export const inT = (ns: number, t: number, digits = 1) => `${(ns / t).toFixed(digits)}T`;

/** A flow's RCC log at the receiver: did its (last) message enter PID, when, and its class (0 none, 1 last-hop C1, 2 in-network C2). */
export function modeOf(p: RccProbe, flow: number) {
  const s = p.receiverState(flow);
  const active = s.rccActive === 1;
  const cls = active ? s.rccClass : s.rccLastMsgClass;
  const entry = active ? s.rccPidEntryNs : s.rccLastMsgPidEntryNs;
  return { pid: cls === 2 || (s.rccPidMessages ?? 0) > 0, pidEntryNs: entry >= 0 ? entry : null, cls };
}

export const className = (c: number) => (c === 2 ? 'C2' : c === 1 ? 'C1' : '—');

/** Completion times of flows sharing one bottleneck of `rateBytesPerNs` equally (processor sharing). */
export function processorSharingEnds(flows: { startNs: number; bytes: number }[], rateBytesPerNs: number) {
  const left = flows.map((f) => f.bytes);
  const ends = flows.map(() => Number.NaN);
  let t = 0;
  for (;;) {
    const active = flows.map((_f, i) => i).filter((i) => flows[i].startNs <= t && Number.isNaN(ends[i]));
    const nextStart = Math.min(
      ...flows.filter((f, i) => f.startNs > t && Number.isNaN(ends[i])).map((f) => f.startNs),
    );
    if (active.length === 0) {
      if (!Number.isFinite(nextStart)) return ends;
      t = nextStart;
      continue;
    }
    const share = rateBytesPerNs / active.length;
    const firstDone = Math.min(...active.map((i) => left[i] / share));
    const dt = Math.min(firstDone, nextStart - t);
    for (const i of active) {
      left[i] -= share * dt;
      if (left[i] <= 1e-6) ends[i] = t + dt;
    }
    t += dt;
  }
}

/** A join or leave of a flow at time `t`. */
export type PhaseEvent = { t: number; event: 'join' | 'leave'; flow: number };
/** From one event (what started the phase) to the next, with the flows active in it. */
export type Phase = Omit<PhaseEvent, 't'> & { fromNs: number; toNs: number; active: number[] };

/**
 * Phases between joins and leaves as the receiver sees them: a flow joins with its first packet
 * and leaves with its last one at the receiver (RCC re-assigns windows from there).
 */
export function phases(p: RccProbe): Phase[] {
  const ev: PhaseEvent[] = [];
  p.flows.forEach((f, i) => {
    if (!Number.isNaN(f.firstRxNs)) ev.push({ t: f.firstRxNs, event: 'join', flow: i });
    if (!Number.isNaN(f.lastRxNs)) ev.push({ t: f.lastRxNs, event: 'leave', flow: i });
  });
  return phasesOf(ev, p.out.results.durationNs);
}

/** The phases from each join or leave to the next event (or `endNs`) while some flow is active. */
export function phasesOf(ev: PhaseEvent[], endNs: number): Phase[] {
  ev.sort((a, b) => a.t - b.t);
  const active = new Set<number>();
  const out: Phase[] = [];
  ev.forEach((e, k) => {
    if (e.event === 'join') active.add(e.flow);
    else active.delete(e.flow);
    const next = ev[k + 1]?.t ?? endNs;
    if (active.size > 0)
      out.push({ fromNs: e.t, toNs: next, event: e.event, flow: e.flow, active: [...active] });
  });
  return out;
}

/**
 * Time after the phase began from which every active flow's goodput over T-long windows
 * (sliding by T/4) stays within `tol` of `targetBps` until the phase ends (minus one window).
 * NaN when it never settles.
 */
export function settleNs(p: RccProbe, ph: Phase, targetBps: number, tol: number, tNs: number): number {
  const step = tNs / 4;
  const lastStart = ph.toNs - tNs;
  let settled = Number.NaN;
  for (let t = ph.fromNs; t <= lastStart; t += step) {
    const ok = ph.active.every((i) => {
      const g = goodputBps(p, p.flows[i], t, t + tNs);
      return Math.abs(g - targetBps) <= tol * targetBps;
    });
    if (!ok) settled = Number.NaN;
    else if (Number.isNaN(settled)) settled = t;
  }
  return settled - ph.fromNs;
}

/** Smallest Jain index over consecutive `winNs` windows of a phase's steady part [from + skip, to). */
export function minJain(p: RccProbe, ph: Phase, skipNs: number, winNs: number): number {
  let min = 1;
  for (let t = ph.fromNs + skipNs; t + winNs <= ph.toNs; t += winNs)
    min = Math.min(min, jain(ph.active.map((i) => goodputBps(p, p.flows[i], t, t + winNs))));
  return min;
}

/** Aggregate goodput of some flows over a window. */
export function aggregateBps(p: RccProbe, flows: FlowProbe[], fromNs: number, toNs: number): number {
  return flows.reduce((a, f) => a + goodputBps(p, f, fromNs, toNs), 0);
}
