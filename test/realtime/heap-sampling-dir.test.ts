/**
 * ROCELAB_HEAP_SAMPLING_DIR (the launchers; coordinator.ts `heapSamplingDir`): every node process
 * of a local run writes a sampling heap profile of its own into that directory, named like its
 * log by the nodes it runs, and they do not write over each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunOutput, runScenario } from '../../src/runtime/run.js';
import { ensureBuilt, INCAST_4TO1, scenario, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());
afterEach(() => {
  delete process.env.ROCELAB_HEAP_SAMPLING_DIR;
});

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}

function sampledBytes(n: ProfileNode): number {
  return n.children.reduce((sum, c) => sum + sampledBytes(c), n.selfSize);
}

describe('ROCELAB_HEAP_SAMPLING_DIR', () => {
  it('gives each node process a heap profile of its own', async () => {
    const dir = tmp('rocelab-heap-sampling-');
    process.env.ROCELAB_HEAP_SAMPLING_DIR = dir;
    const out = (await runScenario({
      scenario: scenario(INCAST_4TO1, ['processes=2']),
      runtime: 'local',
      outDir: tmp(),
      print: null,
    })) as RunOutput;
    expect(out.results.summary.flowsCompleted).toBe(4);
    const files = readdirSync(dir).sort();
    // One per process, named like its log: its first node, then +N for the N others it runs.
    expect(files).toHaveLength(out.results.realtime!.processes);
    let nodes = 0;
    for (const f of files) {
      const m = /^(h[1-5]|s1)(?:\+(\d+))?\.heapprofile$/.exec(f);
      expect(m, f).not.toBeNull();
      nodes += 1 + Number(m![2] ?? 0);
    }
    expect(nodes).toBe(6);
    for (const f of files) {
      const profile = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { head: ProfileNode };
      expect(sampledBytes(profile.head)).toBeGreaterThan(0);
    }
  }, 120_000);
});
