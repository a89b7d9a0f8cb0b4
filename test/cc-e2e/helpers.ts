/**
 * Shared set-ups of the baseline end-to-end tests: the switch settings each algorithm is run
 * with in the HPCC simulator (baselines.md §0), and an 8-to-1 long-flow incast measured over a
 * window after convergence.
 */
import { jainIndex } from '../../src/stats/aggregate.js';
import { makeRun } from '../runtime/helpers.js';

export const LINE_BPS = 100e9;

/** Switch block per algorithm: run.py's ECN maps at 100 G (DCTCP: step marking at 300 KB). */
export function switchFor(cc: string): string {
  if (cc === 'dctcp') return '{ buffer: 32MB, ecn: { kmin: 300KB, kmax: 300KB, pmax: 1 }, pfc: true }';
  return '{ buffer: 32MB, ecn: { kmin: 400KB, kmax: 1600KB, pmax: 0.2 }, pfc: true }';
}

export interface IncastMeasure {
  utilisation: number;
  meanQueueBytes: number;
  maxQueueBytes: number;
  jain: number;
  ratesGbps: number[];
  drops: number;
  pfcPauseTx: number;
}

/**
 * 8 long flows h1..h8 → h9 on a 100 G star; rates and the bottleneck port (s1 → h9) measured
 * between `fromNs` and `toNs`.
 */
export function longIncast(cc: string, fromNs: number, toNs: number, ccBlock = ''): IncastMeasure {
  const { run } = makeRun(`
duration: ${toNs}ns
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: ${cc}, mtu: 1000 }
  switch: ${switchFor(cc)}
${ccBlock}
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1..h8], receiver: h9, size: inf }
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
  run.runUntil(fromNs);
  const a = snap();
  run.runUntil(toNs);
  const b = snap();
  const r = run.results();
  const dt = b.t - a.t;
  const rates = b.delivered.map((x, i) => ((x - a.delivered[i]) * 8e9) / dt);
  return {
    utilisation: ((b.tx - a.tx) * 8e9) / dt / LINE_BPS,
    meanQueueBytes: (b.qns - a.qns) / dt,
    maxQueueBytes: r.summary.maxQueueBytes,
    jain: jainIndex(rates)!,
    ratesGbps: rates.map((x) => x / 1e9),
    drops: r.summary.drops,
    pfcPauseTx: r.summary.pfcPauseTx,
  };
}
