import { mean } from '../../src/stats/aggregate.js';
import { FrameKind } from '../../src/wire/packet.js';
import { paperTier, registerReproSuite } from '../registry.js';
import type { ReproCheck, ReproContext, ReproOutcome, ReproSuite } from '../types.js';
import { ac7Check, ac7P50Finding } from './ac7.js';
import { ac7LargeFinding } from './ac7-large.js';
import { ac7HadoopFinding, ac7MiceCheck, ac7PanelFindings } from './ac7-mixes.js';
import { ac8 } from './ac8.js';
import {
  convergence,
  firstQueued,
  lsFit,
  type QueueTrace,
  queueAt,
  queueSlope,
  timeAverage,
} from './probe.js';
import { rtChecks } from './rt.js';
import {
  ac3Verdict,
  ac6Verdict,
  bytesText,
  convBoundNs,
  dumbbell,
  fix,
  type IncastMeasure,
  incastOf,
  ms,
  okValues,
  S_WIRE,
  sharesOf,
  us,
  windowBound,
} from './runs.js';
import { compareMeanNs, replayFlows, timeReplay } from './timing.js';
import { solverChecks } from './verify-checks.js';

const EXP1 = 'exp1-dumbbell.yaml';
const EXP2 = 'exp2-stagger.yaml';
const INCAST = 'incast.yaml';
const D10 = ['defaults.link.delay=10us'];
/** Exp. 1 at 10 µs needs 200·D_base = 16.8 ms of run. */
const EXP1_D10 = [...D10, 'duration=17.5ms'];

const squareRun = (outDir: string, seed?: number) => dumbbell('plant-square-wave.yaml', { outDir, seed });

/** Mean LS slope over the on (rising) and off (falling) halves of each period, bytes/ns. */
function squareSlopes(tr: QueueTrace, periodNs: number, onNs: number, periods: number, marginNs: number) {
  const rise: number[] = [];
  const fall: number[] = [];
  for (let k = 0; k < periods; k++) {
    const t0 = k * periodNs;
    rise.push(queueSlope(tr, t0 + marginNs, t0 + onNs - marginNs));
    fall.push(queueSlope(tr, t0 + onNs + marginNs, t0 + periodNs - marginNs));
  }
  return { rise: mean(rise)!, fall: mean(fall)! };
}

/** Frequency of the largest DTFT magnitude of the detrended queue, scanned finely (Hz). */
function dominantFrequencyHz(tr: QueueTrace, fromNs: number, toNs: number, f0Hz: number): number {
  const stepNs = 10_000;
  const ys: number[] = [];
  for (let t = fromNs; t < toNs; t += stepNs) ys.push(queueAt(tr, t));
  const n = ys.length;
  const index = ys.map((_, i) => i);
  const { slope, mx, my } = lsFit(index, ys);
  const r = ys.map((y, i) => y - my - slope * (i - mx));
  let best = 0;
  let bestMag = -1;
  for (let f = 0.2 * f0Hz; f <= 5 * f0Hz; f += 0.0005 * f0Hz) {
    const w = 2 * Math.PI * f * stepNs * 1e-9;
    let re = 0;
    let im = 0;
    for (let i = 0; i < n; i++) {
      re += r[i] * Math.cos(w * i);
      im -= r[i] * Math.sin(w * i);
    }
    const mag = re * re + im * im;
    if (mag > bestMag) {
      bestMag = mag;
      best = f;
    }
  }
  return best;
}

const ac1a: ReproCheck = {
  id: 'AC1a',
  title: 'Plant fidelity: queue build-up slope, 4 senders at line rate (no CC)',
  paper: 'queue at switch 1 grows at 3 Gbps = (4R − R), eq. 3.2 (§3.1, Fig. 3.2)',
  expected: 'LS slope over [first queued + 2·D_base, +20·D_base] = 3R/8 = 375 MB/s ± 5 %',
  run(ctx): ReproOutcome {
    const r = squareRun(ctx.outDir, ctx.seed);
    const t0 = firstQueued(r.trace)!;
    const slope = queueSlope(r.trace, t0 + 2 * r.dBaseNs, t0 + 20 * r.dBaseNs);
    const expect = (3 * r.rateBps) / 8e9;
    const err = slope / expect - 1;
    return {
      measured: `${fix(slope * 1000, 1)} MB/s (${(err * 100).toFixed(2)} %)`,
      pass: Math.abs(err) <= 0.05,
      values: { slopeBytesPerNs: slope, expectedBytesPerNs: expect, firstQueuedNs: t0 },
    };
  },
};

const ac1b: ReproCheck = {
  id: 'AC1b',
  title: 'Plant fidelity: 0↔R square-wave input at 500 Hz (no CC)',
  paper: 'rising +3, falling −1 Gbps at all frequencies; Q(t) oscillates at the input frequency (Fig. 3.3)',
  expected: 'rising +3R/8 and falling −R/8 ± 5 %; dominant frequency of Q(t) = 500 Hz ± 1 %',
  run(ctx): ReproOutcome {
    const r = squareRun(ctx.outDir, ctx.seed);
    const periodNs = 2e6;
    // The on-time of one 114 KB burst at line rate: 114 frames of 1062 B.
    const onNs = (114 * 1062 * 8e9) / r.rateBps;
    const s = squareSlopes(r.trace, periodNs, onNs, 10, 2 * r.dBaseNs);
    const rise = (3 * r.rateBps) / 8e9;
    const fall = -r.rateBps / 8e9;
    const f = dominantFrequencyHz(r.trace, 0, 10 * periodNs, 500);
    const eRise = s.rise / rise - 1;
    const eFall = s.fall / fall - 1;
    const eF = f / 500 - 1;
    return {
      measured: `rising ${fix(s.rise * 1000, 1)} MB/s (${(eRise * 100).toFixed(2)} %), falling ${fix(s.fall * 1000, 1)} MB/s (${(eFall * 100).toFixed(2)} %), dominant ${f.toFixed(1)} Hz`,
      pass: Math.abs(eRise) <= 0.05 && Math.abs(eFall) <= 0.05 && Math.abs(eF) <= 0.01,
      values: { riseBytesPerNs: s.rise, fallBytesPerNs: s.fall, dominantHz: f },
    };
  },
};

/** AC1c plateau with the window pinned at P (controller off), N senders. */
function plateau(ctx: ReproContext, n: number, overrides: string[] = []) {
  const r = dumbbell(EXP1, { ...ctx, n, overrides: ['cc.mpcc.controller=off', ...overrides] });
  const from = 50 * r.dBaseNs;
  const to = 200 * r.dBaseNs;
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  for (let i = 0; i < r.trace.t.length; i++) {
    if (r.trace.t[i] < from || r.trace.t[i] > to) continue;
    lo = Math.min(lo, r.trace.q[i]);
    hi = Math.max(hi, r.trace.q[i]);
  }
  const avg = timeAverage(r.trace, from, to);
  const b = windowBound(n, r.bdpBytes);
  const literal = lo >= b.literalLower && hi <= b.literalUpper;
  return { r, lo, hi, avg, ...b, literal, ok: lo >= b.lower && hi <= b.upper };
}

const ac1c: ReproCheck = {
  id: 'AC1c',
  title: 'Window bound: fixed W = P plateaus (controller off)',
  paper: 'the CWND bounds the queue: a flat top (Fig. 3.4); SIM 14 040 B (N = 4), 31 320 B (N = 8)',
  expected:
    "queue over [50, 200]·D_base within [(N−1)·P, (N−1)·P + (N+1)·S_wire] for N = 4 and 8 (P as the window's wire bytes P·S_wire/S_pay)",
  run(ctx): ReproOutcome {
    const a = plateau(ctx, 4);
    const b = plateau(ctx, 8);
    const show = (x: typeof a, n: number) =>
      `N=${n}: ${bytesText(x.lo)}..${bytesText(x.hi)} (avg ${bytesText(x.avg)}) in [${bytesText(x.lower)}, ${bytesText(x.upper)}]` +
      ` (literal P bound ${x.literal ? 'holds' : 'missed'})`;
    return {
      measured: `${show(a, 4)}; ${show(b, 8)}`,
      pass: a.ok && b.ok,
      values: {
        n4Min: a.lo,
        n4Max: a.hi,
        n4Avg: a.avg,
        n8Min: b.lo,
        n8Max: b.hi,
        n8Avg: b.avg,
        bdpBytes: a.r.bdpBytes,
      },
    };
  },
};

const ac2: ReproCheck = {
  id: 'AC2',
  title: 'Feedback delay with 1 ms links',
  paper: 'switch queue rises 1 ms late; the sender sees it via INT 6 ms late (Fig. 3.5)',
  expected:
    'SW1 queue > 0 at d ± 3·S_wire·8/R; first ACK with INT Q > 0 at a sender at 6·d ± (2 % + 6·S_wire·8/R)',
  run(ctx): ReproOutcome {
    const r = dumbbell('delay-1ms.yaml', { ...ctx, probe: { ackInt: true, arrivals: false } });
    const d = 1e6;
    const pktNs = (S_WIRE * 8e9) / r.rateBps;
    const tq = firstQueued(r.trace)!;
    const firstAck = r.probe.ackInts.find((a) => a.hops.some((h) => h.qlenBytes > 0));
    const ta = firstAck?.timeNs ?? Number.NaN;
    const okQ = Math.abs(tq - d) <= 3 * pktNs;
    const okA = Math.abs(ta - 6 * d) <= 0.02 * 6 * d + 6 * pktNs;
    return {
      measured: `queue > 0 at ${ms(tq, 4)}; first INT Q > 0 at a sender at ${ms(ta, 4)}`,
      pass: okQ && okA,
      values: { firstQueuedNs: tq, firstIntAckNs: ta, packetNs: pktNs },
    };
  },
};

function exp1Measure(ctx: ReproContext, n: number, overrides: string[] = []) {
  const r = dumbbell(EXP1, { ...ctx, n, overrides });
  const c = convergence(r.trace, 0, r.out.results.durationNs, S_WIRE);
  const from = 50 * r.dBaseNs;
  const to = 200 * r.dBaseNs;
  const sh = sharesOf(r, r.senders, from, to);
  const noCc = plateau(ctx, n, overrides);
  return {
    r,
    n,
    peak: c.peakBytes,
    convNs: c.convNs,
    boundNs: convBoundNs(r, c.peakBytes),
    avgQ: timeAverage(r.trace, from, to),
    util: sh.utilisation,
    jain: sh.jain,
    shares: sh.perFlow,
    worstShareErr: Math.max(...sh.perFlow.map((x) => Math.abs(x * n - 1))),
    noCcAvgQ: noCc.avg,
  };
}

/** Names of the sub-criteria that failed, tagged. */
function failedOf(checks: Record<string, boolean>, tag: string): string[] {
  return Object.entries(checks)
    .filter(([, v]) => !v)
    .map(([k]) => `${tag}${k}`);
}

/** "; failed: a, b" after a measured text, or nothing when every sub-criterion held. */
const failedText = (failed: string[]) => (failed.length > 0 ? `; failed: ${failed.join(', ')}` : '');

function ac3Text(m: ReturnType<typeof exp1Measure>): string {
  const sh = m.shares.map((s) => s.toFixed(3)).join('/');
  return (
    `N=${m.n}: T_conv ${m.convNs === null ? 'never' : us(m.convNs)} (≤ ${us(m.boundNs)}, peak ${bytesText(m.peak)}), ` +
    `avg Q ${bytesText(m.avgQ)}, util ${fix(m.util)}, Jain ${fix(m.jain, 4)}, shares ${sh}, ` +
    `Q/no-CC ${fix(m.avgQ / m.noCcAvgQ, 4)}`
  );
}

/** AC3's runs (N = 4 and 8, with `overrides`), verdicts and text; the 140 µs target on the thesis profile only. */
function ac3Runs(ctx: ReproContext, thesisProfile: boolean, overrides: string[] = []) {
  const a = exp1Measure(ctx, 4, overrides);
  const b = exp1Measure(ctx, 8, overrides);
  const va = ac3Verdict(a, thesisProfile);
  const vb = ac3Verdict(b, thesisProfile);
  const t140 = !thesisProfile || (a.convNs !== null && Math.abs(a.convNs / 140e3 - 1) <= 0.15);
  const failed = [
    ...failedOf(va.checks, 'N=4 '),
    ...failedOf(vb.checks, 'N=8 '),
    ...(t140 ? [] : ['N=4 140 µs']),
  ];
  const pass = va.ok && vb.ok && t140;
  return { a, b, failed, pass, measured: `${ac3Text(a)}; ${ac3Text(b)}${failedText(failed)}` };
}

const ac3Thesis: ReproCheck = {
  id: 'AC3',
  title: 'Controller verification (Exp. 1), VT-dumbbell-thesis, 4→1 and 8→1',
  paper: 'queue converges to 0 in 140.3 / 149.1 µs (1:1 / 1:10); normalized throughput 0.2464/flow (N = 4)',
  expected:
    'T_conv ≤ 1.3·(D_base + Q_peak·8/R) and (N = 4) 140 µs ± 15 %; over [50, 200]·D_base: avg Q ≤ 1 (N=4) / 2 (N=8) S_wire, Jain ≥ 0.99, util ≥ 0.88, shares 1/N ± 10 %; avg Q ≤ 0.1 × no-CC',
  run(ctx): ReproOutcome {
    const { a, b, measured, pass } = ac3Runs(ctx, true);
    return {
      measured,
      pass,
      values: {
        n4ConvNs: a.convNs,
        n4PeakBytes: a.peak,
        n4AvgQ: a.avgQ,
        n4Util: a.util,
        n4Jain: a.jain,
        n4Share: a.shares[0],
        n8ConvNs: b.convNs,
        n8PeakBytes: b.peak,
        n8AvgQ: b.avgQ,
        n8Util: b.util,
        n8Jain: b.jain,
        bdpBytes: a.r.bdpBytes,
        dBaseNs: a.r.dBaseNs,
      },
    };
  },
};

const ac3D10: ReproCheck = {
  id: 'AC3-d10',
  title: 'Controller verification, VT-dumbbell-10 (10 µs links, P ≈ 10 packets)',
  paper: 'as Exp. 1 with a larger BDP (spec profile, not in the thesis)',
  expected: 'as AC3 with util ≥ 0.95 (P ≥ 5 packets), no 140 µs target',
  run(ctx): ReproOutcome {
    const { a, b, measured, pass, failed } = ac3Runs(ctx, false, EXP1_D10);
    return {
      measured,
      pass,
      values: {
        n4ConvNs: a.convNs,
        n4AvgQ: a.avgQ,
        n4Util: a.util,
        n8ConvNs: b.convNs,
        n8AvgQ: b.avgQ,
        n8Util: b.util,
        bdpBytes: a.r.bdpBytes,
        failed: failed.join(','),
      },
    };
  },
};

const ac4: ReproCheck = {
  id: 'AC4',
  title: 'Weight and horizon insensitivity; controller time vs Hp',
  paper:
    'T_conv 140.3 / 149.1 / 175.5 µs at 1:1 / 1:10 / 1:100; "consistent" for Hp 3–20; qpOASES 256 / 344 / 470 / 917 µs per solve (Hp 3/5/10/20)',
  expected:
    'T_conv(1:1) ≤ T_conv(1:10) ≤ T_conv(1:100) (2 % slack), ratio 1:100/1:1 ≤ 1.35; Hp 5/10/20 within ±10 % of Hp 3; mean step time non-decreasing in Hp, Hp 20 > Hp 3 (fastest of 12 timed passes per step)',
  run(ctx): ReproOutcome {
    const conv = (over: string[], ackInt = false) => {
      const r = dumbbell(EXP1, {
        ...ctx,
        n: 4,
        overrides: ['duration=2ms', ...over],
        probe: ackInt ? { ackInt: true } : {},
      });
      return { r, c: convergence(r.trace, 0, r.out.results.durationNs, S_WIRE) };
    };
    const w1 = conv(['cc.mpcc.weightR=1']).c.convNs ?? Number.NaN;
    const w10 = conv(['cc.mpcc.weightR=10']).c.convNs ?? Number.NaN;
    const w100 = conv(['cc.mpcc.weightR=100']).c.convNs ?? Number.NaN;
    const weightsOk = w1 <= w10 * 1.02 && w10 <= w100 * 1.02 && w100 / w1 <= 1.35;
    const hps = [3, 5, 10, 20];
    const runs = hps.map((hp) => conv([`cc.mpcc.horizon=${hp}`], true));
    const tHp = runs.map((x) => x.c.convNs ?? Number.NaN);
    const hpOk = tHp.every((t) => Math.abs(t / tHp[0] - 1) <= 0.1);
    // Compute cost of each horizon on the same recorded ACK stream (the Hp = 3 run's), so only
    // the horizon differs; each horizon's own run is reported too.
    const common = replayFlows(runs[0].r.probe, runs[0].r.params);
    const sets = hps.map((hp) => ({ ...runs[0].r.params, horizon: hp }));
    const meanNs = compareMeanNs(common, sets);
    const sameInput = sets.map((p) => timeReplay(common, p, 1));
    const own = runs.map((x) => timeReplay(replayFlows(x.r.probe, x.r.params), x.r.params, 3));
    let timeOk = meanNs[3] > meanNs[0];
    for (let i = 1; i < meanNs.length; i++) if (meanNs[i] < meanNs[i - 1]) timeOk = false;
    return {
      measured:
        `T_conv 1:1/1:10/1:100 = ${us(w1)} / ${us(w10)} / ${us(w100)}; Hp 3/5/10/20 = ${tHp.map((t) => us(t)).join(' / ')}; ` +
        `mean step ${meanNs.map((t) => `${(t / 1000).toFixed(3)}`).join(' / ')} µs (dense ${sameInput.map((t) => (t.denseFraction * 100).toFixed(1)).join('/')} %); ` +
        `own runs ${own.map((t) => (t.stepMeanNs / 1000).toFixed(2)).join(' / ')} µs`,
      pass: weightsOk && hpOk && timeOk,
      values: {
        conv1to1Ns: w1,
        conv1to10Ns: w10,
        conv1to100Ns: w100,
        ...Object.fromEntries(hps.map((hp, i) => [`convHp${hp}Ns`, tHp[i]])),
        ...Object.fromEntries(hps.map((hp, i) => [`stepMeanHp${hp}Ns`, meanNs[i]])),
        ...Object.fromEntries(hps.map((hp, i) => [`ownStepMeanHp${hp}Ns`, own[i].stepMeanNs])),
        weightsOk,
        hpOk,
        timeOk,
      },
    };
  },
};

function exp2Run(ctx: ReproContext, over: string[]) {
  const r = dumbbell(EXP2, { ...ctx, overrides: over });
  const flows = r.out.results.flows;
  const joins = flows.map((f) => f.startNs).filter((t) => t > 0);
  const ends = flows.map((f) => f.endNs ?? Number.POSITIVE_INFINITY);
  const lastEndNs = Math.max(...ends.filter(Number.isFinite), 0);
  // A flow that never finished stretches the experiment to the run's end.
  const endNs = Number.isFinite(Math.max(...ends)) ? lastEndNs : r.out.results.durationNs;
  return {
    r,
    joins,
    departures: ends.filter((t) => Number.isFinite(t) && t < lastEndNs).sort((a, b) => a - b),
    lastEndNs: endNs,
    avgQ: timeAverage(r.trace, 0, endNs),
  };
}

/** Senders active at t (started, not finished). */
function activeAt(e: ReturnType<typeof exp2Run>, t: number): string[] {
  return e.r.out.results.flows
    .filter((f) => f.startNs <= t && (f.endNs === null || f.endNs > t))
    .map((f) => f.src);
}

function exp2Verdict(e: ReturnType<typeof exp2Run>) {
  const d = e.r.dBaseNs;
  const events = [...e.joins, ...e.departures, e.lastEndNs].sort((a, b) => a - b);
  const next = (t: number) => events.find((x) => x > t) ?? e.lastEndNs;
  const joins = e.joins.map((t) => {
    const to = next(t);
    const sh = sharesOf(e.r, activeAt(e, t + 1), t + 60 * d, to);
    const c = convergence(e.r.trace, t, to, S_WIRE);
    return {
      t,
      jain: sh.jain,
      util: sh.utilisation,
      convNs: c.convNs,
      boundNs: convBoundNs(e.r, c.peakBytes),
    };
  });
  const departures = e.departures.map((t) => {
    const remaining = activeAt(e, t + 1);
    const sh = sharesOf(e.r, remaining, t + 30 * d, t + 100 * d);
    return { t, util: sh.utilisation };
  });
  return {
    joins,
    departures,
    ok: {
      a: joins.every((j) => j.jain >= 1 - 0.02 && j.util >= 1 - 0.1),
      b: departures.every((x) => x.util >= 1 - 0.1),
      c: joins.every((j) => j.convNs !== null && j.convNs <= j.boundNs),
    },
  };
}

function exp2Text(v: ReturnType<typeof exp2Verdict>): string {
  const j = v.joins
    .map(
      (x) =>
        `join ${ms(x.t, 0)}: Jain ${fix(x.jain, 3)} util ${fix(x.util, 3)} conv ${x.convNs === null ? 'never' : us(x.convNs, 0)}/${us(x.boundNs, 0)}`,
    )
    .join('; ');
  const dep = v.departures.map((x) => `leave ${ms(x.t, 1)}: util ${fix(x.util, 3)}`).join('; ');
  return `${j}; ${dep}`;
}

const ac5: ReproCheck = {
  id: 'AC5',
  title: 'Fairness and convergence with joins and departures (Exp. 2, MB sizes)',
  paper: 'throughput → fair share after each join, freed bandwidth used; MPCC queue ≈ 0 after each join peak',
  expected:
    'after joins (+60·D_base..next): Jain ≥ 0.98, util ≥ 0.90; after departures (+30..100·D_base): util ≥ 0.90; join convergence ≤ 1.3·(D_base + peak·8/R); avg Q ≤ 2·S_wire, ≤ 0.1 × no-CC, ≤ HPCC + S_wire',
  run(ctx): ReproOutcome {
    const m = exp2Run(ctx, []);
    const h = exp2Run(ctx, ['defaults.nic.cc=hpcc']);
    const none = exp2Run(ctx, ['cc.mpcc.controller=off']);
    const v = exp2Verdict(m);
    const d = {
      abs: m.avgQ <= 2 * S_WIRE,
      vsNone: m.avgQ <= 0.1 * none.avgQ,
      vsHpcc: m.avgQ <= h.avgQ + S_WIRE,
    };
    return {
      measured:
        `${exp2Text(v)}; avg Q MPCC ${bytesText(m.avgQ)}, HPCC ${bytesText(h.avgQ)}, no-CC ${bytesText(none.avgQ)}; ` +
        `last flow done at ${ms(m.lastEndNs, 1)}`,
      pass: v.ok.a && v.ok.b && v.ok.c && d.abs && d.vsNone && d.vsHpcc,
      values: {
        mpccAvgQ: m.avgQ,
        hpccAvgQ: h.avgQ,
        noCcAvgQ: none.avgQ,
        a: v.ok.a,
        b: v.ok.b,
        c: v.ok.c,
        minJoinJain: Math.min(...v.joins.map((x) => x.jain)),
        minJoinUtil: Math.min(...v.joins.map((x) => x.util)),
        minDepartureUtil: Math.min(...v.departures.map((x) => x.util)),
        lastEndNs: m.lastEndNs,
      },
    };
  },
};

const ac5Hold: ReproCheck = {
  id: 'AC5b-hold',
  title: "Finding: the thesis' literal zero-queue rule (hold) after departures",
  paper: '"MPCC will maintain the existing size of the CWND" when every queue is 0 (§3.4)',
  expected: 'record AC5b, zeroQueuePolicy hold (spec: starves, SIM util 0.39–0.78, longest flow never ends)',
  run(ctx): ReproOutcome {
    const e = exp2Run(ctx, ['cc.mpcc.zeroQueuePolicy=hold']);
    const v = exp2Verdict(e);
    const unfinished = e.r.out.results.flows.filter((f) => f.endNs === null).map((f) => f.src);
    return {
      measured:
        `after departures util ${v.departures.map((x) => fix(x.util, 2)).join(', ') || '—'}; AC5b ${v.ok.b ? 'passes' : 'fails'}; ` +
        `unfinished: ${unfinished.length === 0 ? 'none' : unfinished.join(', ')} (run ${ms(e.r.out.results.durationNs, 0)})`,
      pass: 'finding',
      values: {
        ac5b: v.ok.b,
        minDepartureUtil: Math.min(...v.departures.map((x) => x.util)),
        unfinished: unfinished.length,
      },
    };
  },
};

const incastMeasure = (ctx: ReproContext, over: string[]): IncastMeasure =>
  incastOf(dumbbell(INCAST, { ...ctx, overrides: over }));

function ac6Text(m: IncastMeasure, h: IncastMeasure): string {
  const v = ac6Verdict(m, h);
  return (
    `peak ${bytesText(m.peak)} (HPCC ${bytesText(h.peak)}; bound ${bytesText(v.lower)}..${bytesText(v.upper)}, literal P bound ${v.literal ? 'holds' : 'missed'}), T_conv ${m.convNs === null ? 'never' : us(m.convNs)} ` +
    `(≤ ${us(convBoundNs(m.r, m.peak))}), avg Q ${bytesText(m.avgQ)} = ${fix(m.avgQ / h.avgQ, 2)} × HPCC ${bytesText(h.avgQ)}, ` +
    `last flow ${fix(m.lastNs / m.idealNs, 4)} × ideal, drops ${m.drops}`
  );
}

/** AC6's outcome for MPCC `m` against HPCC `h`; `extra` values go between the queues and the verdicts. */
function ac6Outcome(m: IncastMeasure, h: IncastMeasure, extra: ReproOutcome['values'] = {}): ReproOutcome {
  const v = ac6Verdict(m, h);
  const q = { peakBytes: m.peak, hpccPeakBytes: h.peak, convNs: m.convNs, avgQ: m.avgQ, hpccAvgQ: h.avgQ };
  return {
    measured: `${ac6Text(m, h)}${failedText(failedOf(v.ok, ''))}`,
    pass: v.all,
    values: { ...q, ...extra, ...okValues(v.ok) },
  };
}

const ac6: ReproCheck = {
  id: 'AC6',
  title: 'Incast 8 × 300 KB → 1, thesis dumbbell, vs HPCC',
  paper: 'MPCC: queues ≈ 0, incast finishes (§3.4, §5.4); SIM avg queue 0.68× HPCC, completion 1.112× ideal',
  expected:
    'peak within ±5 % of HPCC and in [(N−1)P, (N−1)P + (N+1)S_wire] (P in wire bytes); T_conv ≤ 1.3·(D_base + peak·8/R); avg Q ≤ 1.0 × HPCC; last flow ≤ 1.15 × ideal; 0 drops',
  run(ctx): ReproOutcome {
    const m = incastMeasure(ctx, []);
    return ac6Outcome(m, incastMeasure(ctx, ['defaults.nic.cc=hpcc']), {
      lastNs: m.lastNs,
      idealNs: m.idealNs,
      drops: m.drops,
    });
  },
};

const ac6D10: ReproCheck = {
  id: 'AC6-d10',
  title: 'Incast 8 × 300 KB → 1, VT-dumbbell-10, vs HPCC',
  paper: 'as AC6 with a larger BDP; SIM avg queue 0.88× HPCC, completion 1.046× ideal',
  expected: 'as AC6',
  run(ctx): ReproOutcome {
    const buf = ['defaults.switch.buffer=160KB'];
    const m = incastMeasure(ctx, [...D10, ...buf]);
    return ac6Outcome(
      m,
      incastMeasure(ctx, [...D10, ...buf, 'defaults.nic.cc=hpcc', 'cc.hpcc.baseRttNs=84us']),
    );
  },
};

const ac9c: ReproCheck = {
  id: 'AC9c',
  title: 'Applied windows within [W_floor, P]; hold keeps W on all-zero INT',
  paper: '0 ≤ W ≤ P_BD,max (§4.3.1); "maintain the existing CWND" on zero queues (§3.4)',
  expected: 'every applied W ∈ [W_floor, P] in the AC3/AC6 runs; with hold, W unchanged on each all-zero INT',
  run(ctx): ReproOutcome {
    const runs = [dumbbell(EXP1, { ...ctx, n: 4 }), dumbbell(EXP1, { ...ctx, n: 8 }), dumbbell(INCAST, ctx)];
    let lo = Number.POSITIVE_INFINITY;
    let hi = 0;
    let within = true;
    for (const r of runs)
      for (const w of r.probe.windows) {
        lo = Math.min(lo, w);
        hi = Math.max(hi, w);
        if (w < r.params.windowFloorBytes - 1e-9 || w > r.bdpBytes + 1e-6) within = false;
      }
    let zeroAcks = 0;
    let changed = 0;
    const before = new Map<string, number | null>();
    dumbbell(EXP1, {
      ...ctx,
      n: 4,
      overrides: ['cc.mpcc.zeroQueuePolicy=hold', 'duration=2ms'],
      probe: {
        onNicRx: (node, nic, pkt) => {
          if (pkt.kind === FrameKind.Ack && pkt.int !== null && pkt.int.hops.every((h) => h.qlenBytes === 0))
            before.set(node, nic.qpWindowBytes(pkt.destQp));
        },
        afterNicRx: (node, nic, pkt) => {
          const b = before.get(node);
          if (b === undefined) return;
          before.delete(node);
          zeroAcks++;
          if (nic.qpWindowBytes(pkt.destQp) !== b) changed++;
        },
      },
    });
    return {
      measured: `windows ${bytesText(lo)}..${bytesText(hi)} (P = ${bytesText(runs[0].bdpBytes)}); hold: ${zeroAcks} all-zero ACKs, ${changed} changed W`,
      pass: within && zeroAcks > 0 && changed === 0,
      values: { minWindowBytes: lo, maxWindowBytes: hi, zeroAcks, changed },
    };
  },
};

const ac9d: ReproCheck = {
  id: 'AC9d',
  title: 'Controller time per step, Hp = 3, over the incast run',
  paper: 'qpOASES 255 952 ns per solve at Hp = 3 (§5.2.2), 30× the 8.64 µs ACK interval',
  expected: 'median ≤ 5 µs and p99 ≤ 50 µs per step (spec: ≈1 µs fast path, ≈7 µs dense)',
  run(ctx): ReproOutcome {
    const r = dumbbell(INCAST, { ...ctx, probe: { ackInt: true } });
    const t = timeReplay(replayFlows(r.probe, r.params), r.params, 3);
    return {
      measured:
        `${t.steps} steps: median ${(t.medianNs / 1000).toFixed(2)} µs, p99 ${(t.p99Ns / 1000).toFixed(2)} µs, mean ${(t.stepMeanNs / 1000).toFixed(2)} µs ` +
        `(clock ${t.clockOverheadNs} ns; fast ${(t.fastFraction * 100).toFixed(1)} %, dense ${(t.denseFraction * 100).toFixed(1)} %, relaxed ${(t.infeasibleFraction * 100).toFixed(2)} %); replay ${t.faithful ? 'matches' : 'DIFFERS from'} the run`,
      pass: t.faithful && t.medianNs <= 5000 && t.p99Ns <= 50_000,
      values: { ...t },
    };
  },
};

const bdpFinding: ReproCheck = {
  id: 'F-BDP',
  title: 'Finding: the thesis\' "maxBDP = 30000 bytes"',
  paper: 'Exp. 1 prints maxBDP = 30000 bytes (§5.2) and T_conv 140.3 µs',
  expected: 'record P by eqs. 2.2–2.3 on the thesis dumbbell, T_conv with P = 30 000 B (spec item 1: 3750 B)',
  run(ctx): ReproOutcome {
    const a = dumbbell(EXP1, { ...ctx, n: 4 });
    const b = dumbbell(EXP1, { ...ctx, n: 4, overrides: ['cc.mpcc.bdpBytes=30000', 'duration=3ms'] });
    const ca = convergence(a.trace, 0, a.probe.out.results.durationNs, S_WIRE);
    const cb = convergence(b.trace, 0, b.probe.out.results.durationNs, S_WIRE);
    return {
      measured:
        `D_base ${us(a.dBaseNs)} → P = ${bytesText(a.bdpBytes)}: peak ${bytesText(ca.peakBytes)}, T_conv ${us(ca.convNs ?? Number.NaN)}; ` +
        `with P = 30 000 B: peak ${bytesText(cb.peakBytes)}, T_conv ${cb.convNs === null ? 'never' : us(cb.convNs)}`,
      pass: 'finding',
      values: {
        dBaseNs: a.dBaseNs,
        bdpBytes: a.bdpBytes,
        convNs: ca.convNs,
        peakBytes: ca.peakBytes,
        conv30kNs: cb.convNs,
        peak30kBytes: cb.peakBytes,
      },
    };
  },
};

export const mpccSuite: ReproSuite = {
  algorithm: 'mpcc',
  spec: 'docs/algorithms/mpcc.md',
  // AC1-AC6, AC7 (fat tree), AC8-AC9 and the findings, then the real-time runs.
  checks: [
    ...[ac1a, ac1b, ac1c, ac2, ac3Thesis, ac3D10, ac4, ac5, ac5Hold, ac6, ac6D10],
    ...paperTier(
      ac7Check,
      ac7LargeFinding,
      ac7P50Finding,
      ...ac7PanelFindings,
      ac7HadoopFinding,
      ac7MiceCheck,
    ),
    ...[ac8, ...solverChecks, ac9c, ac9d, bdpFinding, ...paperTier(...rtChecks)],
  ],
};

registerReproSuite(mpccSuite);
