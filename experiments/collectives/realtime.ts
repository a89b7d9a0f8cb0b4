/**
 * RT-LOCAL (docs/collectives.md): scenarios/papers/collectives/rt-two-jobs.yaml (a pipelined ring
 * all-reduce, a skewed all-to-all and an alltoall with iterations) on the local real-time runtime
 * in lockstep gives the flows, ports, hosts and collectives of virtual time exactly.
 */

import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadScenario } from '../../src/config/load.js';
import { packageRoot } from '../../src/package-root.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import type { ReproCheck } from '../types.js';

const sections = (r: Results) => ({
  flows: r.flows,
  ports: r.ports,
  hosts: r.hosts,
  collectives: r.collectives,
});

export const RT_LOCAL: ReproCheck = {
  id: 'RT-LOCAL',
  title: 'Collectives and alltoall iterations in lockstep (local runtime) are those of virtual time',
  paper:
    'every dependency is local to one rank, so no global barrier is needed (docs/scenario.md "Dependencies")',
  expected:
    'flows, ports, hosts and collectives identical to virtual time; every flow completes; sync lockstep',
  async run(ctx) {
    const scenario = loadScenario(
      join(packageRoot(), 'scenarios', 'papers', 'collectives', 'rt-two-jobs.yaml'),
    );
    const v = runScenario({
      scenario,
      outDir: join(ctx.outDir, 'virtual'),
      seed: ctx.seed,
      print: null,
    }).results;
    const out = await runScenario({
      scenario,
      runtime: 'local',
      outDir: join(ctx.outDir, 'local'),
      seed: ctx.seed,
      print: null,
    });
    const r = out.results;
    const same = isDeepStrictEqual(sections(r), sections(v));
    const done = r.summary.flowsCompleted === r.summary.flowsTotal;
    return {
      measured: `${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, ${r.collectives?.ops.length ?? 0} collectives, sync ${r.realtime?.sync}, ${same ? 'identical to' : 'DIFFERENT from'} virtual time; wall ${(out.wallMs / 1000).toFixed(1)} s`,
      pass: same && done && r.realtime?.sync === 'lockstep',
      values: { identical: same, flows: r.summary.flowsCompleted, wallMs: Math.round(out.wallMs) },
    };
  },
};
