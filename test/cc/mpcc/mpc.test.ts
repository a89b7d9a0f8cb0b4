/**
 * MPCC's MPC solver (src/cc/mpcc/mpc.ts, qp.ts) against the golden vectors V1–V10
 * (check AC9a, docs/algorithms/mpcc.md), the first-move gain table, and an independent brute-force solver and
 * KKT check on random instances (AC9b, a smaller sample than the reproduction check's 10⁴).
 */
import { describe, expect, it } from 'vitest';
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
} from '../../../experiments/mpcc/verify.js';
import {
  condensedQp,
  firstMoveGain,
  mpcScratch,
  solveMpc,
  unconstrainedMpc,
} from '../../../src/cc/mpcc/mpc.js';
import { solveDenseQp } from '../../../src/cc/mpcc/qp.js';
import { createRng } from '../../../src/env/rng.js';

describe('golden vectors V1–V10 (AC9a)', () => {
  for (const v of GOLDEN_VECTORS) {
    it(`${v.id}: Riccati, QP solution and applied window`, () => {
      const problem = goldenProblem(v);
      const s = mpcScratch(v.horizon);
      const fastOk = unconstrainedMpc(problem, s);
      for (let j = 0; j < v.horizon; j++)
        expect(matchesPrinted(s.u[j], v.unconstrained[j]), `u${j} ${s.u[j]}`).toBe(true);
      const sol = solveMpc(problem);
      expect(fastOk).toBe(sol.path === 'fast');
      expect(sol.path === 'relaxed').toBe(v.infeasible);
      for (let j = 0; j < v.horizon; j++)
        expect(
          matchesPrinted(sol.u[j], v.solution[j]),
          `QP u${j} = ${sol.u[j]}, printed ${v.solution[j]}`,
        ).toBe(true);
      // Applied: clamp(u0 + W_fair, W_min, P).
      const applied = goldenApplied(v, sol.u[0]);
      expect(matchesPrinted(applied, v.appliedBytes), `applied ${applied}`).toBe(true);
    });
  }

  it('V1 and V3 violate lb and need the dense QP; V2, V5, V6, V8 are on the fast path', () => {
    const path = (id: string) => {
      const v = GOLDEN_VECTORS.find((g) => g.id === id)!;
      return solveMpc(goldenProblem(v)).path;
    };
    expect(['V1', 'V3', 'V9', 'V10'].map(path)).toEqual(['dense', 'dense', 'dense', 'dense']);
    expect(['V2', 'V4', 'V5', 'V6', 'V8'].map(path)).toEqual(['fast', 'fast', 'fast', 'fast', 'fast']);
  });
});

describe('first-move gain B·k0 (3 decimals)', () => {
  const table: [number, number, number, number, number, number, number][] = [
    // B,  1:1 Hp3, 1:1 Hp20, 1:10 Hp3, 1:10 Hp20, 1:100 Hp3, 1:100 Hp20
    [0.144, 0.057, 0.133, 0.006, 0.032, 0.001, 0.004],
    [1.152, 0.665, 0.666, 0.25, 0.304, 0.038, 0.107],
    [4.0, 0.944, 0.944, 0.696, 0.697, 0.28, 0.328],
  ];
  for (const [B, ...gains] of table) {
    it(`B = ${B}`, () => {
      const cases: [number, number][] = [
        [1, 3],
        [1, 20],
        [10, 3],
        [10, 20],
        [100, 3],
        [100, 20],
      ];
      cases.forEach(([wr, hp], i) => {
        expect(Math.abs(firstMoveGain(B, hp, 1, wr) - gains[i])).toBeLessThanOrEqual(5e-4 + 1e-12);
      });
    });
  }

  it('by hand: Hp = 1 gives k0 = B·W_Q/(W_R + B²·W_Q), e.g. B = 1, 1:1 → gain 0.5', () => {
    expect(firstMoveGain(1, 1, 1, 1)).toBeCloseTo(0.5, 12);
    // Hp = 2, B = 1, 1:1: S1 = 1 + 1·1/(1+1) = 1.5, k0 = 1.5/(1+1.5) = 0.6
    expect(firstMoveGain(1, 2, 1, 1)).toBeCloseTo(0.6, 12);
  });
});

describe('dense QP solver vs independent checks (AC9b sample)', () => {
  it('small hand problem: min ½(x²+y²) − x − y s.t. x + y ≤ 1 → (½, ½), λ = ½', () => {
    const r = solveDenseQp({
      n: 2,
      H: Float64Array.from([1, 0, 0, 1]),
      g: Float64Array.from([-1, -1]),
      m: 1,
      C: Float64Array.from([-1, -1]),
      b: Float64Array.from([-1]),
    });
    expect(r.status).toBe('optimal');
    expect(r.x[0]).toBeCloseTo(0.5, 12);
    expect(r.x[1]).toBeCloseTo(0.5, 12);
    expect(r.lambda[0]).toBeCloseTo(0.5, 12);
  });

  it('detects inconsistent constraints: x ≥ 1 and −x ≥ 0', () => {
    const r = solveDenseQp({
      n: 1,
      H: Float64Array.from([2]),
      g: Float64Array.from([0]),
      m: 2,
      C: Float64Array.from([1, -1]),
      b: Float64Array.from([1, 0]),
    });
    expect(r.status).toBe('infeasible');
  });

  it('random MPC instances: KKT to 1e-6, objective = brute force (Hp 3), infeasible ⇔ interval test, fast = dense', () => {
    const rng = createRng(8);
    const horizons = [3, 5, 10, 20];
    const bdps = [3750, 10_500, 52_000, 153_000];
    let dense = 0;
    let infeasible = 0;
    for (let k = 0; k < 800; k++) {
      const hp = horizons[k % 4];
      const p = randomMpcProblem(rng, hp, bdps);
      const sol = solveMpc(p);
      const feasible = mpcFeasible(p.B, p.x, p.lb, p.ub, p.qMax, hp);
      expect(sol.path === 'relaxed', `instance ${k}`).toBe(!feasible);
      const qp = condensedQp(p, feasible);
      const r = solveDenseQp(qp);
      expect(r.status).toBe('optimal');
      const kkt = kktResiduals(qp, r.x, r.lambda);
      expect(kkt.ok, `instance ${k}: ${JSON.stringify(kkt)}`).toBe(true);
      for (let j = 0; j < hp; j++)
        expect(Math.abs(r.x[j] - sol.u[j])).toBeLessThanOrEqual(1e-6 * Math.max(1, p.ub - p.lb));
      if (sol.path !== 'fast') dense++;
      if (!feasible) infeasible++;
      if (hp === 3) {
        const ref = enumerateQp(qp)!;
        const f = qpObjective(qp, r.x);
        expect(Math.abs(f - ref.objective)).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(ref.objective)));
      }
    }
    // The sample exercises every path.
    expect(dense).toBeGreaterThan(50);
    expect(infeasible).toBeGreaterThan(10);
  });
});
