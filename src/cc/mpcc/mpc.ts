/**
 * MPCC's constrained finite-horizon MPC on the scalar integrator Q(j+1) = Q(j) + B·u(j)
 * (thesis §4.3–4.5, eqs. 4.1-4.17):
 *
 *   min_u  Σ_{j=1..Hp} W_Q·Q(j)² + Σ_{j=0..Hp−1} W_R·u(j)²
 *   s.t.   lb ≤ u(j) ≤ ub,   0 ≤ Q(j) ≤ Qmax,   Q(0) = x
 *
 * with u = W − W_fair (the shifted input). Three tiers, each exact where it applies:
 * 1. the unconstrained optimum by a backward Riccati recursion (O(Hp)), returned when it
 *    satisfies every constraint (it then is the QP optimum);
 * 2. the condensed dense QP (eqs. 4.12–4.17) by the dual active-set solver of qp.ts;
 * 3. if the state rows are inconsistent (e.g. N = 1 ⇒ Qmax = 0 with x > 0), the box-only QP
 *    [OURS; the thesis does not say what qpOASES' failure led to].
 */
import { type DenseQp, type QpResult, QpWorkspace, solveDenseQp } from './qp.js';

export interface MpcProblem {
  /** Input gain B of the model (dimensionless). */
  B: number;
  /** Initial (delay-compensated) state Q̄, bytes. */
  x: number;
  /** Bounds of the shifted input u = W − W_fair, bytes. */
  lb: number;
  ub: number;
  /** Upper bound of the predicted queue, bytes ((N−1)·P); Infinity drops the state rows' upper half. */
  qMax: number;
  horizon: number;
  weightQ: number;
  weightR: number;
}

export type MpcPath = 'fast' | 'dense' | 'relaxed';

export interface MpcSolution {
  /** The optimal input sequence u(0..Hp−1); only u[0] is applied. */
  u: Float64Array;
  path: MpcPath;
  /** Active-set iterations of the dense solver(s) (0 on the fast path). */
  iterations: number;
}

/** Reusable buffers for one horizon: a control step allocates nothing, dense or not. */
export interface MpcScratch {
  horizon: number;
  S: Float64Array;
  u: Float64Array;
  /** The condensed QP's arrays (up to 4·Hp rows) and the solver's workspace. */
  qp: DenseQp;
  ws: QpWorkspace;
}

export function mpcScratch(horizon: number): MpcScratch {
  const n = horizon;
  return {
    horizon,
    S: new Float64Array(n + 1),
    u: new Float64Array(n),
    qp: {
      n,
      H: new Float64Array(n * n),
      g: new Float64Array(n),
      m: 4 * n,
      C: new Float64Array(4 * n * n),
      b: new Float64Array(4 * n),
    },
    ws: new QpWorkspace(n, 4 * n),
  };
}

/**
 * Unconstrained optimum (backward Riccati recursion, = −H⁻¹g of thesis §4.5): S[Hp] = W_Q; S[j] = W_Q +
 * S[j+1]·W_R/(W_R + B²·S[j+1]); k_j = B·S[j+1]/(W_R + B²·S[j+1]); u(j) = −k_j·Q(j). Writes u into `out`;
 * returns true when the sequence and the predicted queue satisfy every constraint (relative tolerance 1e-9).
 */
export function unconstrainedMpc(p: MpcProblem, s: MpcScratch, out: Float64Array = s.u): boolean {
  const { B, x, horizon: hp, weightQ: wq, weightR: wr } = p;
  const S = s.S;
  S[hp] = wq;
  for (let j = hp - 1; j >= 1; j--) S[j] = wq + (S[j + 1] * wr) / (wr + B * B * S[j + 1]);
  const eps = 1e-9 * Math.max(1, Math.abs(x));
  let q = x;
  let ok = true;
  for (let j = 0; j < hp; j++) {
    const k = (B * S[j + 1]) / (wr + B * B * S[j + 1]);
    const u = -k * q;
    out[j] = u;
    q += B * u;
    if (u < p.lb - eps || u > p.ub + eps || q < -eps || q > p.qMax + eps) ok = false;
  }
  return ok;
}

/**
 * First-move gain B·k_0: the fraction of Q̄ the unconstrained law removes in one step (tabulated in
 * test/cc/mpcc/mpc.test.ts).
 */
export function firstMoveGain(B: number, horizon: number, weightQ: number, weightR: number): number {
  const s = mpcScratch(horizon);
  unconstrainedMpc({ B, x: 1, lb: -Infinity, ub: Infinity, qMax: Infinity, horizon, weightQ, weightR }, s);
  return -B * s.u[0];
}

/**
 * The condensed QP of eqs. (4.12)–(4.17) with A = 1: H_ij = 2(W_Q·B²·(Hp − max(i,j)) + W_R·δ_ij),
 * g_i = 2·W_Q·B·x·(Hp − i); rows u_i ≥ lb, −u_i ≥ −ub, B·Σ_{i≤j}u_i ≥ −x and (with `stateUpper`)
 * −B·Σ_{i≤j}u_i ≥ x − Qmax.
 */
export function condensedQp(p: MpcProblem, stateRows: boolean, into?: DenseQp): DenseQp {
  const n = p.horizon;
  const { B, x, weightQ: wq, weightR: wr } = p;
  const upper = stateRows && Number.isFinite(p.qMax);
  const m = 2 * n + (stateRows ? n : 0) + (upper ? n : 0);
  const reuse = into !== undefined && into.n === n && into.C.length >= m * n;
  const H = reuse ? into.H : new Float64Array(n * n);
  const g = reuse ? into.g : new Float64Array(n);
  const C = reuse ? into.C : new Float64Array(m * n);
  const b = reuse ? into.b : new Float64Array(m);
  if (reuse) C.fill(0, 0, m * n);
  for (let i = 0; i < n; i++) {
    g[i] = 2 * wq * B * x * (n - i);
    for (let j = 0; j < n; j++) H[i * n + j] = 2 * (wq * B * B * (n - Math.max(i, j)) + (i === j ? wr : 0));
  }
  let r = 0;
  for (let i = 0; i < n; i++, r++) {
    C[r * n + i] = 1;
    b[r] = p.lb;
  }
  for (let i = 0; i < n; i++, r++) {
    C[r * n + i] = -1;
    b[r] = -p.ub;
  }
  if (stateRows) {
    for (let j = 0; j < n; j++, r++) {
      for (let i = 0; i <= j; i++) C[r * n + i] = B;
      b[r] = -x;
    }
    if (upper) {
      for (let j = 0; j < n; j++, r++) {
        for (let i = 0; i <= j; i++) C[r * n + i] = -B;
        b[r] = x - p.qMax;
      }
    }
  }
  if (reuse) {
    into.m = m;
    return into;
  }
  return { n, H, g, m, C, b };
}

/** Solve the MPC (thesis §4.5): fast path, else dense QP, else the box-only QP. */
export function solveMpc(p: MpcProblem, s: MpcScratch = mpcScratch(p.horizon)): MpcSolution {
  if (unconstrainedMpc(p, s)) return { u: s.u, path: 'fast', iterations: 0 };
  const own = s.horizon === p.horizon;
  const full: QpResult = own
    ? solveDenseQp(condensedQp(p, true, s.qp), 0, s.ws)
    : solveDenseQp(condensedQp(p, true));
  if (full.status === 'optimal') return { u: full.x, path: 'dense', iterations: full.iterations };
  const iterations = full.iterations;
  const box = own ? solveDenseQp(condensedQp(p, false, s.qp), 0, s.ws) : solveDenseQp(condensedQp(p, false));
  return { u: box.x, path: 'relaxed', iterations: iterations + box.iterations };
}
