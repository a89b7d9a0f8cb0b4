/**
 * Shared set-ups of the baseline end-to-end tests: the switch settings each algorithm is run with in the HPCC
 * simulator (run.py presets; docs/algorithms/<algorithm>.md "Parameters"), and 8-to-1 incasts on a 100 G star
 * measured over a window after convergence.
 */
import { jainIndex } from '../../src/stats/aggregate.js';
import type { Results } from '../../src/stats/results.js';
import { makeRun } from '../runtime/helpers.js';

export const LINE_BPS = 100e9;
export const MTU_BYTES = 1000;

/** Switch block per algorithm: run.py's ECN maps at 100 G (DCTCP: step marking at 300 KB). */
export function switchFor(cc: string): string {
  if (cc === 'dctcp') return '{ buffer: 32MB, ecn: { kmin: 300KB, kmax: 300KB, pmax: 1 }, pfc: true }';
  return '{ buffer: 32MB, ecn: { kmin: 400KB, kmax: 1600KB, pmax: 0.2 }, pfc: true }';
}

export interface IncastOptions {
  /** Bytes per flow (YAML size, e.g. `8MB`, `inf`). */
  size: string;
  durationNs: number;
  /** Measurement window. */
  fromNs: number;
  toNs: number;
  /** Extra scenario YAML (e.g. a `cc:` block). */
  extra?: string;
  startSpreadNs?: number;
}

export interface IncastMeasure {
  /** Bottleneck port (s1 → h9) wire bytes over the window / line rate. */
  utilisation: number;
  /** Time-average of that port's queue over the window. */
  meanQueueBytes: number;
  /** Jain index of the flows' delivered rates over the window. */
  jain: number;
  ratesGbps: number[];
  results: Results;
}

/** 8 flows h1..h8 → h9 on a 100 G / 1 µs star with PFC. */
export function incast(cc: string, o: IncastOptions): IncastMeasure {
  const { run } = makeRun(`
duration: ${o.durationNs}ns
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: ${cc}, mtu: ${MTU_BYTES} }
  switch: ${switchFor(cc)}
${o.extra ?? ''}
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1..h8], receiver: h9, size: ${o.size}, startSpread: ${o.startSpreadNs ?? 0}ns }
`);
  const sw = run.switches.get('s1')!;
  const bottleneck = 8;
  const snap = () => {
    const c = sw.portCounters()[bottleneck];
    return {
      t: run.sched.now(),
      tx: c.txBytes,
      qns: c.queueByteNs,
      delivered: run.flows.map((f) => f.deliveredBytes),
    };
  };
  run.runUntil(o.fromNs);
  const a = snap();
  run.runUntil(o.toNs);
  const b = snap();
  run.runUntil(o.durationNs);
  const results = run.results();
  const dt = b.t - a.t;
  const rates = b.delivered.map((x, i) => ((x - a.delivered[i]) * 8e9) / dt);
  return {
    utilisation: ((b.tx - a.tx) * 8e9) / dt / LINE_BPS,
    meanQueueBytes: (b.qns - a.qns) / dt,
    jain: jainIndex(rates)!,
    ratesGbps: rates.map((x) => x / 1e9),
    results,
  };
}

export function show(cc: string, m: IncastMeasure): string {
  const s = m.results.summary;
  return (
    `${cc}: utilisation ${(100 * m.utilisation).toFixed(1)} %, mean queue ${m.meanQueueBytes.toFixed(0)} B, ` +
    `Jain ${m.jain.toFixed(4)} [${m.ratesGbps.map((r) => r.toFixed(1)).join(' ')}] Gb/s, ` +
    `max queue ${s.maxQueueBytes} B, drops ${s.drops}, PFC pauses ${s.pfcPauseTx}, done ${s.flowsCompleted}/${s.flowsTotal}`
  );
}
