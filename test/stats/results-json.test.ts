/**
 * results.json written in chunks (src/stats/results-json.ts): the file and `rocelab run --json`
 * never hold the whole text, each chunk stays small enough to die young, and the chunks together
 * are exactly the text serializeResults gives.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/config/load.js';
import { type RunOutput, runScenario } from '../../src/runtime/run.js';
import { resultsJsonChunks, serializeResults } from '../../src/stats/results.js';

const dir = mkdtempSync(join(tmpdir(), 'rocelab-results-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('results.json in chunks', () => {
  it('a run with over a megabyte of series: several chunks, together the whole text, as written and printed', async () => {
    let printed = '';
    let prints = 0;
    const out = (await runScenario({
      scenario: loadScenario({
        text: `name: chunks
duration: 2ms
sampleInterval: 100ns
defaults: { link: { rate: 100Gbps, delay: 1us }, nic: { cc: dcqcn, mtu: 1000 } }
topology: { kind: star, hosts: 4 }
workload:
  - { kind: incast, senders: [h1, h2, h3], receiver: h4, size: 10MB, start: 0 }
`,
      }),
      outDir: join(dir, 'out'),
      json: true,
      print: (t) => {
        printed += t;
        prints++;
      },
    })) as RunOutput;
    const whole = serializeResults(out.results);
    const chunks = [...resultsJsonChunks(out.results)];
    expect(whole.length).toBeGreaterThan(1 << 20);
    expect(chunks.length).toBeGreaterThan(1);
    // Every chunk is a young-generation string: V8 puts strings over 128 KB (one byte a
    // character here) in the old generation, where they stay until a full collection.
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(128 * 1024);
    expect(chunks.join('')).toBe(whole);
    expect(prints).toBe(chunks.length);
    expect(printed).toBe(whole);
    expect(readFileSync(out.resultsPath, 'utf8')).toBe(whole);
  }, 60_000);
});
