/**
 * AC9a/AC9b (docs/algorithms/mpcc.md "Reproduction"): the controller against our golden vectors and against
 * independent checks on 10⁴ random instances (verify.ts).
 */
import { condensedQp, mpcScratch, solveMpc, unconstrainedMpc } from '../../src/cc/mpcc/mpc.js';
import { solveDenseQp } from '../../src/cc/mpcc/qp.js';
import { createRng } from '../../src/env/rng.js';
import type { ReproCheck, ReproOutcome } from '../types.js';
import {
  enumerateQp,
  GOLDEN_VECTORS,
  goldenApplied,
  goldenProblem,
  kktResiduals,
  matchesPrinted,
  mpcFeasible,
  qpObjective,
  randomMpcProblem,
} from './verify.js';

const ac9a: ReproCheck = {
  id: 'AC9a',
  title: 'Controller golden vectors V1–V10',
  paper: 'condensed QP of eqs. 4.6–4.17 solved per ACK (qpOASES), first move applied',
  expected:
    'Riccati sequence, QP solution and applied W of V1–V10 (our golden vectors, from npm quadprog cross-checked with SciPy SLSQP) to 1e-6 relative (printed to 3 decimals)',
  run(): ReproOutcome {
    const bad: string[] = [];
    let worst = 0;
    for (const v of GOLDEN_VECTORS) {
      const p = goldenProblem(v);
      const s = mpcScratch(v.horizon);
      unconstrainedMpc(p, s);
      const ric = Array.from(s.u);
      const sol = solveMpc(p);
      const applied = goldenApplied(v, sol.u[0]);
      const pairs: [number, number][] = [
        ...ric.map((x, i): [number, number] => [x, v.unconstrained[i]]),
        ...Array.from(sol.u).map((x, i): [number, number] => [x, v.solution[i]]),
        [applied, v.appliedBytes],
      ];
      for (const [a, b] of pairs) worst = Math.max(worst, Math.abs(a - b));
      if (!pairs.every(([a, b]) => matchesPrinted(a, b)) || (sol.path === 'relaxed') !== v.infeasible)
        bad.push(v.id);
    }
    return {
      measured: `${GOLDEN_VECTORS.length - bad.length}/${GOLDEN_VECTORS.length} vectors match (largest difference ${worst.toExponential(2)} B)${bad.length > 0 ? `; bad: ${bad.join(', ')}` : ''}`,
      pass: bad.length === 0,
      values: { matched: GOLDEN_VECTORS.length - bad.length, worstAbsBytes: worst },
    };
  },
};

const ac9b: ReproCheck = {
  id: 'AC9b',
  title: 'Controller on 10⁴ random instances vs independent checks',
  paper: 'qpOASES: exact active-set QP solutions',
  expected:
    'Hp ∈ {3,5,10,20}, B ∈ [0.01, 10], N ∈ [1, 16]: feasible ⇒ KKT to 1e-6 (and = brute-force optimum at Hp 3); infeasible exactly when the state constraints are; fast path = dense solver',
  run(): ReproOutcome {
    const rng = createRng(20_240_008);
    const horizons = [3, 5, 10, 20];
    const bdps = [3750, 10_500, 52_000, 102_500, 153_000];
    let kktBad = 0;
    let feasBad = 0;
    let fastBad = 0;
    let enumBad = 0;
    let enumerated = 0;
    let fast = 0;
    let dense = 0;
    let infeasible = 0;
    let worstKkt = 0;
    const count = 10_000;
    for (let k = 0; k < count; k++) {
      const hp = horizons[k % 4];
      const p = randomMpcProblem(rng, hp, bdps);
      const sol = solveMpc(p);
      const feasible = mpcFeasible(p.B, p.x, p.lb, p.ub, p.qMax, hp);
      if ((sol.path === 'relaxed') === feasible) feasBad++;
      if (sol.path === 'fast') fast++;
      else if (sol.path === 'dense') dense++;
      else infeasible++;
      const qp = condensedQp(p, feasible);
      const r = solveDenseQp(qp);
      if (r.status !== 'optimal') {
        kktBad++;
        continue;
      }
      const kkt = kktResiduals(qp, r.x, r.lambda);
      worstKkt = Math.max(worstKkt, kkt.stationarity, kkt.primal, kkt.dual, kkt.complementarity);
      if (!kkt.ok) kktBad++;
      let diff = 0;
      for (let j = 0; j < hp; j++) diff = Math.max(diff, Math.abs(r.x[j] - sol.u[j]));
      if (sol.path === 'fast' && diff > 1e-6 * Math.max(1, p.ub - p.lb)) fastBad++; // scale: the window box, P − W_floor
      if (hp === 3 && k % 2 === 0) {
        enumerated++;
        const ref = enumerateQp(qp);
        const f = qpObjective(qp, r.x);
        if (ref === null || Math.abs(f - ref.objective) > 1e-6 * Math.max(1, Math.abs(ref.objective)))
          enumBad++;
      }
    }
    return {
      measured:
        `${count} instances (fast ${fast}, dense ${dense}, infeasible → box ${infeasible}): KKT failures ${kktBad} (worst residual ${worstKkt.toExponential(1)}), ` +
        `feasibility disagreements ${feasBad}, fast ≠ dense ${fastBad}, brute force (Hp 3, ${enumerated}) disagreements ${enumBad}`,
      pass: kktBad === 0 && feasBad === 0 && fastBad === 0 && enumBad === 0,
      values: { count, fast, dense, infeasible, kktBad, feasBad, fastBad, enumBad, enumerated, worstKkt },
    };
  },
};

export const solverChecks: ReproCheck[] = [ac9a, ac9b];
