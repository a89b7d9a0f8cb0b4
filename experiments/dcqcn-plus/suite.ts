/**
 * DCQCN+ paper checks (docs/algorithms/dcqcn-plus.md "Findings"): A1, A2 and A6 in the default tier, A3-A5 (up to
 * 2000 flows) and the real-time A7 in the paper tier. A8-A10 are unit tests
 * (test/cc/dcqcn-plus/). Every check runs a shipped scenario of scenarios/papers/dcqcn-plus/
 * and compares what it measures with the spec's pass rule.
 *
 * Runs are memoised per process (algorithm, N, duration, seed), so A3-A5 share their runs
 * with each other and with A1/A2 when a suite runs as a whole.
 */
import { memo } from '../memo.js';
import { paperTier, registerReproSuite } from '../registry.js';
import { inDir, type ReproCheck, type ReproContext, type ReproOutcome } from '../types.js';
import { fmtKB, paperScenario, type RunMeasure, runMeasured, type WindowMeasure } from './measure.js';
import { realTimeCheck } from './realtime.js';

const MS = 1e6;
type Alg = 'dcqcn' | 'dcqcn-plus';
const NAME: Record<Alg, string> = { dcqcn: 'DCQCN', 'dcqcn-plus': 'DCQCN+' };

/** VT-10G bottleneck: s1's port to h9 (star port order h1..h9). */
const PROBE_10G = { switchName: 's1', port: 8, receiver: 'h9', sampleNs: 10_000 };
const W_CONVERGED = { fromNs: 200 * MS, toNs: 300 * MS };
const W_LATE = { fromNs: 250 * MS, toNs: 400 * MS };

const cache = new Map<string, RunMeasure>();

/**
 * VT-10G incast of `n` flows (n/8 per sender) with `alg`, from incast-10g.yaml (256 flows,
 * 0.3 s) or incast-10g-2000.yaml (2000 flows, 0.4 s). 0.3 s runs measure [0.2, 0.3) s; 0.4 s
 * runs also [0.25, 0.4) s.
 */
function vt10g(alg: Alg, n: number, ctx: ReproContext): RunMeasure {
  const long = n === 2000;
  return memo(cache, `${alg}|${n}|${ctx.seed ?? 'scenario'}`, () =>
    runMeasured(
      long
        ? paperScenario('incast-10g-2000.yaml', [`defaults.nic.cc=${alg}`])
        : paperScenario('incast-10g.yaml', [`defaults.nic.cc=${alg}`, `workload[0].flowsPerSender=${n / 8}`]),
      PROBE_10G,
      long ? [W_CONVERGED, W_LATE] : [W_CONVERGED],
      inDir(ctx, `${alg}-n${n}`),
    ),
  );
}

const kb = (x: number) => Math.round(x / 1e3);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function windowValues(prefix: string, w: WindowMeasure): Record<string, number> {
  return {
    [`${prefix}meanQueueKB`]: kb(w.meanQueueBytes),
    [`${prefix}p99QueueKB`]: kb(w.p99QueueBytes),
    [`${prefix}xoff`]: w.xoff,
    [`${prefix}throughput`]: r3(w.utilisation),
    [`${prefix}goodput`]: r3(w.goodput),
  };
}

const A1: ReproCheck = {
  id: 'A1',
  title: 'DCQCN cannot contain a 256-flow incast (VT-10G)',
  paper: 'H7: DCQCN queue at the PFC-limited maximum, 4.9 MB, beyond ≈80 flows at 10 Gbps',
  expected: 'mean queue ≥ 4.0 MB and ≥ 100 XOFF transitions in [0.2, 0.3) s',
  run(ctx) {
    const m = vt10g('dcqcn', 256, ctx);
    const w = m.windows[0];
    return {
      measured: `mean queue ${fmtKB(w.meanQueueBytes)}, ${w.xoff} XOFF in [0.2, 0.3) s (throughput ${w.utilisation.toFixed(2)}); wall ${(m.wallMs / 1000).toFixed(1)} s`,
      pass: w.meanQueueBytes >= 4e6 && w.xoff >= 100,
      values: { ...windowValues('', w), wallMs: Math.round(m.wallMs) },
    };
  },
};

const A2: ReproCheck = {
  id: 'A2',
  title: 'DCQCN+ drains and bounds the same 256-flow incast',
  paper: 'H8: converged queue bounded by ≈200 KB; H11: throughput > 90 %',
  expected: '0 XOFF, mean ≤ 200 KB, p99 ≤ 700 KB, throughput ≥ 0.80 in [0.2, 0.3) s',
  run(ctx) {
    const m = vt10g('dcqcn-plus', 256, ctx);
    const w = m.windows[0];
    return {
      measured: `mean ${fmtKB(w.meanQueueBytes)}, p99 ${fmtKB(w.p99QueueBytes)}, ${w.xoff} XOFF, throughput ${w.utilisation.toFixed(3)} (goodput ${w.goodput.toFixed(3)}); wall ${(m.wallMs / 1000).toFixed(1)} s`,
      pass: w.xoff === 0 && w.meanQueueBytes <= 200e3 && w.p99QueueBytes <= 700e3 && w.utilisation >= 0.8,
      values: { ...windowValues('', w), wallMs: Math.round(m.wallMs) },
    };
  },
};

const A3: ReproCheck = {
  id: 'A3',
  title: 'DCQCN+ with 2000 flows (VT-10G, 0.4 s)',
  paper: 'H1/H10/H11: handles ≥ 2000 flows, drains ≤ ≈0.1 s after the last start, throughput > 90 %',
  expected: 'no XOFF past 0.2 s; [0.25, 0.4) s: mean ≤ 150 KB, p99 ≤ 800 KB, throughput ≥ 0.65 (paper ≥ 0.9)',
  run(ctx) {
    const m = vt10g('dcqcn-plus', 2000, ctx);
    const w = m.windows[1];
    const late = m.xoffSince(200 * MS);
    const last = m.lastXoffNs === null ? 'none' : `${(m.lastXoffNs / MS).toFixed(1)} ms`;
    return {
      measured: `last XOFF at ${last} (${late} after 0.2 s); mean ${fmtKB(w.meanQueueBytes)}, p99 ${fmtKB(w.p99QueueBytes)}, throughput ${w.utilisation.toFixed(3)} (goodput ${w.goodput.toFixed(3)}; ${w.utilisation >= 0.9 ? 'matches' : 'below'} the paper's > 0.9); wall ${(m.wallMs / 1000).toFixed(1)} s`,
      pass: late === 0 && w.meanQueueBytes <= 150e3 && w.p99QueueBytes <= 800e3 && w.utilisation >= 0.65,
      values: {
        ...windowValues('', w),
        lastXoffMs: m.lastXoffNs === null ? null : r3(m.lastXoffNs / MS),
        xoffAfter200ms: late,
        wallMs: Math.round(m.wallMs),
      },
    };
  },
};

const A4_N = [256, 512, 1024, 2000];
const A4_DCQCN_N = [256, 512];

const A4: ReproCheck = {
  id: 'A4',
  title: 'Queue ratio DCQCN / DCQCN+ for N = 256…2000',
  paper: 'H9: DCQCN+ queue 20× smaller (≈200 KB vs 4.9 MB)',
  expected: 'ratio ≥ 10 at each N where both run (DCQCN: 256, 512); DCQCN+ 0 XOFF in [0.2, 0.3) s for all N',
  run(ctx) {
    const parts: string[] = [];
    const values: Record<string, number> = {};
    let pass = true;
    for (const n of A4_N) {
      const plus = vt10g('dcqcn-plus', n, ctx).windows[0];
      values[`plusMeanKB_${n}`] = kb(plus.meanQueueBytes);
      values[`plusXoff_${n}`] = plus.xoff;
      if (plus.xoff !== 0) pass = false;
      let text = `N=${n}: DCQCN+ ${fmtKB(plus.meanQueueBytes)}, ${plus.xoff} XOFF`;
      if (A4_DCQCN_N.includes(n)) {
        const base = vt10g('dcqcn', n, ctx).windows[0];
        const ratio = base.meanQueueBytes / Math.max(plus.meanQueueBytes, 1);
        values[`dcqcnMeanKB_${n}`] = kb(base.meanQueueBytes);
        values[`ratio_${n}`] = Math.round(ratio * 10) / 10;
        if (!(ratio >= 10)) pass = false;
        text += `; DCQCN ${fmtKB(base.meanQueueBytes)} → ${ratio.toFixed(0)}×`;
      }
      parts.push(text);
    }
    return { measured: parts.join('; '), pass, values };
  },
};

const A5_N = [32, 64, 96, 128, 192, 256];

const A5: ReproCheck = {
  id: 'A5',
  title: 'DCQCN failure onset vs DCQCN+ (N = 32…256)',
  paper: 'H4: DCQCN fails beyond ≈80 flows at 10 Gbps (ns-3); DCQCN+ holds',
  expected:
    'smallest N with DCQCN mean queue ≥ 4 MB in [0.2, 0.3) s is 96, 128 or 192; DCQCN+ 0 XOFF and mean ≤ 350 KB for every N',
  run(ctx) {
    let onset: number | null = null;
    let plusOk = true;
    const rows: string[] = [];
    const values: Record<string, number | null> = {};
    for (const n of A5_N) {
      const base = vt10g('dcqcn', n, ctx).windows[0];
      const plus = vt10g('dcqcn-plus', n, ctx).windows[0];
      if (onset === null && base.meanQueueBytes >= 4e6) onset = n;
      if (plus.xoff !== 0 || plus.meanQueueBytes > 350e3) plusOk = false;
      values[`dcqcnMeanKB_${n}`] = kb(base.meanQueueBytes);
      values[`plusMeanKB_${n}`] = kb(plus.meanQueueBytes);
      values[`plusXoff_${n}`] = plus.xoff;
      rows.push(`${n}: ${fmtKB(base.meanQueueBytes)} / ${fmtKB(plus.meanQueueBytes)} (${plus.xoff} XOFF)`);
    }
    values.onsetN = onset;
    return {
      measured: `DCQCN onset N = ${onset ?? 'none'}; mean queue DCQCN / DCQCN+ per N: ${rows.join('; ')}`,
      pass: onset !== null && [96, 128, 192].includes(onset) && plusOk,
      values,
    };
  },
};

/** 3:1 small incast (h1..h3 → h4 on a 4-host star): s1's port to h4. */
const PROBE_3TO1 = { switchName: 's1', port: 3, receiver: 'h4', sampleNs: 10_000 };

function small(alg: Alg, ctx: ReproContext): WindowMeasure {
  return memo(cache, `small|${alg}|${ctx.seed ?? 'scenario'}`, () =>
    runMeasured(
      paperScenario('small-incast-3to1.yaml', [`defaults.nic.cc=${alg}`]),
      PROBE_3TO1,
      [{ fromNs: 350 * MS, toNs: 500 * MS }],
      inDir(ctx, `${alg}-3to1`),
    ),
  ).windows[0];
}

const A6: ReproCheck = {
  id: 'A6',
  title: 'Small incast 3:1 (flows start at 0, 0.1, 0.3 s)',
  paper: 'H13: similar convergence; DCQCN+ ≈4 % lower throughput than DCQCN at 10 Gbps',
  expected: 'in [0.35, 0.5) s: DCQCN+ throughput ≥ 0.90 and ≥ DCQCN − 0.08; both: no XOFF, p99 ≤ 300 KB',
  run(ctx): ReproOutcome {
    const base = small('dcqcn', ctx);
    const plus = small('dcqcn-plus', ctx);
    const line = (a: Alg, w: WindowMeasure) =>
      `${NAME[a]} throughput ${w.utilisation.toFixed(3)}, mean ${fmtKB(w.meanQueueBytes)}, p99 ${fmtKB(w.p99QueueBytes)}, ${w.xoff} XOFF`;
    const quiet = [base, plus].every((w) => w.xoff === 0 && w.p99QueueBytes <= 300e3);
    return {
      measured: `${line('dcqcn', base)}; ${line('dcqcn-plus', plus)}`,
      pass: plus.utilisation >= 0.9 && plus.utilisation >= base.utilisation - 0.08 && quiet,
      values: { ...windowValues('dcqcn_', base), ...windowValues('plus_', plus) },
    };
  },
};

registerReproSuite({
  algorithm: 'dcqcn-plus',
  spec: 'docs/algorithms/dcqcn-plus.md',
  checks: [A1, A2, ...paperTier(A3, A4, A5), A6, ...paperTier(realTimeCheck)],
});
