/**
 * Independent checks of MPCC's controller (AC9 a/b, docs/algorithms/mpcc.md "Reproduction"): our golden
 * vectors, a brute-force active-set enumeration QP solver (exact for small problems, shares no
 * code with src/cc/mpcc/qp.ts), a KKT residual check, and the exact feasibility test of the
 * MPC's constraints (interval propagation of the scalar queue).
 */
import type { MpcProblem } from '../../src/cc/mpcc/mpc.js';
import type { DenseQp } from '../../src/cc/mpcc/qp.js';
import type { Rng } from '../../src/env/rng.js';

// Our golden vectors V1-V10 (npm quadprog, cross-checked with SciPy SLSQP). Thesis-scale dumbbell unless stated: R = 1 Gbps, D = 30 µs, P = 3750 B, N = 4,
// W_fair = 937.5 B; B = S_wire·N/W with S_wire = 1080 (B = 1.152 at W = P). W_Q = 1 throughout.
const THESIS = { bdpBytes: 3750, flows: 4, wFairBytes: 937.5 };
const ONE_FLOW = { bdpBytes: 3750, flows: 1, wFairBytes: 3750 };
const FAT_TREE = { bdpBytes: 153_000, flows: 8, wFairBytes: 19_125 };

/**
 * One of our golden vectors V1-V10: the Riccati (unconstrained) sequence and the QP solution as
 * printed (3 decimals); `infeasible` vectors print the box-relaxed solution.
 */
function vector(
  id: string,
  [B, x, weightR, horizon, wMinBytes]: number[],
  unconstrained: number[],
  solution: number[],
  appliedBytes: number,
  plant = THESIS,
  infeasible = false,
) {
  const shape = { B, x, weightQ: 1, weightR, horizon, wMinBytes };
  return { id, ...plant, ...shape, unconstrained, solution, infeasible, appliedBytes };
}

const V5_RICCATI = [
  -438.15, -350.593, -279.392, -221.227, -173.384, -133.63, -100.11, -71.261, -45.737, -22.347,
];
const V1_RICCATI = [-1153.907, -381.263, -114.593];
const V2_RICCATI = [-433.339, -260.448, -122.121];
const V7_RICCATI = [-7528.477, -4696.919, -2254.943];
const V8_RICCATI = [-16693.02, -11099.194, -5540.762];

export type GoldenVector = ReturnType<typeof vector>;

//                        B      x       W_R  Hp  W_min
export const GOLDEN_VECTORS = [
  vector('V1', [1.152, 2000, 1, 3, 0], V1_RICCATI, [-937.5, -522.979, -157.188], 0),
  vector('V2', [1.152, 2000, 10, 3, 0], V2_RICCATI, V2_RICCATI, 504.161),
  vector('V3', [1.152, 12000, 1, 3, 0], [-6923.445, -2287.576, -687.558], [-937.5, -937.5, -937.5], 0),
  vector('V4', [1.152, 0, 1, 3, 0], [0, 0, 0], [0, 0, 0], 937.5),
  // W = 2000 B: B = 1080·4/2000.
  vector('V5', [2.16, 5000, 100, 10, 0], V5_RICCATI, V5_RICCATI, 499.35),
  vector('V6', [1.152, 2000, 10, 3, 270], V2_RICCATI, V2_RICCATI, 504.161),
  // N = 1: B = 1080/3750; the queue cannot be kept under (N−1)·P = 0, so the QP is infeasible.
  vector('V7', [0.288, 12000, 1, 3, 0], V7_RICCATI, [-3750, -3750, -2616.867], 0, ONE_FLOW, true),
  // The fat-tree 5-hop path at W = P: B printed 0.056471.
  vector('V8', [(1080 * 8) / 153_000, 100_000, 1, 3, 0], V8_RICCATI, V8_RICCATI, 2431.98, FAT_TREE),
  vector('V9', [1.152, 2000, 1, 3, 270], V1_RICCATI, [-667.5, -667.5, -228.746], 270),
  vector('V10', [1.152, 12000, 10, 3, 270], [-2600.035, -1562.687, -732.723], [-667.5, -667.5, -667.5], 270),
];

/** The MPC problem of a golden vector (u = W − W_fair, bounds [W_min, P], queue cap (N−1)·P). */
export function goldenProblem(v: GoldenVector): MpcProblem {
  return {
    B: v.B,
    x: v.x,
    lb: v.wMinBytes - v.wFairBytes,
    ub: v.bdpBytes - v.wFairBytes,
    qMax: (v.flows - 1) * v.bdpBytes,
    horizon: v.horizon,
    weightQ: v.weightQ,
    weightR: v.weightR,
  };
}

/** The window a golden vector's solution applies: clamp(u0 + W_fair, W_min, P). */
export function goldenApplied(v: GoldenVector, u0: number): number {
  return Math.min(v.bdpBytes, Math.max(v.wMinBytes, u0 + v.wFairBytes));
}

/**
 * One random instance of AC9b's family at horizon `hp`: B ∈ [0.01, 10), N ∈ [1, 16], P one of
 * `bdps`, W_fair = P/N, W_floor 270 B, x = 0 one time in ten else ∈ [0, 1.5·N·P), W_Q 1 and
 * W_R ∈ {1, 10, 100}. Infeasible ones (a queue that cannot be kept under (N−1)·P) are included.
 */
export function randomMpcProblem(rng: Rng, hp: number, bdps: readonly number[]): MpcProblem {
  const B = 0.01 + rng.next() * 9.99;
  const N = 1 + rng.int(16);
  const P = bdps[rng.int(bdps.length)];
  const wFair = P / N;
  const x = rng.next() < 0.1 ? 0 : rng.next() * 1.5 * N * P;
  return {
    B,
    x,
    lb: 270 - wFair,
    ub: P - wFair,
    qMax: (N - 1) * P,
    horizon: hp,
    weightQ: 1,
    weightR: [1, 10, 100][rng.int(3)],
  };
}

/**
 * Agreement with a value printed to 3 decimals: 1e-6 relative, or the printing's own half unit
 * (5e-4) plus 1e-9 for small values where 1e-6 relative is finer than the print.
 */
export function matchesPrinted(actual: number, printed: number): boolean {
  return Math.abs(actual - printed) <= Math.max(1e-6 * Math.abs(printed), 5e-4 + 1e-9);
}

/** ½xᵀHx + gᵀx. */
export function qpObjective(qp: DenseQp, x: ArrayLike<number>): number {
  const { n, H, g } = qp;
  let f = 0;
  for (let i = 0; i < n; i++) {
    let hx = 0;
    for (let j = 0; j < n; j++) hx += H[i * n + j] * x[j];
    f += 0.5 * x[i] * hx + g[i] * x[i];
  }
  return f;
}

/** KKT residuals of (x, λ) for min ½xᵀHx+gᵀx s.t. Cx ≥ b, relative to the problem's scale. */
export function kktResiduals(qp: DenseQp, x: ArrayLike<number>, lambda: ArrayLike<number>, tol = 1e-6) {
  const { n, m, H, g, C, b } = qp;
  let scaleGrad = 1;
  let stationarity = 0;
  for (let i = 0; i < n; i++) {
    let r = g[i];
    let mag = Math.abs(g[i]);
    for (let j = 0; j < n; j++) {
      r += H[i * n + j] * x[j];
      mag += Math.abs(H[i * n + j] * x[j]);
    }
    for (let k = 0; k < m; k++) {
      r -= C[k * n + i] * lambda[k];
      mag += Math.abs(C[k * n + i] * lambda[k]);
    }
    scaleGrad = Math.max(scaleGrad, mag);
    stationarity = Math.max(stationarity, Math.abs(r));
  }
  let primal = 0;
  let dual = 0;
  let complementarity = 0;
  for (let k = 0; k < m; k++) {
    let s = -b[k];
    let mag = Math.abs(b[k]);
    for (let j = 0; j < n; j++) {
      s += C[k * n + j] * x[j];
      mag += Math.abs(C[k * n + j] * x[j]);
    }
    primal = Math.max(primal, -s / Math.max(1, mag));
    dual = Math.max(dual, -lambda[k]);
    complementarity = Math.max(complementarity, Math.abs(lambda[k] * s) / (scaleGrad * Math.max(1, mag)));
  }
  stationarity /= scaleGrad;
  dual /= scaleGrad;
  const ok = stationarity <= tol && primal <= tol && dual <= tol && complementarity <= tol;
  return { stationarity, primal, dual, complementarity, ok };
}

/** Gaussian elimination with partial pivoting; null when singular. Row-major k×k. */
function solveLinear(a: number[][], rhs: number[]): number[] | null {
  const k = rhs.length;
  const A = a.map((r, i) => [...r, rhs[i]]);
  for (let c = 0; c < k; c++) {
    let piv = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(A[r][c]) > Math.abs(A[piv][c])) piv = r;
    if (Math.abs(A[piv][c]) < 1e-12) return null;
    [A[c], A[piv]] = [A[piv], A[c]];
    for (let r = c + 1; r < k; r++) {
      const f = A[r][c] / A[c][c];
      for (let j = c; j <= k; j++) A[r][j] -= f * A[c][j];
    }
  }
  const out = new Array<number>(k).fill(0);
  for (let r = k - 1; r >= 0; r--) {
    let s = A[r][k];
    for (let j = r + 1; j < k; j++) s -= A[r][j] * out[j];
    out[r] = s / A[r][r];
  }
  return out;
}

/**
 * Exact QP optimum by enumerating active sets of up to n constraints: for each, solve the
 * equality-constrained KKT system; the first primal-feasible point with λ ≥ 0 is the optimum
 * (the problem is strictly convex). Exponential: for small n and m only. null = infeasible.
 */
export function enumerateQp(qp: DenseQp): { x: number[]; objective: number } | null {
  const { n, m, H, g, C, b } = qp;
  const feasTol = 1e-9;
  const idx: number[] = [];
  let best: number[] | null = null;
  const tryActive = (): boolean => {
    const k = idx.length;
    const size = n + k;
    const A: number[][] = [];
    const rhs: number[] = [];
    for (let i = 0; i < n; i++) {
      const row = new Array<number>(size).fill(0);
      for (let j = 0; j < n; j++) row[j] = H[i * n + j];
      for (let a = 0; a < k; a++) row[n + a] = -C[idx[a] * n + i];
      A.push(row);
      rhs.push(-g[i]);
    }
    for (let a = 0; a < k; a++) {
      const row = new Array<number>(size).fill(0);
      for (let j = 0; j < n; j++) row[j] = C[idx[a] * n + j];
      A.push(row);
      rhs.push(b[idx[a]]);
    }
    const sol = solveLinear(A, rhs);
    if (sol === null) return false;
    for (let a = 0; a < k; a++) if (sol[n + a] < -1e-9) return false;
    const x = sol.slice(0, n);
    for (let i = 0; i < m; i++) {
      let s = -b[i];
      let mag = Math.abs(b[i]);
      for (let j = 0; j < n; j++) {
        s += C[i * n + j] * x[j];
        mag += Math.abs(C[i * n + j] * x[j]);
      }
      if (s < -feasTol * Math.max(1, mag)) return false;
    }
    best = x;
    return true;
  };
  const rec = (start: number): boolean => {
    if (tryActive()) return true;
    if (idx.length === n) return false;
    for (let i = start; i < m; i++) {
      idx.push(i);
      if (rec(i + 1)) return true;
      idx.pop();
    }
    return false;
  };
  rec(0);
  if (best === null) return null;
  return { x: best, objective: qpObjective(qp, best) };
}

/**
 * Whether 0 ≤ x + B·Σ_{i≤j} u_i ≤ qMax (j < Hp) is reachable with lb ≤ u_i ≤ ub: propagate the
 * interval of reachable queues step by step (exact for the scalar model).
 */
export function mpcFeasible(B: number, x: number, lb: number, ub: number, qMax: number, horizon: number) {
  let lo = x;
  let hi = x;
  const tol = 1e-9 * Math.max(1, Math.abs(x), Math.abs(qMax));
  for (let j = 0; j < horizon; j++) {
    lo = Math.max(0, lo + B * lb);
    hi = Math.min(qMax, hi + B * ub);
    if (lo > hi + tol) return false;
  }
  return true;
}
