/**
 * NSCC and RCCC on `--runtime netns` (root; issue 35): the UET scenario of
 * test/realtime/helpers.ts, one namespace per node over tc-shaped veths at its 4 KB MTU, in
 * lockstep, gives the flows, ports, hosts, summary and series of virtual time exactly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { NetnsRun } from '../../src/runtime/netns/launcher.js';
import { runScenario } from '../../src/runtime/run.js';
import { ensureBuilt, expectUetCcActs, UET_CC_LEAFSPINE, uetCcSections } from '../realtime/helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'rocelab-netns-uet-'));
beforeAll(() => ensureBuilt());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('NSCC and RCCC on netns (needs root)', () => {
  it('lockstep in namespaces: identical to virtual time', async () => {
    const scenario = parseScenarioText(UET_CC_LEAFSPINE, { file: 'uet-cc.yaml', dir: '.' });
    const virtual = runScenario({ scenario, outDir: join(tmp, 'virtual'), print: null }).results;
    expectUetCcActs(virtual);
    const out = await NetnsRun.create({ scenario, outDir: join(tmp, 'netns'), print: null }).run();
    const r = out.results;
    console.log(
      `uet nscc + rccc, netns lockstep: ${r.summary.flowsCompleted}/7 flows, ${r.summary.trims} trims, wall ${(out.wallMs / 1000).toFixed(1)} s, ${r.realtime?.datagrams} datagrams`,
    );
    expect(r.realtime?.sync).toBe('lockstep');
    expect(r.warnings.filter((w) => /not be encoded/.test(w))).toEqual([]);
    expect(uetCcSections(r)).toEqual(uetCcSections(virtual));
  });
});
