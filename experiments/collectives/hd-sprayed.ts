/**
 * HD-16-SPRAY (docs/collectives.md): the halving-doubling all-reduce of HD-16 with its QPs
 * sprayed over the spines by the multipath transport (docs/multipath.md): DCQCN over
 * `rocev2-sr`, 128 entropies per QP and one ACK per packet (the spraying set-up the UEC reference
 * simulator validates). The gate is its default policy, `mixed`; REPS and oblivious spraying
 * are reported beside it.
 */
import { inDir, type ReproCheck } from '../types.js';
import { HD_OVERRIDES, spread } from './jobs.js';
import { collectiveRun, ratios, shipped } from './runs.js';

/** How the sprayed HD-16 runs choose paths (docs/multipath.md "Spraying set-up"). */
export const HD_SPRAY_OVERRIDES: readonly string[] = [
  'defaults.nic.transport=rocev2-sr',
  'defaults.nic.paths.count=128',
  'defaults.nic.sackBytes=4KB',
];

const POLICIES = ['mixed', 'reps', 'oblivious'] as const;

export const HD_16_SPRAY: ReproCheck = {
  id: 'HD-16-SPRAY',
  title: 'Halving-doubling all-reduce, 64 MB over 16 ranks, sprayed over the spines: CCT against its ideal',
  paper:
    'spraying a QP over every spine removes the collisions of per-flow ECMP (uet-htsim; issue "AI training traffic")',
  expected:
    'every iteration’s CCT within 5 % of the ideal with the reference’s default policy (mixed); REPS and oblivious reported',
  run(ctx) {
    const out = POLICIES.map((p) => {
      const r = collectiveRun(
        `hd16-${p}`,
        shipped('ai-allreduce-ring.yaml', [
          ...HD_OVERRIDES,
          ...HD_SPRAY_OVERRIDES,
          `defaults.nic.paths.policy=${p}`,
        ]),
        inDir(ctx, `hd16-${p}`),
      );
      return { p, r, ops: r.collectives.ops };
    });
    const gate = out[0];
    const done = gate.ops.every((o) => o.cctNs !== null);
    const s = spread(gate.r.collectives);
    return {
      measured: `${out.map((o) => `${o.p} ${ratios(o.ops.map((op) => op.ratio))}`).join('; ')} of ${(gate.ops[0].idealNs / 1e6).toFixed(3)} ms; mixed: spine links ${(s.min * 100).toFixed(0)}-${(s.max * 100).toFixed(0)} % utilised, ${gate.r.results.hosts.reduce((a, h) => a + h.cnpRx, 0)} CNPs`,
      pass: done && gate.ops.every((o) => o.ratio !== null && o.ratio <= 1.05),
      values: Object.fromEntries(
        out.flatMap((o) => o.ops.map((op, i) => [`${o.p}_${i}`, op.ratio] as const)),
      ),
    };
  },
};
