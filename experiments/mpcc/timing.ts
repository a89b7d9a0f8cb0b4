/**
 * Controller time per step (AC4, AC9d). Firmware cannot read a clock, so we time it here: the
 * INT of every ACK a sender received in a virtual-time run is recorded (probe `ackInt`), and the
 * same sequence is replayed through the firmware's pure `controlStep` with the flow's path
 * facts, timing each call with the process's high-resolution clock. The controller's state
 * depends only on that sequence, so the replay makes exactly the decisions the run made (checked:
 * the replayed final window equals the live QP's).
 */

import {
  controlStep,
  initMpccState,
  type MpccHop,
  type MpccPath,
  type MpccState,
} from '../../src/cc/mpcc/controller.js';
import type { MpccParams } from '../../src/cc/mpcc/params.js';
import { mpccPath } from '../../src/cc/mpcc/rp.js';
import { nicFor } from '../../src/config/scenario.js';
import { percentileSorted } from '../../src/stats/aggregate.js';
import { hostPath } from '../../src/topology/path.js';
import { flowInfoOf } from '../ports.js';
import type { Probe } from './probe.js';

export interface ReplayFlow {
  node: string;
  qpn: number;
  path: MpccPath;
  steps: { nhop: number; hops: MpccHop[]; inflightBytes: number }[];
  /** The live QP's window at the end of the run (null when unknown). */
  liveWindowBytes: number | null;
}

/** The recorded ACK INT of each sender QP with its path (one flow per sender QP). */
export function replayFlows(p: Probe, params: MpccParams): ReplayFlow[] {
  const byQp = new Map<string, ReplayFlow>();
  for (const a of p.ackInts) {
    const key = `${a.node}:${a.qpn}`;
    let f = byQp.get(key);
    if (f === undefined) {
      const flow = p.out.results.flows.find((x) => x.src === a.node);
      if (flow === undefined) continue;
      const mtu = nicFor(p.scenario, a.node).mtuBytes;
      const hp = hostPath(p.topo, p.routes, a.node, flow.dst, mtu);
      const live = p.nics.get(a.node)?.qpInspect(a.qpn).mpccWindowBytes;
      f = {
        node: a.node,
        qpn: a.qpn,
        path: mpccPath(flowInfoOf(hp, mtu, a.qpn), params),
        steps: [],
        liveWindowBytes: live ?? null,
      };
      byQp.set(key, f);
    }
    f.steps.push({ nhop: a.nhop, hops: a.hops, inflightBytes: a.inflightBytes });
  }
  return [...byQp.values()];
}

function replayOnce(flows: ReplayFlow[], params: MpccParams, perStep: Float64Array | null): MpccState[] {
  const states: MpccState[] = [];
  let k = 0;
  for (const f of flows) {
    const s = initMpccState(f.path, params);
    for (const st of f.steps) {
      if (perStep !== null) {
        const t0 = process.hrtime.bigint();
        controlStep(s, f.path, st.hops, st.nhop, params, st.inflightBytes);
        perStep[k++] = Number(process.hrtime.bigint() - t0);
      } else controlStep(s, f.path, st.hops, st.nhop, params, st.inflightBytes);
    }
    states.push(s);
  }
  return states;
}

const quantile = (sorted: Float64Array, q: number): number => percentileSorted(sorted, q) ?? Number.NaN;

/** Time the controller over the recorded steps (`rounds` timed passes after a warm-up pass). */
export function timeReplay(flows: ReplayFlow[], params: MpccParams, rounds = 3) {
  const n = flows.reduce((a, f) => a + f.steps.length, 0);
  const states = replayOnce(flows, params, null);
  let faithful = true;
  flows.forEach((f, i) => {
    if (f.liveWindowBytes !== null && Math.abs(states[i].windowBytes - f.liveWindowBytes) > 1e-6)
      faithful = false;
  });
  const per = new Float64Array(n);
  const all: number[] = [];
  for (let r = 0; r < rounds; r++) {
    replayOnce(flows, params, per);
    for (const v of per) all.push(v);
  }
  const sorted = Float64Array.from(all).sort();
  const o = new Float64Array(2000);
  for (let i = 0; i < o.length; i++) {
    const t0 = process.hrtime.bigint();
    o[i] = Number(process.hrtime.bigint() - t0);
  }
  o.sort();
  let fast = 0;
  let dense = 0;
  let relaxed = 0;
  for (const s of states) {
    fast += s.fastSteps;
    dense += s.denseSteps;
    relaxed += s.relaxedSteps;
  }
  return {
    steps: n,
    /** Per-step wall time, ns (clock overhead included; see `clockOverheadNs`). */
    medianNs: quantile(sorted, 0.5),
    p99Ns: quantile(sorted, 0.99),
    meanNs: all.reduce((a, b) => a + b, 0) / Math.max(1, all.length),
    /** Mean over steps of each step's fastest timed pass, ns (see compareMeanNs). */
    stepMeanNs: compareMeanNs(flows, [params], rounds)[0],
    clockOverheadNs: quantile(o, 0.5),
    fastFraction: fast / Math.max(1, n),
    denseFraction: dense / Math.max(1, n),
    infeasibleFraction: relaxed / Math.max(1, n),
    /** Replayed final windows equal the live QPs' (the replay made the run's decisions). */
    faithful,
  };
}

/**
 * Mean step time of each parameter set on the same recorded steps, ns: every step is timed in
 * `rounds` interleaved passes (the order of the sets rotates) and its fastest time kept, then
 * averaged. The replay is deterministic, so a step does the same work in every pass; keeping its
 * minimum drops what preemption, other processes and garbage collection add on a shared machine.
 * Includes the clock read (`clockOverheadNs` of timeReplay), the same for every set.
 */
export function compareMeanNs(flows: ReplayFlow[], sets: MpccParams[], rounds = 12): number[] {
  const n = flows.reduce((a, f) => a + f.steps.length, 0);
  for (const p of sets) replayOnce(flows, p, null);
  const mins = sets.map(() => new Float64Array(n).fill(Number.POSITIVE_INFINITY));
  const per = new Float64Array(n);
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < sets.length; k++) {
      const i = (r + k) % sets.length;
      replayOnce(flows, sets[i], per);
      const m = mins[i];
      for (let j = 0; j < n; j++) if (per[j] < m[j]) m[j] = per[j];
    }
  return mins.map((m) => m.reduce((a, b) => a + b, 0) / Math.max(1, n));
}
