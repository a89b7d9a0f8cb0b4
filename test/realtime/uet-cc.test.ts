/**
 * NSCC and RCCC in lockstep on local (issue 35, docs/algorithms/nscc.md, rccc.md): the UET
 * scenario of helpers.ts (NSCC alone, NSCC + RCCC and RCCC alone over spraying with trimming) gives
 * the flows, ports, hosts, summary and series of virtual time exactly, with the nodes in as many
 * processes as cores and in a process each.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { ensureBuilt, expectUetCcActs, scenario, tmp, UET_CC_LEAFSPINE, uetCcSections } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('NSCC and RCCC, lockstep on local', () => {
  let virtual: Results;
  beforeAll(() => {
    virtual = runScenario({ scenario: scenario(UET_CC_LEAFSPINE), outDir: tmp(), print: null }).results;
  });

  it('the virtual run exercises NSCC, RCCC, spraying and trimming', () => {
    expectUetCcActs(virtual);
  });

  for (const processes of ['auto', 'per-node']) {
    it(`processes ${processes}: flows, ports, hosts, summary and series identical to virtual time`, async () => {
      const out = await runScenario({
        scenario: scenario(UET_CC_LEAFSPINE, [`processes=${processes}`]),
        runtime: 'local',
        outDir: tmp(),
        print: null,
      });
      const r = out.results;
      console.log(
        `uet nscc + rccc, local (${processes}): ${r.summary.flowsCompleted}/7 flows, ${r.summary.trims} trims, wall ${(out.wallMs / 1000).toFixed(1)} s, dilation p50 ${r.realtime?.dilation?.p50}`,
      );
      expect(r.realtime?.sync).toBe('lockstep');
      expect(uetCcSections(r)).toEqual(uetCcSections(virtual));
      expect(r.warnings).toEqual(virtual.warnings);
    });
  }
});
