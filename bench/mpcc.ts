/**
 * MPCC controller cost per step (docs/algorithms/mpcc.md, check AC9d): the closed-form fast
 * path and the dense QP fallback at Hp = 3, 5, 10, 20, on the worst case where the
 * window's lower bound is active (golden vector V9 scaled to each horizon), plus one full
 * control step. CPU time on one core; the reproduction suite's AC4/AC9d time the steps of real runs.
 */
import { controlStep, initMpccState } from '../src/cc/mpcc/controller.js';
import { condensedQp, mpcScratch, solveMpc, unconstrainedMpc } from '../src/cc/mpcc/mpc.js';
import { mpccParams } from '../src/cc/mpcc/params.js';
import { solveDenseQp } from '../src/cc/mpcc/qp.js';
import { mpccPath } from '../src/cc/mpcc/rp.js';

/**
 * Mean ns of CPU time per call of `fn`: the best of several trials after a warm-up. CPU time,
 * because on a shared machine wall time counts the slices other processes ran in.
 */
function nsPerCall(fn: () => number, trials = 5, trialCpuMs = 100): number {
  let sink = 0;
  for (let i = 0; i < 2000; i++) sink += fn();
  let best = Number.POSITIVE_INFINITY;
  for (let t = 0; t < trials; t++) {
    let n = 0;
    const t0 = process.cpuUsage();
    let usedUs = 0;
    while (usedUs < trialCpuMs * 1000) {
      for (let i = 0; i < 64; i++) sink += fn();
      n += 64;
      const d = process.cpuUsage(t0);
      usedUs = d.user + d.system;
    }
    best = Math.min(best, (usedUs * 1000) / n);
  }
  if (sink === Number.MIN_VALUE) console.log(sink);
  return best;
}

export async function benchMpcc(): Promise<void> {
  const rows: string[] = ['Hp   fast path   dense QP   solveMpc (lb active)'];
  for (const hp of [3, 5, 10, 20]) {
    // V9: B = 1.152, Q̄ = 2000, 1:1, W_min = 270, W_fair = 937.5, P = 3750, N = 4.
    const p = {
      B: 1.152,
      x: 2000,
      lb: 270 - 937.5,
      ub: 3750 - 937.5,
      qMax: 3 * 3750,
      horizon: hp,
      weightQ: 1,
      weightR: 1,
    };
    const s = mpcScratch(hp);
    const fast = nsPerCall(() => (unconstrainedMpc(p, s) ? 1 : 0) + s.u[0]);
    const dense = nsPerCall(() => solveDenseQp(condensedQp(p, true)).x[0]);
    const full = nsPerCall(() => solveMpc(p, s).u[0]);
    rows.push(
      `${String(hp).padEnd(4)} ${(fast / 1000).toFixed(3).padStart(7)} µs ${(dense / 1000).toFixed(2).padStart(7)} µs ${(full / 1000).toFixed(2).padStart(9)} µs`,
    );
  }
  console.log(rows.join('\n'));
  // One control step on the thesis dumbbell with a queue that keeps the fast path.
  const params = mpccParams.parse({});
  const path = mpccPath(
    {
      qpn: 1,
      remoteQpn: 1,
      lineRateBps: 1e9,
      mtuBytes: 1000,
      baseRttNs: 0,
      bottleneckRateBps: 1e9,
      hops: 2,
      linkRatesBps: [1e9, 1e9, 1e9],
      propDelayNs: 3000,
    },
    params,
  );
  const st = initMpccState(path, params);
  const hops = [
    { qlenBytes: 1500, activeFlows: 4 },
    { qlenBytes: 0, activeFlows: 4 },
  ];
  const step = nsPerCall(() => {
    st.windowBytes = path.bdpBytes;
    return controlStep(st, path, hops, 2, params)!.windowBytes;
  });
  console.log(
    `controlStep (Hp 3, fast path, history ring of ${params.tauMaxSteps}): ${(step / 1000).toFixed(3)} µs`,
  );
}
