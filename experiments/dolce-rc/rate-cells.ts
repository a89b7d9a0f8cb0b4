/**
 * F5 (docs/algorithms/dolce-rc.md "The 25 and 40 Gbit/s incast cells"): Dolce-RC's cells of the
 * rate sweep, 4 senders → 1 on a star, against the paper's DCQCN [22] on the same flows.
 *
 * Goodput as the sweep defines it: the receiver's in-order bytes ÷ (last completion − first
 * start), over the bottleneck's payload rate (line rate × 1000 B ÷ the 1062-B RoCEv2 frame). The
 * mechanism is read from h1's rate-change trace: the lowest rate its QP was cut to (the trough,
 * against the fair share C/4) and the slope of its climb from there to its completion, which for
 * [22]'s machine is additive increase, R_AI per rate-timer period (40 Mbit/s per 60 µs =
 * 0.67 Gbit/s per ms) until five byte-counter events (50 MB) without a CNP allow hyper increase.
 * Writes f5-rate-40g.svg (h1's rate at 40 Gbit/s, both algorithms) into the check's folder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSvg } from '../../src/report/render-svg.js';
import { memo } from '../memo.js';
import { observedRun } from '../observed-run.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { dolceScenario } from './probe.js';

const FILE = 'rate-incast.yaml';
type Alg = 'dolce-rc' | 'dcqcn';
/** `sweep`: each flow lasts 1 ms at line rate, ECN scaled with the rate; `4mb`: the first measurement. */
type Variant = 'sweep' | '4mb';
/** Payload bytes per 1062-B frame (MTU 1000, the standard RoCEv2 headers and FCS). */
const PAYLOAD_SHARE = 1000 / 1062;

/** [22]'s increase steps as the fraction of the link its 40 Gbit/s configuration gave them (C/1000, C/200). */
export function stepsScaledTo(gbps: number): string[] {
  return [`cc.dolce-rc.rateAiBps=${gbps}Mbps`, `cc.dolce-rc.rateHaiBps=${5 * gbps}Mbps`];
}

function overrides(alg: Alg, gbps: number, variant: Variant, extra: string[]): string[] {
  const size = variant === 'sweep' ? (gbps * 1e9 * 1e-3) / 8 : 4e6;
  const ecn =
    variant === 'sweep'
      ? `{${gbps}Gbps: {kmin: ${4 * gbps}KB, kmax: ${16 * gbps}KB, pmax: 0.2}}`
      : // The first measurement's "default switch settings": no per-rate thresholds.
        '{}';
  return [
    `defaults.nic.cc=${alg}`,
    `defaults.link.rate=${gbps}Gbps`,
    `defaults.switch.ecn.byRate=${ecn}`,
    `workload[0].size=${size}`,
    ...extra,
  ];
}

interface Cell {
  goodput: number;
  /** h1's lowest rate after its first cut, and when, Gbit/s and ms. */
  troughGbps: number;
  troughMs: number;
  /** h1's climb from the trough to its last rate change, Gbit/s per ms. */
  climbGbpsPerMs: number;
  lastDoneMs: number;
  maxQueueBytes: number;
  pfcPauses: number;
  /** h1's rate changes [ms, Gbit/s], for the plot. */
  h1: Array<[number, number]>;
}

function measureCell(alg: Alg, gbps: number, variant: Variant, ctx: ReproContext, extra: string[]): Cell {
  const h1: Array<[number, number]> = [];
  const { out } = observedRun(dolceScenario(FILE, overrides(alg, gbps, variant, extra)), {
    outDir: join(ctx.outDir, `${alg}-${gbps}g-${variant}${extra.length > 0 ? '-scaled' : ''}`),
    seed: ctx.seed,
    nicObserver: (host) =>
      host === 'h1' ? { onRateChange: (c) => h1.push([c.timeNs / 1e6, c.rateBps / 1e9]) } : {},
  });
  const r = out.results;
  const firstStart = Math.min(...r.flows.map((f) => f.startNs));
  const rx = r.hosts.find((h) => h.node === 'h5')?.rxBytes ?? 0;
  const seconds = (r.durationNs - firstStart) / 1e9;
  let trough = 0;
  for (let i = 1; i < h1.length; i++) if (h1[i][1] < h1[trough][1]) trough = i;
  const [tMs, lowGbps] = h1[trough] ?? [0, gbps];
  const [endMs, endGbps] = h1[h1.length - 1] ?? [0, gbps];
  return {
    goodput: (rx * 8) / seconds / (gbps * 1e9 * PAYLOAD_SHARE),
    troughGbps: lowGbps,
    troughMs: tMs,
    climbGbpsPerMs: endMs > tMs ? (endGbps - lowGbps) / (endMs - tMs) : 0,
    lastDoneMs: r.durationNs / 1e6,
    maxQueueBytes: r.summary.maxQueueBytes,
    pfcPauses: r.summary.pfcPauseTx,
    h1,
  };
}

const cells = new Map<string, Cell>();
const cell = (alg: Alg, gbps: number, variant: Variant, ctx: ReproContext, extra: string[] = []) =>
  memo(cells, `${alg}|${gbps}|${variant}|${extra.join(';')}|${ctx.seed ?? ''}`, () =>
    measureCell(alg, gbps, variant, ctx, extra),
  );

function cellText(c: Cell): string {
  return `${c.goodput.toFixed(2)} (trough ${c.troughGbps.toFixed(2)} Gbit/s at ${c.troughMs.toFixed(2)} ms, climb ${c.climbGbpsPerMs.toFixed(2)} Gbit/s per ms, done ${c.lastDoneMs.toFixed(2)} ms, queue max ${(c.maxQueueBytes / 1e6).toFixed(2)} MB, PFC ${c.pfcPauses})`;
}

/** h1's rate over time at one cell, both algorithms, as an SVG line chart (log rate axis). */
async function rateSvg(d: Cell, b: Cell, gbps: number): Promise<string> {
  const rows = [
    ...d.h1.map(([t, g]) => ({ algorithm: 'Dolce-RC (S1)', t, g })),
    ...b.h1.map(([t, g]) => ({ algorithm: 'DCQCN [22]', t, g })),
  ];
  return renderSvg({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `4→1 incast at ${gbps} Gbit/s (1 ms flows): h1's sending rate; fair share ${gbps / 4} Gbit/s`,
    data: { values: rows },
    width: 640,
    height: 240,
    mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
    encoding: {
      x: { field: 't', type: 'quantitative', title: 'time (ms)' },
      y: { field: 'g', type: 'quantitative', title: 'rate (Gbit/s, log)', scale: { type: 'log' } },
      color: { field: 'algorithm', type: 'nominal', title: null },
    },
  });
}

/** The two cells in question, and 100 Gbit/s where the first measurement read 1.00. */
const RATES_GBPS = [25, 40, 100] as const;

export const F5: ReproCheck = {
  id: 'F5',
  title: "Finding: the rate sweep's 25 and 40 Gbit/s 4→1 incast cells (Dolce-RC and its DCQCN [22])",
  paper:
    'Dolce-RC keeps DCQCN’s rate machine ([22]: R_AI 40 Mbit/s, R_HAI 200 Mbit/s per 60 µs, written for 40 Gbit/s links) and changes only the cut (§IV-A)',
  expected:
    'record the goodput of Dolce-RC and DCQCN [22] at 25, 40 and 100 Gbit/s, with 1 ms flows and rate-scaled ECN (the sweep) and with 4 MB flows and default ECN (the first measurement), h1’s trough and climb, and Dolce-RC at 100 Gbit/s with [22]’s steps scaled to the link',
  tier: 'paper',
  async run(ctx) {
    const parts: string[] = [];
    const values: Record<string, number> = {};
    for (const variant of ['sweep', '4mb'] as const)
      for (const gbps of RATES_GBPS) {
        const d = cell('dolce-rc', gbps, variant, ctx);
        const b = cell('dcqcn', gbps, variant, ctx);
        values[`dolce_${gbps}g_${variant}`] = d.goodput;
        values[`dcqcn_${gbps}g_${variant}`] = b.goodput;
        const what = variant === 'sweep' ? '1 ms flows, sweep ECN' : '4 MB flows, default ECN';
        parts.push(`${gbps} Gbit/s, ${what}: Dolce-RC ${cellText(d)}; DCQCN [22] ${cellText(b)}`);
      }
    // [22]'s steps at 100 Gbit/s as a fraction of the link (its 40 Gbit/s ratio): still AI-bound.
    const scaled = cell('dolce-rc', 100, 'sweep', ctx, stepsScaledTo(100));
    values.dolce_100g_sweep_scaledSteps = scaled.goodput;
    parts.push(
      `100 Gbit/s, 1 ms flows, R_AI 100 Mbit/s and R_HAI 500 Mbit/s (C/1000, C/200): Dolce-RC ${cellText(scaled)}`,
    );
    const d = cell('dolce-rc', 40, 'sweep', ctx);
    const b = cell('dcqcn', 40, 'sweep', ctx);
    writeFileSync(join(ctx.outDir, 'f5-rate-40g.svg'), await rateSvg(d, b, 40));
    return { measured: parts.join('; '), pass: 'finding', values };
  },
};
