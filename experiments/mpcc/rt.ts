/**
 * AC3 and AC6 in real time (docs/algorithms/mpcc.md: real-socket runs widen every tolerance by
 * 50 % and take the median of 5 runs): the VT-dumbbell-10 profile as OS processes over UDP (local
 * runtime, scenarios/papers/mpcc/rt-dumbbell-10.yaml). The bottleneck queue comes from the
 * switch node's queue series in results.json (one sample per 2 µs emulated; the peak from the
 * port's exact maximum); per-sender throughput in [50, 200]·D_base from the run's probe bins
 * (src/probe: each sender bins its data frames on its own emulated clock, exact to a 1 µs bin in
 * a lockstep run). timeScale 1000 (real links 1 Mbit/s): 18–21 s per run, twenty runs, paper tier.
 */
import { binRange } from '../../src/probe/bins.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { median } from '../../src/stats/aggregate.js';
import { localRun } from '../observed-run.js';
import { jain } from '../ports.js';
import type { ReproCheck, ReproContext, ReproOutcome } from '../types.js';
import { baseRttOf, convergence, mpccScenario, type QueueTrace, timeAverage } from './probe.js';
import {
  ac3Verdict,
  ac6Verdict,
  bytesText,
  convBoundNs,
  dumbbell,
  fix,
  type IncastMeasure,
  incastOf,
  leftSide,
  okValues,
  S_WIRE,
  us,
} from './runs.js';

const FILE = 'rt-dumbbell-10.yaml';
const RUNS = 5;
const WIDEN = 1.5;

/** Probe bin of the real runs: per-sender bytes in a window are exact to a bin. */
const BIN_NS = 1000;

async function rtRun(
  ctx: ReproContext,
  tag: string,
  overrides: string[],
  window: ((dBaseNs: number) => [number, number]) | null,
) {
  const scenario = mpccScenario(FILE, overrides);
  const left = scenario.topology.kind === 'dumbbell' ? scenario.topology.left : 0;
  const senders = Array.from({ length: left }, (_, i) => `h${i + 1}`);
  // D_base of the profile, from the topology (thesis eq. 2.2, HPCC convention).
  const setup = setupRun(scenario, { seed: ctx.seed });
  const dBaseNs = baseRttOf(setup, 'h1', `h${left + 1}`);
  const rateBps = setup.topo.byName.get('s1')!.ports[left].rateBps;
  const edges = window?.(dBaseNs) ?? null;
  const probes = { binNs: BIN_NS, ports: [], flows: true };
  const out = await localRun(edges === null ? scenario : { ...scenario, probes }, ctx, tag);
  const key = `s1:${left}`;
  const series = out.results.series.queue[key] ?? [];
  const trace: QueueTrace = {
    t: series.filter((_, i) => i % 2 === 0),
    q: series.filter((_, i) => i % 2 === 1),
  };
  const peakBytes = out.results.ports.find((p) => p.node === 's1' && p.port === left)?.maxQueueBytes ?? 0;
  const bytes = new Map<string, number>();
  if (edges !== null) {
    // Each sender's data frames on the wire, binned by its own node on its emulated clock.
    const [a, b] = binRange(BIN_NS, edges[0], edges[1]);
    for (const s of senders) bytes.set(s, 0);
    for (const f of out.results.probes?.flows ?? []) {
      const src = out.results.flows[f.id].src;
      if (bytes.has(src)) bytes.set(src, bytes.get(src)! + f.txBytes.slice(a, b).reduce((x, y) => x + y, 0));
    }
  }
  return {
    out,
    trace,
    peakBytes,
    dBaseNs,
    bdpBytes: (rateBps * dBaseNs) / 8e9,
    rateBps,
    senders,
    /** Sender → port bytes at the window edges (null when no window was asked for). */
    window: edges === null ? null : { fromNs: edges[0], toNs: edges[1], bytes },
    // Event-loop lag and missing reports mean the emulation was not faithful. The runtime's
    // achieved-rate warnings are not counted: our 2 µs sampling windows are shorter than one
    // frame time (8.75 µs), so a busy port often completes no frame inside one.
    warnings: out.results.warnings.filter((w) => /event-loop lag|no report/.test(w)),
  };
}

async function ac3Rt(ctx: ReproContext, n: number, i: number) {
  const r = await rtRun(ctx, `ac3-n${n}-${i}`, leftSide(n), (d) => [50 * d, 200 * d]);
  const c = convergence(r.trace, 0, r.out.results.durationNs, S_WIRE);
  const w = r.window!;
  const cap = (r.rateBps * (w.toNs - w.fromNs)) / 8e9;
  // The sender's port bytes include nothing but its data frames (ACKs come from the receiver).
  const shares = r.senders.map((s) => w.bytes.get(s)! / cap);
  return {
    convNs: c.convNs ?? Number.POSITIVE_INFINITY,
    boundNs: convBoundNs(r, r.peakBytes),
    avgQ: timeAverage(r.trace, w.fromNs, w.toNs),
    util: shares.reduce((a, b) => a + b, 0),
    jain: jain(shares),
    worstShareErr: Math.max(...shares.map((s) => Math.abs(s * n - 1))),
    warnings: r.warnings.length,
  };
}

const ac3RealTime: ReproCheck = {
  id: 'AC3-RT',
  title: 'Controller verification in real time (local runtime, VT-dumbbell-10 twin), 4→1 and 8→1',
  paper: 'Exp. 1 (ns-3 only in the thesis)',
  expected:
    'medians of 5 runs, AC3 tolerances widened 50 %: T_conv ≤ 1.95·(D_base + Q_peak·8/R); avg Q ≤ 1.5 (N=4) / 3 (N=8) S_wire; Jain ≥ 0.985; util ≥ 0.925; shares 1/N ± 15 %; avg Q ≤ 0.15 × no-CC (VT)',
  async run(ctx): Promise<ReproOutcome> {
    const parts: string[] = [];
    const values: Record<string, number | string | boolean | null> = {};
    let ok = true;
    for (const n of [4, 8]) {
      const runs: Awaited<ReturnType<typeof ac3Rt>>[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await ac3Rt(ctx, n, i));
      const m = {
        convNs: median(runs.map((x) => x.convNs)),
        boundNs: median(runs.map((x) => x.boundNs)),
        avgQ: median(runs.map((x) => x.avgQ)),
        util: median(runs.map((x) => x.util)),
        jain: median(runs.map((x) => x.jain)),
        worstShareErr: median(runs.map((x) => x.worstShareErr)),
      };
      // No-CC reference of the same profile from virtual time (AC1c is a virtual-time check).
      const none = dumbbell(FILE, {
        outDir: ctx.outDir,
        overrides: [...leftSide(n), 'cc.mpcc.controller=off', 'sampleInterval=10us'],
      });
      const noCc = timeAverage(none.trace, 50 * none.dBaseNs, 200 * none.dBaseNs);
      ok &&= ac3Verdict({ ...m, n, noCcAvgQ: noCc }, false, WIDEN).ok;
      const warn = runs.reduce((a, x) => a + x.warnings, 0);
      parts.push(
        `N=${n}: T_conv ${us(m.convNs)} (bound ${us(m.boundNs)}), avg Q ${bytesText(m.avgQ)} (no-CC ${bytesText(noCc)}), util ${fix(m.util)}, Jain ${fix(m.jain, 4)}, worst share error ${(m.worstShareErr * 100).toFixed(1)} %` +
          (warn > 0 ? `, ${warn} event-loop lag warnings` : ''),
      );
      for (const [k, v] of Object.entries(m)) values[`n${n}${k[0].toUpperCase()}${k.slice(1)}`] = v;
      values[`n${n}Warnings`] = warn;
      values[`n${n}ConvRuns`] = runs.map((x) => Math.round(x.convNs)).join(',');
    }
    return { measured: `${parts.join('; ')} (medians of ${RUNS})`, pass: ok, values };
  },
};

const INCAST = [...leftSide(8), 'workload[0].size=300KB', 'duration=60ms'];

/** AC6's quantities of one run; T_conv infinite when the queue never came down (a median needs a number). */
type IncastRt = IncastMeasure & { convNs: number; warnings: number };

async function incastRt(ctx: ReproContext, alg: string, i: number): Promise<IncastRt> {
  const r = await rtRun(ctx, `ac6-${alg}-${i}`, [...INCAST, `defaults.nic.cc=${alg}`], null);
  const m = incastOf(r, r.peakBytes);
  return { ...m, convNs: m.convNs ?? Number.POSITIVE_INFINITY, warnings: r.warnings.length };
}

/** The medians of the runs' quantities; drops 0 only when no run dropped. */
function medians(xs: IncastRt[]): IncastMeasure & { convNs: number } {
  const med = (k: 'peak' | 'convNs' | 'avgQ' | 'lastNs' | 'idealNs') => median(xs.map((x) => x[k]));
  return {
    r: xs[0].r,
    peak: med('peak'),
    convNs: med('convNs'),
    avgQ: med('avgQ'),
    lastNs: med('lastNs'),
    idealNs: med('idealNs'),
    drops: Math.max(...xs.map((x) => x.drops)),
  };
}

const ac6RealTime: ReproCheck = {
  id: 'AC6-RT',
  title: 'Incast 8 × 300 KB in real time (local runtime, VT-dumbbell-10 twin), vs HPCC',
  paper: 'as AC6',
  expected:
    'medians of 5 runs each, AC6 tolerances widened 50 %: peak within ±7.5 % of HPCC and in the window bound; T_conv ≤ 1.95·(D_base + peak·8/R); avg Q ≤ 1.5 × HPCC; last flow ≤ 1.225 × ideal; 0 drops',
  async run(ctx): Promise<ReproOutcome> {
    const ms: IncastRt[] = [];
    const hs: IncastRt[] = [];
    for (let i = 0; i < RUNS; i++) {
      ms.push(await incastRt(ctx, 'mpcc', i));
      hs.push(await incastRt(ctx, 'hpcc', i));
    }
    const m = medians(ms);
    const h = medians(hs);
    const { ok, all } = ac6Verdict(m, h, WIDEN);
    const warn = [...ms, ...hs].reduce((a, x) => a + x.warnings, 0);
    return {
      measured:
        `peak ${bytesText(m.peak)} (HPCC ${bytesText(h.peak)}), T_conv ${us(m.convNs)} (bound ${us(convBoundNs(m.r, m.peak))}), ` +
        `avg Q ${bytesText(m.avgQ)} = ${fix(m.avgQ / h.avgQ, 2)} × HPCC ${bytesText(h.avgQ)}, ` +
        `last flow ${fix(m.lastNs / m.idealNs, 4)} × ideal, drops ${ms.map((x) => x.drops).join('/')} (medians of ${RUNS})` +
        (warn > 0 ? `, ${warn} event-loop lag warnings` : ''),
      pass: all,
      values: {
        peakBytes: m.peak,
        hpccPeakBytes: h.peak,
        convNs: m.convNs,
        avgQ: m.avgQ,
        hpccAvgQ: h.avgQ,
        lastOverIdeal: m.lastNs / m.idealNs,
        convRuns: ms.map((x) => Math.round(x.convNs)).join(','),
        warnings: warn,
        ...okValues(ok),
      },
    };
  },
};

export const rtChecks: ReproCheck[] = [ac3RealTime, ac6RealTime];
