/**
 * A small dense strictly convex QP solver, the fallback of MPCC's controller (the condensed QP of
 * thesis §4.5, eqs. 4.6-4.17):
 *
 *   minimise ½·xᵀHx + gᵀx   subject to   C_i·x ≥ b_i  (i = 0..m−1),   H symmetric positive definite.
 *
 * Dual active-set method of Goldfarb and Idnani (Math. Programming 27, 1983): start at the
 * unconstrained minimum, repeatedly add the most violated constraint and move along the primal
 * direction that keeps the active set tight while the multipliers stay ≥ 0, dropping an active
 * constraint whose multiplier would turn negative. It ends at the exact optimum in finitely many
 * steps or proves the constraints inconsistent (a violated constraint that no dual step can
 * satisfy), which is what MPCC needs to fall back to the box-only problem.
 *
 * Instead of the Cholesky/QR updates of the original we solve the small Schur system
 * (C_A·H⁻¹·C_Aᵀ) r = C_A·H⁻¹·c_p afresh per step: the problems have at most a few dozen
 * variables and are rare (the closed-form fast path handles most steps), so clarity wins.
 * Pure arithmetic; with a QpWorkspace a solve allocates nothing.
 */

export interface DenseQp {
  /** Variables. */
  n: number;
  /** n×n row-major, symmetric positive definite. */
  H: Float64Array;
  g: Float64Array;
  /** Constraints. */
  m: number;
  /** m×n row-major: row i is C_i. */
  C: Float64Array;
  b: Float64Array;
}

export type QpStatus = 'optimal' | 'infeasible' | 'iterations';

export interface QpResult {
  status: QpStatus;
  x: Float64Array;
  /** Lagrange multipliers (≥ 0), zero for inactive constraints. */
  lambda: Float64Array;
  /** Constraints added or dropped. */
  iterations: number;
}

/** In-place Cholesky L·Lᵀ of the k×k leading block of `a` (row-major, stride `s`); false if not PD. */
function cholesky(a: Float64Array, k: number, s: number): boolean {
  for (let i = 0; i < k; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i * s + j];
      for (let p = 0; p < j; p++) sum -= a[i * s + p] * a[j * s + p];
      if (i === j) {
        if (!(sum > 0)) return false;
        a[i * s + i] = Math.sqrt(sum);
      } else a[i * s + j] = sum / a[j * s + j];
    }
  }
  return true;
}

/** Solve L·Lᵀ·y = v in place (v ← y) with the factor from `cholesky`. */
function cholSolve(l: Float64Array, k: number, s: number, v: Float64Array): void {
  for (let i = 0; i < k; i++) {
    let sum = v[i];
    for (let p = 0; p < i; p++) sum -= l[i * s + p] * v[p];
    v[i] = sum / l[i * s + i];
  }
  for (let i = k - 1; i >= 0; i--) {
    let sum = v[i];
    for (let p = i + 1; p < k; p++) sum -= l[p * s + i] * v[p];
    v[i] = sum / l[i * s + i];
  }
}

function dotRow(C: Float64Array, i: number, n: number, x: Float64Array): number {
  let s = 0;
  const o = i * n;
  for (let j = 0; j < n; j++) s += C[o + j] * x[j];
  return s;
}

/** Row i of A (m×n) · row k of B (m×n), without views. */
function dotRows(A: Float64Array, i: number, B: Float64Array, k: number, n: number): number {
  let s = 0;
  const oa = i * n;
  const ob = k * n;
  for (let j = 0; j < n; j++) s += A[oa + j] * B[ob + j];
  return s;
}

/**
 * Buffers for problems of up to `maxN` variables and `maxM` constraints, so that a solve
 * allocates nothing (the controller keeps one per flow). Results returned with a workspace are
 * its own arrays (`x`, `lambda`; longer than n and m) and valid until the next solve.
 */
export class QpWorkspace {
  readonly L: Float64Array;
  readonly col: Float64Array;
  readonly V: Float64Array;
  readonly x: Float64Array;
  readonly rowNorm: Float64Array;
  readonly M: Float64Array;
  readonly r: Float64Array;
  readonly z: Float64Array;
  readonly active: Int32Array;
  readonly lam: Float64Array;
  readonly isActive: Uint8Array;
  readonly lambda: Float64Array;

  constructor(
    readonly maxN: number,
    readonly maxM: number,
  ) {
    this.L = new Float64Array(maxN * maxN);
    this.col = new Float64Array(maxN);
    this.V = new Float64Array(maxM * maxN);
    this.x = new Float64Array(maxN);
    this.rowNorm = new Float64Array(maxM);
    this.M = new Float64Array(maxN * maxN);
    this.r = new Float64Array(maxN);
    this.z = new Float64Array(maxN);
    this.active = new Int32Array(maxN);
    this.lam = new Float64Array(maxN);
    this.isActive = new Uint8Array(maxM);
    this.lambda = new Float64Array(maxM);
  }
}

export function solveDenseQp(qp: DenseQp, maxIterations = 0, workspace?: QpWorkspace): QpResult {
  const { n, m, C, b } = qp;
  const ws =
    workspace !== undefined && workspace.maxN >= n && workspace.maxM >= m ? workspace : new QpWorkspace(n, m);
  const { L, col, V, x, rowNorm, M, r, z, active, lam, isActive } = ws;
  const limit = maxIterations > 0 ? maxIterations : 10 * (m + n) + 10;
  // H⁻¹ column by column from one Cholesky factor.
  for (let i = 0; i < n * n; i++) L[i] = qp.H[i];
  if (!cholesky(L, n, n)) throw new RangeError('QP: H is not positive definite');
  // V row i = H⁻¹·C_iᵀ (m×n row-major).
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) col[j] = C[i * n + j];
    cholSolve(L, n, n, col);
    for (let j = 0; j < n; j++) V[i * n + j] = col[j];
  }
  for (let j = 0; j < n; j++) x[j] = -qp.g[j];
  cholSolve(L, n, n, x);

  // Scale of the problem for the stopping test: constraint violations are measured in x units
  // (s_i/‖C_i‖), tolerant to 1e-10 of the largest magnitude around.
  let scale = 1;
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += C[i * n + j] * C[i * n + j];
    rowNorm[i] = Math.sqrt(s);
    if (rowNorm[i] > 0) scale = Math.max(scale, Math.abs(b[i]) / rowNorm[i]);
    isActive[i] = 0;
  }
  for (let j = 0; j < n; j++) scale = Math.max(scale, Math.abs(x[j]));
  const tol = 1e-10 * scale;

  let k = 0;
  let iterations = 0;
  const finish = (status: QpStatus): QpResult => {
    const lambda = workspace === ws ? ws.lambda : new Float64Array(m);
    lambda.fill(0, 0, m);
    for (let a = 0; a < k; a++) lambda[active[a]] = Math.max(0, lam[a]);
    return { status, x: workspace === ws ? x : x.slice(0, n), lambda, iterations };
  };

  for (;;) {
    // The most violated inactive constraint (in x units).
    let p = -1;
    let worst = -tol;
    for (let i = 0; i < m; i++) {
      if (isActive[i] || rowNorm[i] === 0) continue;
      const v = (dotRow(C, i, n, x) - b[i]) / rowNorm[i];
      if (v < worst) {
        worst = v;
        p = i;
      }
    }
    if (p < 0) return finish('optimal');
    let lamP = 0;
    for (;;) {
      if (++iterations > limit) return finish('iterations');
      // r = (C_A H⁻¹ C_Aᵀ)⁻¹ C_A H⁻¹ c_p ;  z = H⁻¹c_p − H⁻¹C_Aᵀ r
      for (let a = 0; a < k; a++) {
        const ia = active[a];
        for (let c = 0; c <= a; c++) {
          const v = dotRows(C, ia, V, active[c], n);
          M[a * n + c] = v;
          M[c * n + a] = v;
        }
        r[a] = dotRows(C, ia, V, p, n);
      }
      if (k > 0 && !cholesky(M, k, n)) return finish('iterations');
      if (k > 0) cholSolve(M, k, n, r);
      for (let j = 0; j < n; j++) {
        let v = V[p * n + j];
        for (let a = 0; a < k; a++) v -= V[active[a] * n + j] * r[a];
        z[j] = v;
      }
      const d = dotRow(C, p, n, z);
      const dRef = dotRows(C, p, V, p, n);
      // c_p in the span of the active rows: no primal move exists, only a dual step.
      const primalStep = d > 1e-12 * dRef;
      let t1 = Number.POSITIVE_INFINITY;
      let drop = -1;
      for (let a = 0; a < k; a++) {
        if (r[a] > 0) {
          const t = lam[a] / r[a];
          if (t < t1) {
            t1 = t;
            drop = a;
          }
        }
      }
      const t2 = primalStep ? -(dotRow(C, p, n, x) - b[p]) / d : Number.POSITIVE_INFINITY;
      const t = Math.min(t1, t2);
      if (t === Number.POSITIVE_INFINITY) return finish('infeasible');
      if (primalStep) for (let j = 0; j < n; j++) x[j] += t * z[j];
      for (let a = 0; a < k; a++) lam[a] -= t * r[a];
      lamP += t;
      if (primalStep && t2 <= t1) {
        active[k] = p;
        lam[k] = lamP;
        k++;
        isActive[p] = 1;
        break;
      }
      isActive[active[drop]] = 0;
      for (let a = drop; a < k - 1; a++) {
        active[a] = active[a + 1];
        lam[a] = lam[a + 1];
      }
      k--;
    }
  }
}
