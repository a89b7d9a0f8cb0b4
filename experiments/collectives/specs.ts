/**
 * BAD-SPECS (docs/collectives.md): a collective that cannot run is refused with exit status 2 and
 * one line naming the key, before anything runs.
 */
import { join } from 'node:path';
import { main } from '../../src/cli/app.js';
import { packageRoot } from '../../src/package-root.js';
import type { ReproCheck } from '../types.js';

const CASES: [string, string, RegExp][] = [
  [
    'a rank that is not a host',
    'workload[0].ranks=[h1, h2, h99]',
    /workload\[0\]\.ranks: unknown host "h99"/,
  ],
  ['a size the ring cannot split', 'workload[0].size=64000001', /workload\[0\]\.size: .*not divisible by 8/],
  [
    'an op/algorithm pair that does not apply',
    'workload[0].algorithm=direct',
    /workload\[0\]\.algorithm: direct does not apply to allreduce/,
  ],
  [
    'halving-doubling on 6 ranks',
    'workload[0]={kind: collective, op: allreduce, algorithm: halving-doubling, ranks: h1..h6, size: 6MB}',
    /workload\[0\]\.ranks: halving-doubling needs a power-of-two number of ranks/,
  ],
];

export const BAD_SPECS: ReproCheck = {
  id: 'BAD-SPECS',
  title: 'Bad collective specs exit 2 with one line',
  paper: 'docs/scenario.md "kind: collective": sizes must split as the algorithm needs',
  expected: 'each bad spec: exit status 2, exactly one line on stderr naming the key',
  async run(ctx) {
    const file = join(packageRoot(), 'scenarios', 'ai-allreduce-ring.yaml');
    const parts: string[] = [];
    let pass = true;
    for (const [what, set, want] of CASES) {
      let err = '';
      const code = await main(['run', file, '--set', set, '--out', join(ctx.outDir, 'bad')], {
        stdout: () => {},
        stderr: (t) => {
          err += t;
        },
        env: {},
        cwd: packageRoot(),
      });
      const lines = err.trimEnd().split('\n');
      const ok = code === 2 && lines.length === 1 && want.test(lines[0]);
      if (!ok) pass = false;
      parts.push(
        `${what}: exit ${code}, ${lines.length} line${lines.length === 1 ? '' : 's'}${ok ? '' : ` (${lines[0]})`}`,
      );
    }
    return { measured: parts.join('; '), pass };
  },
};
