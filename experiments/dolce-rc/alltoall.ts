/**
 * AC8 (docs/algorithms/dolce-rc.md "Reproduction"): OSU-style MPI_Alltoall on E1, DCQCN vs Dolce-RC, per-rank message
 * sizes 1, 4, 16, 64, 128 KB, 300 iterations each with the first 20 % discarded.
 *
 * Latency of one iteration at one host (OSU times each rank's MPI_Alltoall call): from the host
 * posting its sends to the completion of the last of its messages, sent or received, of that
 * iteration; the mean over hosts and kept iterations. Both ranks of a host share that window,
 * since their messages wait at the same gate (the host's next iteration starts once its own
 * sends of this one were acknowledged and its receives arrived).
 */
import { join } from 'node:path';
import { runScenario } from '../../src/runtime/run.js';
import { mean } from '../../src/stats/aggregate.js';
import type { Results } from '../../src/stats/results.js';
import { memo } from '../memo.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { dolceScenario } from './probe.js';

const KIB = 1024;
const RANKS_PER_HOST = 2;
const QPS_PER_PAIR = RANKS_PER_HOST * RANKS_PER_HOST;
export const AC8_SIZES_KB = [1, 4, 16, 64, 128];
const ITERATIONS = 300;
const WARMUP_FRACTION = 0.2;

/** Per-host iteration latencies (ns) of an alltoall run, iteration-major. */
export function alltoallLatencies(r: Results, hosts: number, qpsPerPair: number): number[][] {
  const per = hosts * (hosts - 1) * qpsPerPair;
  const iterations = Math.floor(r.flows.length / per);
  const out: number[][] = [];
  for (let i = 0; i < iterations; i++) {
    const start = new Map<string, number>();
    const end = new Map<string, number>();
    for (let k = i * per; k < (i + 1) * per; k++) {
      const f = r.flows[k];
      start.set(f.src, Math.min(start.get(f.src) ?? Number.POSITIVE_INFINITY, f.startNs));
      const done = f.endNs ?? Number.POSITIVE_INFINITY;
      for (const h of [f.src, f.dst]) end.set(h, Math.max(end.get(h) ?? 0, done));
    }
    out.push([...start].map(([h, s]) => (end.get(h) ?? Number.POSITIVE_INFINITY) - s));
  }
  return out;
}

const runs = new Map<string, ReturnType<typeof measureAlltoall>>();

export const alltoallRun = (alg: 'dcqcn' | 'dolce-rc', sizeKb: number, ctx: ReproContext) =>
  memo(runs, `${alg}|${sizeKb}|${ctx.seed ?? ''}`, () => measureAlltoall(alg, sizeKb, ctx));

function measureAlltoall(alg: 'dcqcn' | 'dolce-rc', sizeKb: number, ctx: ReproContext) {
  const out = runScenario({
    scenario: dolceScenario('e1-alltoall.yaml', [
      `defaults.nic.cc=${alg}`,
      `workload[0].messageSize=${QPS_PER_PAIR * sizeKb * KIB}`,
      `workload[0].iterations=${ITERATIONS}`,
    ]),
    outDir: join(ctx.outDir, `${alg}-${sizeKb}k`),
    seed: ctx.seed,
    print: null,
  });
  const r = out.results;
  const lat = alltoallLatencies(r, 8, QPS_PER_PAIR);
  const kept = lat.slice(Math.floor(lat.length * WARMUP_FRACTION)).flat();
  return {
    alg,
    sizeKb,
    meanLatencyNs: mean(kept) ?? Number.NaN,
    iterations: lat.length,
    pfcPauseTx: r.summary.pfcPauseTx,
    wallMs: out.wallMs,
  };
}

export const AC8: ReproCheck = {
  id: 'AC8',
  title: 'MPI Alltoall latency, DCQCN vs Dolce-RC (E1, 2 ranks per host)',
  paper:
    'testbed, 8 servers: up to 68 % lower Alltoall latency than DCQCN (64 KB, PPN 40); "much lower" for 1-128 KB (Fig. 5)',
  expected:
    'gate: Dolce-RC mean latency ≤ 1.10 × DCQCN at every size (1, 4, 16, 64, 128 KB; 300 iterations, first 20 % dropped); target (reported, not gated): ≥ 20 % lower at some size in [4, 128] KB',
  run(ctx) {
    const parts: string[] = [];
    const values: Record<string, number | boolean> = {};
    let gate = true;
    let bestReduction = Number.NEGATIVE_INFINITY;
    let wallMs = 0;
    for (const kb of AC8_SIZES_KB) {
      const b = alltoallRun('dcqcn', kb, ctx);
      const d = alltoallRun('dolce-rc', kb, ctx);
      wallMs += b.wallMs + d.wallMs;
      const ratio = d.meanLatencyNs / b.meanLatencyNs;
      if (!(ratio <= 1.1) || d.iterations < ITERATIONS || b.iterations < ITERATIONS) gate = false;
      if (kb >= 4) bestReduction = Math.max(bestReduction, 1 - ratio);
      values[`dcqcnUs_${kb}k`] = b.meanLatencyNs / 1e3;
      values[`dolceUs_${kb}k`] = d.meanLatencyNs / 1e3;
      values[`ratio_${kb}k`] = ratio;
      parts.push(
        `${kb} KB: ${(d.meanLatencyNs / 1e3).toFixed(1)} vs ${(b.meanLatencyNs / 1e3).toFixed(1)} µs (×${ratio.toFixed(3)}, PFC ${d.pfcPauseTx}/${b.pfcPauseTx})`,
      );
    }
    const target = bestReduction >= 0.2;
    values.targetMet = target;
    values.wallMs = Math.round(wallMs);
    return {
      measured: `Dolce-RC vs DCQCN mean latency: ${parts.join('; ')}; gate ${gate ? 'met' : 'MISSED'}; 20 % target ${target ? 'met' : `not met (best ${(bestReduction * 100).toFixed(1)} % in 4-128 KB)`}; wall ${(wallMs / 1000).toFixed(0)} s`,
      pass: gate,
      values,
    };
  },
};
