/**
 * Dolce-RC checks that need no network (docs/algorithms/dolce-rc.md "Reproduction" AC1-AC4) and two findings the spec asks
 * to record (its items 2 and 4): the misprinted Eq. (3) and DR-UCB's exploration-bonus floor.
 */
import { dcqcn } from '../../src/cc/dcqcn/index.js';
import type { DcqcnParams } from '../../src/cc/dcqcn/params.js';
import type { PaperState } from '../../src/cc/dcqcn/rp.js';
import { DrUcb } from '../../src/cc/dolce-rc/dr-ucb.js';
import { cut, initMachine, timerEvent } from '../../src/cc/dolce-rc/machine.js';
import type { DolceRcParams } from '../../src/cc/dolce-rc/params.js';
import { type DolceRcState, dolceRcRp, machineParams } from '../../src/cc/dolce-rc/rp.js';
import { resolveParams } from '../../src/cc/registry.js';
import { driveRp, flowInfo as harnessFlow } from '../../src/cc/testing/index.js';
import { createRng } from '../../src/env/rng.js';
import { mean } from '../../src/stats/aggregate.js';
import { createExt } from '../../src/wire/packet-factory.js';
import type { ReproCheck } from '../types.js';
import { A2_PARAMS, alphaEq3Printed, alphaEq20, coeffs, dcqcnFixedPointP } from './fluid.js';

/** One 4 µs-RTT hop at `lineRateBps`, started at rate 0 as these checks always were. */
const flowInfo = (lineRateBps: number) =>
  harnessFlow({ lineRateBps, bottleneckRateBps: lineRateBps, baseRttNs: 4000 });
const FROM_ZERO = { initialRateBps: 0 };

const EPS = 0.015;
const GAMMA = 0.9998;
const XI = 0.5001;
const G = 1e9;
const US = 1000;

/** DR-UCB for `steps` iterations on fixed rewards: the bandit, its first 40 arms, all arms and the counts. */
function play(rewards: number[], steps: number) {
  const b = new DrUcb(rewards.length, EPS, GAMMA, XI);
  const arms: number[] = [];
  const counts = new Array<number>(rewards.length).fill(0);
  for (let t = 0; t < steps; t++) {
    const arm = b.select();
    arms.push(arm);
    counts[arm]++;
    b.update(arm, rewards[arm]);
  }
  return { b, seq: arms.slice(0, 40).join(''), arms, counts };
}

export const AC1: ReproCheck = {
  id: 'AC1',
  title: 'DR-UCB golden vectors',
  paper: 'Alg. 1 with γ = 0.9998, ε = 0.015, ξ = 0.5001 (§V-A)',
  expected:
    'K=4: first 40 = 0123323103233132303231332333013233332133, counts [40,66,131,4763], n ±1e-6; K=8: 0123456756435265140563576452565345615654, counts [20,27,40,65,129,4334,369,16]',
  run() {
    const k4 = play([0.5, 0.6, 0.7, 0.9], 5000);
    const k8 = play([0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 0.7, 0.1], 5000);
    const n4 = [21.333873, 35.791131, 72.355474, 3031.306271];
    const nErr = Math.max(...n4.map((v, i) => Math.abs(k4.b.n[i] - v)));
    const pass =
      k4.seq === '0123323103233132303231332333013233332133' &&
      k4.counts.join(',') === '40,66,131,4763' &&
      nErr <= 1e-6 &&
      k8.seq === '0123456756435265140563576452565345615654' &&
      k8.counts.join(',') === '20,27,40,65,129,4334,369,16';
    return {
      measured: `K=4: ${k4.seq}, counts [${k4.counts}], max |Δn| ${nErr.toExponential(1)}; K=8: ${k8.seq}, counts [${k8.counts}]`,
      pass,
      values: {
        k4Seq: k4.seq,
        k4Counts: k4.counts.join(','),
        nErr,
        k8Seq: k8.seq,
        k8Counts: k8.counts.join(','),
      },
    };
  },
};

function bernoulliShares(
  seed: number,
  means: (t: number) => number[],
  steps: number,
  windows: [from: number, to: number, arm: number][],
): number[] {
  const rng = createRng(seed);
  const b = new DrUcb(4, EPS, GAMMA, XI);
  const hits = windows.map(() => 0);
  for (let t = 0; t < steps; t++) {
    const arm = b.select();
    for (let w = 0; w < windows.length; w++) {
      const [from, to, target] = windows[w];
      if (t >= from && t < to && arm === target) hits[w]++;
    }
    b.update(arm, rng.next() < means(t)[arm] ? 1 : 0);
  }
  return windows.map(([from, to], w) => hits[w] / (to - from));
}

export const AC2: ReproCheck = {
  id: 'AC2',
  title: 'DR-UCB forced exploration and learning',
  paper: 'Theorem 1: regret (1−ε)·O(√T) + εT; forced slot every ⌊K/ε⌋ iterations',
  expected:
    '(a) t mod 266 ∈ {0..3} plays 0..3; (b) arm-3 share in [1000,5000) ≥ 0.93 for each of 20 seeds; (c) after the switch at 5000, arm-0 share ≥ 0.80 in [5200,6000) and ≥ 0.90 in [6000,15000) (mean of 10 seeds)',
  run() {
    const rng = createRng(99);
    const b = new DrUcb(4, EPS, GAMMA, XI);
    let forcedOk = true;
    for (let t = 0; t < 3000; t++) {
      const arm = b.select();
      if (t % 266 < 4 && arm !== t % 266) forcedOk = false;
      b.update(arm, rng.next());
    }
    const shares = Array.from(
      { length: 20 },
      (_, s) => bernoulliShares(s + 1, () => [0.5, 0.6, 0.7, 0.9], 5000, [[1000, 5000, 3]])[0],
    );
    const minShare = Math.min(...shares);
    const meanShare = mean(shares)!;
    const change = (t: number) => (t < 5000 ? [0.5, 0.6, 0.7, 0.9] : [0.9, 0.7, 0.6, 0.5]);
    const runs = Array.from({ length: 10 }, (_, s) =>
      bernoulliShares(s + 1, change, 15000, [
        [5200, 6000, 0],
        [6000, 15000, 0],
      ]),
    );
    const early = runs.reduce((x, r) => x + r[0], 0) / runs.length;
    const late = runs.reduce((x, r) => x + r[1], 0) / runs.length;
    return {
      measured: `(a) forced slots ${forcedOk ? 'exact' : 'WRONG'}; (b) arm-3 share min ${minShare.toFixed(3)}, mean ${meanShare.toFixed(3)} (spec ref 0.956 / 0.967); (c) arm-0 share ${early.toFixed(3)} in [5200,6000), ${late.toFixed(3)} in [6000,15000)`,
      pass: forcedOk && minShare >= 0.93 && early >= 0.8 && late >= 0.9,
      values: { forcedOk, minShare, meanShare, early, late },
    };
  },
};

/** The rate machine at 100 Gbit/s with Dolce-RC's defaults (R_AI 40 Mbit/s, R_HAI 200 Mbit/s, F 5, B 10 MB, T 60 µs). */
const MP = machineParams(flowInfo(100 * G), resolveParams('dolce-rc') as DolceRcParams);

export const AC3: ReproCheck = {
  id: 'AC3',
  title: 'Rate machine trajectories (Dolce-RC and DCQCN)',
  paper: "Eq. (1)-(2) on DCQCN's machine (§IV-A); DCQCN per [22]",
  expected:
    'from 40 Gbps, arm (0.5,1.125): Rt 45, Rc 30, FR 37.5/41.25/43.125/44.0625, AI 44.55125 (Rt 45.04), 44.815625 (Rt 45.08); arm (0.125,0.875): Rt 35, Rc 37.5, 36.25, 35.625; DCQCN α 0.501953125, Rc 29.9609375, Rt 40; rel. error ≤ 1e-9',
  run() {
    let worst = 0;
    const rel = (x: number, y: number) => {
      worst = Math.max(worst, Math.abs(x - y) / Math.abs(y));
    };
    // Through the RP, so the hooks and the machine are checked together.
    const p = resolveParams('dolce-rc', { arms: [[0.5, 1.125]] }) as DolceRcParams;
    const r = driveRp(dolceRcRp, p, flowInfo(100 * G), FROM_ZERO);
    (r.s as DolceRcState).m.rcBps = 40 * G;
    r.cnp();
    rel(r.rate(), 30 * G);
    rel((r.s as DolceRcState).m.rtBps, 45 * G);
    const rc = [37.5, 41.25, 43.125, 44.0625, 44.55125, 44.815625];
    const rt = [45, 45, 45, 45, 45.04, 45.08];
    for (let k = 0; k < 6; k++) {
      r.fire();
      rel(r.rate(), rc[k] * G);
      rel((r.s as DolceRcState).m.rtBps, rt[k] * G);
    }
    const m = initMachine(100 * G);
    m.rcBps = 40 * G;
    cut(m, 0.125, 0.875, MP);
    rel(m.rtBps, 35 * G);
    rel(m.rcBps, 37.5 * G);
    timerEvent(m, MP);
    rel(m.rcBps, 36.25 * G);
    timerEvent(m, MP);
    rel(m.rcBps, 35.625 * G);
    // DCQCN baseline as [22]: α updated before the cut, Rt = Rc.
    const dp = resolveParams('dcqcn', { alpha0: 0.5, cutWithUpdatedAlpha: true }, 'paper') as DcqcnParams;
    const d = driveRp(dcqcn.rp, dp, flowInfo(100 * G), FROM_ZERO);
    const ds = d.s as PaperState;
    ds.rcBps = 40 * G;
    ds.rtBps = 100 * G;
    d.cnp();
    rel(ds.alpha, 0.501953125);
    rel(d.rate(), 29.9609375 * G);
    rel(ds.rtBps, 40 * G);
    return {
      measured: `Dolce-RC Rc ${rc.join(' → ')} Gbps reproduced; DCQCN α ${ds.alpha}, Rc ${(d.rate() / G).toFixed(7)} Gbps; worst rel. error ${worst.toExponential(1)}`,
      pass: worst <= 1e-9,
      values: { worstRelError: worst },
    };
  },
};

/**
 * AC4's drive: 200 CNPs 50 µs apart on a 100 Gbit/s RP, 50 packets between them, and marks per
 * CNP that depend on the arm in force (10 / 5 / 2 / 1), so the UCB phase sees distinct rewards.
 * Returns the RP and the arm a reference DR-UCB picks for each 5-CNP window (X = 1 − 5·marks/250).
 */
export function ac4Drive(p: DolceRcParams) {
  const r = driveRp(dolceRcRp, p, flowInfo(100 * G), FROM_ZERO);
  const s = r.s as DolceRcState;
  const marksPerCnp = [10, 5, 2, 1];
  for (let j = 0; j < 200; j++) {
    const t = j * 50 * US;
    for (let k = 0; j > 0 && k < 50; k++) {
      r.at(t - 50 * US + k * US);
      r.tx();
    }
    r.at(t);
    const marks = marksPerCnp[s.arm];
    r.cnp((pkt) => {
      pkt.ext = createExt();
      pkt.ext.ecnCount = marks;
      pkt.bthResv7 = Math.min(127, marks);
    });
  }
  const ref = new DrUcb(4, p.epsilon, p.gamma, p.xi);
  const arms = [ref.select()];
  for (let k = 1; k < 40; k++) {
    ref.update(arms[k - 1], 1 - (5 * marksPerCnp[arms[k - 1]]) / 250);
    arms.push(ref.select());
  }
  return { r, s, arms };
}

export const AC4: ReproCheck = {
  id: 'AC4',
  title: 'Qualified-CNP gating',
  paper: 'Alg. 2: bandit advanced only at CNPs ≥ one fast-recovery phase apart (§IV-A)',
  expected:
    'CNPs every 50 µs to 9950 µs, Q_MIN 250 µs: exactly 39 updates at 250…9750 µs, windows 0,1,2,3 then UCB, all 200 CNPs cut with the arm of that instant (the new arm at a qualified CNP)',
  run() {
    const { r, arms } = ac4Drive(resolveParams('dolce-rc') as DolceRcParams);
    const cuts = r.log.filter((e) => e.why.startsWith('cnp'));
    const qualifiedAt = cuts.filter((e) => e.why.startsWith('cnp:q')).map((e) => e.t / US);
    const armsOk = cuts.every(
      (e, j) =>
        e.t === j * 50 * US &&
        e.why === `${j > 0 && j % 5 === 0 ? 'cnp:q' : 'cnp'}:arm${arms[Math.floor(j / 5)]}`,
    );
    const updates = r.counts.get('dolceRcUpdates') ?? 0;
    const qualifiedOk = qualifiedAt.length === 39 && qualifiedAt.every((t, i) => t === 250 * (i + 1));
    return {
      measured: `${updates} updates, qualified at ${qualifiedAt[0]}…${qualifiedAt.at(-1)} µs every 250 µs; ${cuts.length} cuts; window arms ${arms.join('')}; per-CNP arms ${armsOk ? 'as expected' : 'WRONG'}`,
      pass: updates === 39 && qualifiedOk && cuts.length === 200 && armsOk,
      values: { updates, cuts: cuts.length, windowArms: arms.join('') },
    };
  },
};

export const F1: ReproCheck = {
  id: 'F1',
  title: 'Finding: Eq. (3) is misprinted; Eq. (20) holds',
  paper: 'Theorem 2: α = [β − 1 + (τR_AI/a)(c+e)] / (τR_C*(b+d)) (Eq. 3), "identical" to Eq. (20)',
  expected:
    "record: at β = 1 and DCQCN's fixed point p*, Eq. (20) returns α = a(p*) (DCQCN's own equilibrium) and the spec's A.2 table; printed Eq. (3) does not",
  run() {
    const rows: string[] = [];
    const values: Record<string, number> = {};
    let consistent = true;
    for (const n of [1, 8, 32, 100]) {
      const rcPps = 100e9 / 8000 / n;
      const p = dcqcnFixedPointP(rcPps, A2_PARAMS);
      const a = coeffs(p, rcPps, A2_PARAMS).a;
      const e20 = [0.9, 1.0, 1.1].map((b) => alphaEq20(b, p, rcPps, A2_PARAMS));
      const e3 = alphaEq3Printed(1, p, rcPps, A2_PARAMS);
      if (Math.abs(e20[1] - a) > 1e-9 * Math.max(a, 1e-12)) consistent = false;
      values[`pStar_${n}`] = p;
      values[`eq20_b09_${n}`] = e20[0];
      values[`eq20_b10_${n}`] = e20[1];
      values[`eq20_b11_${n}`] = e20[2];
      values[`eq3_b10_${n}`] = e3;
      rows.push(
        `N=${n}: p* ${p.toExponential(1)}, Eq.20 α(β=.9/1/1.1) = ${e20.map((x) => x.toFixed(3)).join('/')}, printed Eq.3 α(β=1) = ${e3.toFixed(4)}`,
      );
    }
    return {
      measured: `${rows.join('; ')}. Eq. (20) reproduces A.2 and DCQCN's α = a at β = 1; printed Eq. (3) does not (its β=1 value is not DCQCN's α); β ∈ [0.7, 1.3] (Fig. 3) gives α far outside [0, 1], so Fig. 3 is not reproducible`,
      pass: consistent ? 'finding' : false,
      values,
    };
  },
};

export const F2: ReproCheck = {
  id: 'F2',
  title: 'Finding: the bonus floor at γ = 0.9998 makes DR-UCB mix arms',
  paper: 'DR-UCB "learns" the best (α, β) per connection (§III-B, §IV)',
  expected:
    'record: Σn → 1/(1−γ) = 5000, bonus ≥ √(ξ ln 5000 / 5000) ≈ 0.029; best-arm share (4 arms, second half of T = 5000) vs reward gap: spec A.3 0.38 (0.01), 0.78 (0.05), 0.92 (0.1)',
  run() {
    const floor = Math.sqrt((XI * Math.log(1 / (1 - GAMMA))) / (1 / (1 - GAMMA)));
    const shares = [0.01, 0.05, 0.1].map((gap) => {
      const { arms } = play([0.97 - 3 * gap, 0.97 - 2 * gap, 0.97 - gap, 0.97], 5000);
      return arms.slice(2500).filter((a) => a === 3).length / 2500;
    });
    return {
      measured: `bonus floor ${floor.toFixed(4)}; best-arm share ${shares.map((s) => s.toFixed(2)).join(' / ')} at gaps 0.01 / 0.05 / 0.1 — Eq. (4) rewards under DCQCN-like control differ by ≪ 0.05, so Dolce-RC plays a near-uniform mixture (see AC7's arm counts)`,
      pass: 'finding',
      values: { bonusFloor: floor, share001: shares[0], share005: shares[1], share01: shares[2] },
    };
  },
};
