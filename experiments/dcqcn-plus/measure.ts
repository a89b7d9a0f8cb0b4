/**
 * Measurements of a time window of a virtual-time run for the DCQCN+ checks (docs/algorithms/
 * dcqcn-plus.md "Measurements used by the checks"; "DCQCN+: Taming Large-scale Incast Congestion
 * in RDMA over Ethernet Networks", §V): the bottleneck egress queue (exact time average, and percentiles of 10 µs samples), XOFF
 * transitions the switch sends, link utilisation and goodput into the receiver. Everything is
 * read through the probe API (src/probe), so the run is the one `rocelab run` makes.
 */

import type { Scenario } from '../../src/config/scenario.js';
import { binRange } from '../../src/probe/bins.js';
import { tracer } from '../../src/probe/probe.js';
import { quantileNearestRank } from '../../src/stats/aggregate.js';
import { FrameKind } from '../../src/wire/packet.js';
import { binnedRun } from '../observed-run.js';
import { paperScenarios } from '../paper-scenario.js';

export const paperScenario = paperScenarios('dcqcn-plus');

/** Where to measure: the bottleneck egress port (the receiver's link) and the receiver. */
export interface ProbeSpec {
  switchName: string;
  port: number;
  receiver: string;
  /** Queue sampling period for percentiles (10 µs, docs/algorithms/dcqcn-plus.md); also the probe's bin. */
  sampleNs: number;
}

/**
 * Run `scenario` in virtual time with the probe attached and measure every window (window edges
 * on multiples of `probe.sampleNs`). Queue samples are the queue just before each sampling
 * instant, taken from the exact change log kept only around the windows.
 */
export function runMeasured(
  scenario: Scenario,
  probe: ProbeSpec,
  windows: { fromNs: number; toNs: number }[],
  opts: { outDir: string; seed?: number },
) {
  const binNs = probe.sampleNs;
  const xoffTimes: number[] = [];
  // XOFF state per (switch, port, priority): a pause frame is a transition only when sent from XON.
  const xoff = new Set<string>();
  // Queue changes inside the windows, as (t, bytes) pairs, and the value before each window.
  const changes: number[] = [];
  const startQ = windows.map(() => 0);
  const watch = tracer({
    switchTx: (name, t, port, pkt) => {
      const pfc = pkt.kind === FrameKind.Pfc ? pkt.pfc : null;
      if (pfc === null) return;
      for (let prio = 0; prio < 8; prio++) {
        if (((pfc.classEnable >> prio) & 1) === 0) continue;
        const key = `${name}:${port}:${prio}`;
        if ((pfc.quanta[prio] ?? 0) === 0) xoff.delete(key);
        else if (!xoff.has(key)) {
          xoff.add(key);
          xoffTimes.push(t);
        }
      }
    },
    queue: (name, t, port, bytes) => {
      if (name !== probe.switchName || port !== probe.port) return;
      let keep = false;
      windows.forEach((w, i) => {
        if (t < w.fromNs) startQ[i] = bytes;
        else if (t < w.toNs) keep = true;
      });
      if (keep) changes.push(t, bytes);
    },
  });
  const ports = [{ node: probe.switchName, port: probe.port }];
  const { out, probe: bins, setup } = binnedRun(scenario, { ...opts, binNs, ports }, () => watch);
  const lineRateBps = setup.topo.byName.get(probe.switchName)!.ports[probe.port].rateBps;
  const port = bins.port(probe.switchName, probe.port)!;
  const receiverFlows = bins.flows.filter((f) => f.dst === probe.receiver);
  const measures = windows.map((w, k) => {
    if (w.toNs > out.results.durationNs)
      throw new Error(`window [${w.fromNs}, ${w.toNs}) ns lies beyond the run`);
    const [a, b] = binRange(binNs, w.fromNs, w.toNs);
    const dt = w.toNs - w.fromNs;
    const capacityBytes = (lineRateBps * dt) / 8e9;
    const samples: number[] = [];
    let q = startQ[k];
    let i = 0;
    while (i < changes.length && changes[i] < w.fromNs) i += 2;
    for (let t = w.fromNs; t < w.toNs; t += probe.sampleNs) {
      while (i < changes.length && changes[i] < t) {
        q = changes[i + 1];
        i += 2;
      }
      samples.push(q);
    }
    return {
      /** Time average of the bottleneck egress queue over the window (exact integral). */
      meanQueueBytes: port.queue.area.sum(a, b) / dt,
      p99QueueBytes: quantileNearestRank(samples, 0.99),
      /** XOFF transitions (not refreshes) the switch sent on any port in the window. */
      xoff: xoffTimes.filter((t) => t >= w.fromNs && t < w.toNs).length,
      /** Wire bytes out of the bottleneck port ÷ (line rate × window). */
      utilisation: port.tx.sum(a, b) / capacityBytes,
      /** Payload delivered to the receiver ÷ (line rate × window). */
      goodput: receiverFlows.reduce((s, f) => s + f.rx.sum(a, b), 0) / capacityBytes,
    };
  });
  return {
    windows: measures,
    /** The time of the run's last XOFF transition (null: none). */
    lastXoffNs: xoffTimes.length > 0 ? xoffTimes[xoffTimes.length - 1] : null,
    /** Number of XOFF transitions at or after `t`. */
    xoffSince: (t: number) => xoffTimes.filter((x) => x >= t).length,
    wallMs: out.wallMs,
  };
}

export type RunMeasure = ReturnType<typeof runMeasured>;
export type WindowMeasure = RunMeasure['windows'][number];

export function fmtKB(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(0)} KB`;
}
