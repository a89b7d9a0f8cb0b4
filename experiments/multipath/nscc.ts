/**
 * M7a/M7b (docs/multipath.md): the spraying checks under the UEC reference simulator's own
 * set-up — NSCC (src/cc/nscc) over UET's delivery on a lossy, trimming fabric — where a marked
 * path penalises the entropy and, below NSCC's delay target, leaves the window alone, instead of
 * cutting the whole QP's rate as DCQCN does.
 */
import type { ReproCheck } from '../types.js';
import { SEEDS, slowRatios, tails, UET_FABRIC, x } from './runs.js';

const over = (policy: string) => [`defaults.nic.paths.policy=${policy}`, ...UET_FABRIC];
const ADAPTIVE = ['reps', 'bitmap', 'mixed'] as const;

export const nsccSpray: ReproCheck = {
  id: 'M7a',
  title: 'the reference set-up: NSCC over uet on a trimming fabric, the same permutation',
  paper: 'uet-htsim: REPS, bitmap and its default (mixed) spraying bring a permutation near ideal',
  expected: `reps, bitmap, mixed: tail FCT ≤ 1.15 × ideal (mean of ${SEEDS} seeds); oblivious and ecmp reported`,
  run(ctx) {
    const t = Object.fromEntries(
      [...ADAPTIVE, 'oblivious', 'ecmp'].map((p) => [p, tails(ctx, over(p))] as const),
    );
    return {
      measured: Object.entries(t)
        .map(([p, s]) => `${p} ${x(s)}`)
        .join(', '),
      pass: ADAPTIVE.every((p) => t[p].complete && t[p].mean <= 1.15),
      values: Object.fromEntries(Object.entries(t).map(([p, s]) => [p, s.mean])),
    };
  },
};

export const nsccSlowLink: ReproCheck = {
  id: 'M7b',
  title: 'the reference set-up with s9–s17 at 25 % from the start',
  paper: 'uet-htsim: 1.23× on its failed-link case (mixed, 128 entropies)',
  expected: `reps, bitmap, mixed: tail FCT ≤ 1.25 × the tail without the slow link (mean of ${SEEDS} seeds); oblivious reported`,
  run(ctx) {
    const r = Object.fromEntries(
      [...ADAPTIVE, 'oblivious'].map((p) => [p, slowRatios(ctx, over(p))] as const),
    );
    return {
      measured: `${Object.entries(r)
        .map(([p, s]) => `${p} ${x(s)}`)
        .join(', ')} the tail without it`,
      pass: ADAPTIVE.every((p) => r[p].complete && r[p].mean <= 1.25),
      values: Object.fromEntries(Object.entries(r).map(([p, s]) => [p, s.mean])),
    };
  },
};
