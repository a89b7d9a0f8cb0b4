/**
 * Issue 5: scenarios/baselines-websearch.yaml run once per baseline (dcqcn, hpcc, timely,
 * dctcp, swift) in virtual time; prints the FCT slowdown p50/p95/p99 per flow-size bucket per
 * algorithm (HPCC SIGCOMM'19 Fig. 11 style) and checks the HPCC paper's ordering: HPCC's
 * short-flow p99 slowdown is not above DCQCN's or TIMELY's.
 *
 * Per-algorithm switch settings as the HPCC simulator's run.py: DCTCP gets step ECN marking at
 * 300 KB (Kmin = Kmax, Pmax = 1); the others keep the scenario's 400 KB / 1600 KB / 0.2.
 * Run with `npm run test:paper` (about a minute).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/config/load.js';
import { runScenario } from '../../src/runtime/run.js';
import { type BucketStats, formatSlowdownTable, slowdownTable } from '../cc-e2e/slowdown.js';

const SCENARIO = join(import.meta.dirname, '../../scenarios/baselines-websearch.yaml');
const ALGORITHMS = ['dcqcn', 'hpcc', 'timely', 'dctcp', 'swift'];
const DCTCP_ECN = [
  'defaults.switch.ecn.kmin=300KB',
  'defaults.switch.ecn.kmax=300KB',
  'defaults.switch.ecn.pmax=1',
];

describe('baselines under WebSearch at 50% load (16-host leaf-spine)', () => {
  it('slowdown table; HPCC short-flow p99 ≤ DCQCN and TIMELY', () => {
    const table: Record<string, BucketStats[]> = {};
    for (const cc of ALGORITHMS) {
      const scenario = loadScenario(SCENARIO, [
        `defaults.nic.cc=${cc}`,
        ...(cc === 'dctcp' ? DCTCP_ECN : []),
      ]);
      const out = runScenario({
        scenario,
        outDir: mkdtempSync(join(tmpdir(), `rocelab-ws-${cc}-`)),
        print: null,
      });
      const r = out.results;
      expect(r.summary.drops, `${cc} drops`).toBe(0);
      expect(r.summary.flowsCompleted, `${cc} completed`).toBe(r.summary.flowsTotal);
      table[cc] = slowdownTable(r.flows);
      console.log(
        `${cc}: ${r.flows.length} flows, wall ${(out.wallMs / 1000).toFixed(1)} s, max queue ${r.summary.maxQueueBytes} B, PFC ${r.summary.pfcPauseTx}`,
      );
    }
    console.log(formatSlowdownTable(table));
    const shortP99 = (cc: string) => table[cc][0].p99;
    expect(shortP99('hpcc')).toBeLessThanOrEqual(shortP99('dcqcn'));
    expect(shortP99('hpcc')).toBeLessThanOrEqual(shortP99('timely'));
  });
});
