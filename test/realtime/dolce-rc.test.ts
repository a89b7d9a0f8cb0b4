/**
 * Dolce-RC check AC7-RT (dolce-rc.md §7.2 AC7, "or S = 1000 real time"): the E2 incast with 8
 * senders as OS processes over UDP (local runtime, 100 Mbit/s real links), DCQCN and Dolce-RC,
 * measured over [10, 40] s real. The same check is a paper-tier row of `rocelab reproduce`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { getReproSuite } from '../../src/reproduce/registry.js';
import { runCheck } from '../../src/reproduce/run.js';
import { formatReproMarkdown } from '../../src/reproduce/table.js';
import { ensureBuilt } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('dolce-rc in real time', () => {
  it('AC7-RT: incast utilisation, fairness and no loss vs DCQCN (local runtime)', async () => {
    const suite = getReproSuite('dolce-rc')!;
    const check = suite.checks.find((c) => c.id === 'AC7-RT')!;
    const outDir = mkdtempSync(join(tmpdir(), 'rocelab-dolce-rt-'));
    const row = await runCheck(suite, check, { tiers: 'all', outDir });
    console.log(formatReproMarkdown([row]));
    expect(row.error, row.error).toBeUndefined();
    expect(row.pass, `measured ${row.measured}; expected ${check.expected}`).toBe(true);
  });
});
