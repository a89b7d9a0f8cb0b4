/**
 * scenarios/uet-vs-roce.yaml through `rocelab compare` (issue 35, docs/cli.md "Named variants"):
 * its five variants run in virtual time into one table, one compare.json and one report, and each
 * run is the set-up its name promises (algorithm, transport, path policy, PFC or trimming, RCCC).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/app.js';
import type { Results } from '../../src/stats/results.js';

const ROOT = join(import.meta.dirname, '..', '..');
const VARIANTS = ['dcqcn-gbn-ecmp', 'dcqcn-sr-reps', 'hpcc', 'nscc', 'nscc-rccc'];

describe('uet-vs-roce: compare across named variants', () => {
  it('one table and one report over DCQCN (gbn/ecmp, sr/reps), HPCC, NSCC and NSCC+RCCC', async () => {
    const out = mkdtempSync(join(tmpdir(), 'rocelab-uet-vs-roce-'));
    let stdout = '';
    let stderr = '';
    const code = await main(['compare', join(ROOT, 'scenarios', 'uet-vs-roce.yaml'), '--out', out], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {},
      cwd: ROOT,
    });
    expect(code, stderr).toBe(0);
    // One summary table, a column per variant in file order.
    const header = stdout.split('\n').find((l) => l.includes('dcqcn-gbn-ecmp') && l.includes('nscc-rccc'))!;
    expect(header.trim().split(/\s+/)).toEqual(VARIANTS);
    expect(stdout).toMatch(/flows completed\s+12\/12\s+12\/12\s+12\/12\s+12\/12\s+12\/12/);
    const cmp = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as { algorithms: string[] };
    expect(cmp.algorithms).toEqual(VARIANTS);
    expect(existsSync(join(out, 'report.html'))).toBe(true);

    const run = (v: string) => JSON.parse(readFileSync(join(out, v, 'results.json'), 'utf8')) as Results;
    const mp = (r: Results) => r.hosts.map((h) => h.multipath);
    const ccs = (r: Results) => [...new Set(r.flows.map((f) => f.cc))];

    const gbn = run('dcqcn-gbn-ecmp');
    expect(ccs(gbn)).toEqual(['dcqcn']);
    expect(mp(gbn).every((m) => m === undefined)).toBe(true);
    expect(gbn.summary.trims ?? 0).toBe(0);

    const reps = run('dcqcn-sr-reps');
    expect(ccs(reps)).toEqual(['dcqcn']);
    expect(mp(reps).every((m) => m?.transport === 'rocev2-sr' && m.policy === 'reps')).toBe(true);

    expect(ccs(run('hpcc'))).toEqual(['hpcc']);

    for (const v of ['nscc', 'nscc-rccc']) {
      const r = run(v);
      expect(ccs(r)).toEqual(['nscc']);
      expect(mp(r).every((m) => m?.transport === 'uet' && m.policy === 'mixed')).toBe(true);
      // Lossy and trimming (no PFC): the incast trims at h2's ToR.
      expect(r.summary.pfcPauseTx).toBe(0);
      expect(r.summary.trims).toBeGreaterThan(0);
      const pulls = mp(r).reduce((a, m) => a + (m?.pullTx ?? 0), 0);
      if (v === 'nscc') expect(pulls).toBe(0);
      else expect(pulls).toBeGreaterThan(0);
    }
  });
});
