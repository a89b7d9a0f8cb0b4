/**
 * DR-UCB, the bandit of Dolce-RC and Dolce-RC+ (paper Alg. 1, §III-B): discounted UCB
 * (Garivier & Moulines) with a forced-exploration slot in which arm r is played at every
 * iteration t with t mod ⌊K/ε⌋ = r < K. The schedule is deterministic, so the bandit needs no
 * randomness at all; ties go to the lowest index.
 *
 * The discounted sums are kept by the O(K) recursion the paper's NIC stores (RewardACC and
 * ArmTriedNum, §IV-B.2) rather than Alg. 1's sums over the whole history.
 */

export class DrUcb {
  /** Forced-exploration period ⌊K/ε⌋ (iterations). */
  readonly period: number;
  /** Completed updates, i.e. the index of the next decision (Alg. 1's t). */
  t = 0;
  /** Discounted reward sums S_i (RewardACC). */
  readonly acc: Float64Array;
  /** Discounted play counts n_i (ArmTriedNum). */
  readonly n: Float64Array;

  constructor(
    readonly arms: number,
    readonly epsilon: number,
    readonly gamma: number,
    readonly xi: number,
  ) {
    if (!(Number.isInteger(arms) && arms >= 1)) throw new Error(`DR-UCB: bad arm count ${arms}`);
    if (!(epsilon > 0 && epsilon < 1)) throw new Error(`DR-UCB: epsilon ${epsilon} not in (0, 1)`);
    this.period = Math.floor(arms / epsilon);
    this.acc = new Float64Array(arms);
    this.n = new Float64Array(arms);
  }

  /** The arm for iteration `t` (Alg. 1 lines 3-8). */
  select(): number {
    const r = this.t % this.period;
    if (r < this.arms) return r;
    // Summed in index order so every implementation rounds alike (golden vectors of AC1).
    let total = 0;
    for (let i = 0; i < this.arms; i++) total += this.n[i];
    const logTotal = Math.log(total);
    let best = Number.NEGATIVE_INFINITY;
    let arg = 0;
    for (let i = 0; i < this.arms; i++) {
      const n = this.n[i];
      // Unreachable after the first K forced slots (n_i ≥ γ^period > 0); kept for safety.
      if (n <= 0) return i;
      const u = this.acc[i] / n + Math.sqrt((this.xi * logTotal) / n);
      if (u > best) {
        best = u;
        arg = i;
      }
    }
    return arg;
  }

  /** Credit reward `x` (clamped to [0, 1]) to `arm` and advance t (Alg. 1 lines 9-10). */
  update(arm: number, x: number): void {
    const reward = Number.isNaN(x) ? 0 : Math.min(1, Math.max(0, x));
    const g = this.gamma;
    for (let i = 0; i < this.arms; i++) {
      this.acc[i] *= g;
      this.n[i] *= g;
    }
    this.acc[arm] += reward;
    this.n[arm] += 1;
    this.t += 1;
  }
}
