/**
 * Every shipped scenario (scenarios/*.yaml) on the local real-time runtime, in lockstep at its own
 * timeScale: every flow completes (that completes in virtual time) and flows, ports and hosts are
 * identical to virtual time's
 * (which implies the issue's tolerances: goodput within 5 %, max queue within 10 %, median
 * per-flow |ΔFCT| ≤ 2 %). That includes the 24-node leaf-spines (WebSearch, ~600 flows, ~7 M
 * frames; about two minutes each here). A scenario whose node processes would not fit this
 * machine's memory (the 320-host fat tree: 376 processes) is refused before any process starts,
 * with exit 2 and one line saying why and what to use instead; the test checks that too, so a
 * scenario is never silently left out.
 */
import { readdirSync } from 'node:fs';
import { freemem } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/app.js';
import { loadScenario } from '../../src/config/load.js';
import { NODE_PROCESS_BYTES } from '../../src/runtime/real/capacity.js';
import { runScenario } from '../../src/runtime/run.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import type { Results } from '../../src/stats/results.js';
import { ensureBuilt, ROOT, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const DIR = join(ROOT, 'scenarios');
const SHIPPED = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function sections(r: Results) {
  return { flows: r.flows, ports: r.ports, hosts: r.hosts };
}

describe('every shipped scenario in real time (local, lockstep)', () => {
  it('ships scenarios to check', () => {
    expect(SHIPPED.length).toBeGreaterThanOrEqual(4);
  });

  for (const file of SHIPPED) {
    const path = join(DIR, file);
    const nodes = setupRun(loadScenario(path), {}).topo.nodes.length;
    if (nodes * NODE_PROCESS_BYTES <= freemem()) {
      it(`${file} (${nodes} nodes): flows, ports and hosts identical to virtual time`, async () => {
        const virtual = runScenario({ scenario: loadScenario(path), outDir: tmp(), print: null }).results;
        const out = await runScenario({
          scenario: loadScenario(path),
          runtime: 'local',
          outDir: tmp(),
          print: null,
        });
        const r = out.results;
        const d = r.realtime?.dilation;
        console.log(
          `${file}: ${r.summary.flowsCompleted}/${r.summary.flowsTotal} flows, wall ${(out.wallMs / 1000).toFixed(1)} s, dilation p50 ${d?.p50} (min ${d?.min}, max ${d?.max}), ${r.realtime?.dataFrames} data frames, ${r.realtime?.promiseDatagrams} promise datagrams`,
        );
        // The issue's tolerances first (so a failure says how far off), then exact identity.
        const fct = new Map(virtual.flows.map((f) => [f.id, f.fctNs]));
        const dFct = r.flows
          .filter((f) => f.fctNs !== null && fct.get(f.id) != null)
          .map((f) => Math.abs(f.fctNs! / fct.get(f.id)! - 1))
          .sort((a, b) => a - b);
        const medianDFct = dFct.length === 0 ? 0 : dFct[Math.floor(dFct.length / 2)];
        console.log(
          `${file}: goodput ×${(r.summary.goodputBps / virtual.summary.goodputBps).toFixed(4)}, max queue ×${(r.summary.maxQueueBytes / virtual.summary.maxQueueBytes).toFixed(4)}, median |ΔFCT| ${(100 * medianDFct).toFixed(2)} %`,
        );
        expect(r.summary.goodputBps).toBeGreaterThanOrEqual(0.95 * virtual.summary.goodputBps);
        expect(r.summary.goodputBps).toBeLessThanOrEqual(1.05 * virtual.summary.goodputBps);
        expect(Math.abs(r.summary.maxQueueBytes / virtual.summary.maxQueueBytes - 1)).toBeLessThanOrEqual(
          0.1,
        );
        expect(medianDFct).toBeLessThanOrEqual(0.02);
        expect(r.realtime?.sync).toBe('lockstep');
        // every flow that completes in virtual time (dumbbell-2flows's two are endless by design)
        expect(r.summary.flowsCompleted).toBe(virtual.summary.flowsCompleted);
        expect(sections(r)).toEqual(sections(virtual));
      });
    } else {
      it(`${file} (${nodes} nodes): refused up front, exit 2 and one line naming the memory it needs`, async () => {
        const err: string[] = [];
        const io = { stdout: () => {}, stderr: (t: string) => void err.push(t), env: {}, cwd: ROOT };
        const code = await main(['run', path, '--runtime', 'local', '--out', tmp()], io);
        const lines = err.join('').trimEnd().split('\n');
        console.log(`${file}: exit ${code}: ${lines.join(' | ')}`);
        expect(code).toBe(2);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(`^rocelab: .*${nodes} node processes, about [\\d.]+ GB of memory`),
        );
      });
    }
  }
});
