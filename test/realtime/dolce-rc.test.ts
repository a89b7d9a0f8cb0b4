/**
 * Dolce-RC check AC7-RT (docs/algorithms/dolce-rc.md, AC7): the first 2 ms of the E2 incast (N = 4) as OS
 * processes over UDP (local runtime, timeScale 50 000), compared with virtual time. The same check
 * is a paper-tier row of `rocelab reproduce`. A run whose own nodes report that the host could not
 * keep up measured the machine, not the algorithm: only then is it measured again (at most twice
 * more); the pass criteria are unchanged.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { getReproSuite } from '../../experiments/registry.js';
import { runCheck } from '../../experiments/run.js';
import { formatReproMarkdown } from '../../experiments/table.js';
import { ensureBuilt } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('dolce-rc in real time', () => {
  it('AC7-RT: incast utilisation, fairness and no loss vs DCQCN (local runtime)', async () => {
    const suite = getReproSuite('dolce-rc')!;
    const check = suite.checks.find((c) => c.id === 'AC7-RT')!;
    let row = await runCheck(suite, check, {
      tiers: 'all',
      outDir: mkdtempSync(join(tmpdir(), 'rocelab-dolce-rt-')),
    });
    console.log(formatReproMarkdown([row]));
    for (let retry = 0; retry < 2 && row.pass === false && /could not keep up/.test(row.measured); retry++) {
      row = await runCheck(suite, check, {
        tiers: 'all',
        outDir: mkdtempSync(join(tmpdir(), 'rocelab-dolce-rt-')),
      });
      console.log(formatReproMarkdown([row]));
    }
    expect(row.error, row.error).toBeUndefined();
    expect(row.pass, `measured ${row.measured}; expected ${check.expected}`).toBe(true);
  });
});
