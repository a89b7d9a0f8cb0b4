/**
 * `kind: matrix`: the UEC reference simulator's connection matrices (src/workload/matrix.ts), on
 * the copies of its validation suite's files in parity/uet/matrices, and every refusal as one line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../../src/config/load.js';
import { createRng } from '../../src/env/rng.js';
import { buildFatTree, buildStar } from '../../src/topology/build.js';
import { WorkloadError } from '../../src/workload/cdf.js';
import { generateWorkload } from '../../src/workload/generate.js';
import { loadMatrix, parseMatrix } from '../../src/workload/matrix.js';

const ROOT = join(import.meta.dirname, '..', '..');
const M = (f: string) => join(ROOT, 'parity', 'uet', 'matrices', f);

function refusal(text: string): string {
  try {
    parseMatrix(text, 'x.cm');
  } catch (err) {
    expect(err).toBeInstanceOf(WorkloadError);
    expect((err as Error).message.includes('\n')).toBe(false);
    return (err as Error).message;
  }
  throw new Error('matrix unexpectedly parsed');
}

describe('connection matrices', () => {
  it('reads the suite files: nodes, connections, starts in µs, ids', () => {
    const one = loadMatrix(M('one.cm'));
    expect(one).toEqual({
      nodes: 16,
      connections: [{ src: 0, dst: 13, startNs: 0, sizeBytes: 2_000_000, id: null, msg: false, line: 3 }],
    });
    const inc = loadMatrix(M('incast_3-1_overlapped.tm'));
    expect(inc.nodes).toBe(128);
    expect(inc.connections.map((c) => [c.src, c.dst, c.startNs, c.sizeBytes, c.id])).toEqual([
      [127, 0, 0, 2_000_000, 1],
      [95, 0, 40_000, 250_000, 2],
      [61, 0, 40_000, 250_000, 3],
    ]);
    expect(loadMatrix(M('perm_1024n_1024c_0u_2000000b.cm')).connections).toHaveLength(1024);
  });

  it('messages of a reused connection (id … msg) keep their id', () => {
    const m = loadMatrix(M('test_cr_1f10m1p.cm'));
    expect(m.connections).toHaveLength(10);
    expect(m.connections.every((c) => c.id === 1 && c.msg && c.src === 0 && c.dst === 1)).toBe(true);
  });

  it('refuses what it cannot honour, naming the file and line', () => {
    expect(refusal('Nodes 4\nConnections 1\n0->9 start 0 size 10\n')).toBe(
      'matrix x.cm line 3: node 9 is not in 0..3',
    );
    expect(refusal('Nodes 4\nConnections 2\n0->1 start 0 size 10\n')).toBe(
      'matrix x.cm line 4: the header says 2 connections, the file has 1',
    );
    expect(refusal('Nodes 4\n0->1 start 0 size 10 color red\n')).toBe(
      'matrix x.cm line 2: unknown token "color"',
    );
    expect(refusal('Nodes 4\n0->1 size 10\n')).toBe('matrix x.cm line 2: no start time');
    expect(refusal('Nodes 4\n0->1 start 0 size 0\n')).toBe(
      'matrix x.cm line 2: size must be a whole number of bytes ≥ 1',
    );
    expect(refusal('Nodes 4\n0->1 start -3 size 10\n')).toBe(
      'matrix x.cm line 2: start must be a time in µs ≥ 0',
    );
    expect(refusal('Nodes 4\n0->1 id 1 trigger 2 size 10\n')).toMatch(/line 2: trigger is not supported/);
    expect(refusal('Nodes 4\n0->0 start 0 size 10\n')).toBe(
      'matrix x.cm line 2: connection from node 0 to itself',
    );
    expect(refusal('Nodes 4\n0->1 id 1 start 0 size 10\n2->3 id 1 start 0 size 10\n')).toMatch(
      /line 3: id 1 used twice/,
    );
    expect(refusal('0->1 start 0 size 10\n')).toBe('matrix x.cm line 1: no "Nodes <count>" header');
    expect(refusal('Nodes 4\nhello\n')).toMatch(
      /line 2: expected a connection "src->dst start <us> size <bytes>"/,
    );
    expect(() => loadMatrix('/nonexistent/m.cm', 'm.cm')).toThrow('matrix m.cm: file not found');
  });
});

describe('kind: matrix', () => {
  const topo = buildFatTree({ k: 4, hostLink: { rateBps: 100e9, delayNs: 1000 } });
  const scenario = (w: string) =>
    parseScenarioText(`topology: { kind: fattree, k: 4 }\nworkload: [${w}]\n`, {
      file: join(ROOT, 'x.yaml'),
    });

  it('node i is the i-th host of the topology; paths resolve against the scenario', () => {
    const s = scenario('{ kind: matrix, file: parity/uet/matrices/incast.cm }');
    const wl = generateWorkload(topo, s.workload, { rng: createRng(1) });
    expect(wl.flows).toHaveLength(15);
    expect(wl.flows.every((f) => f.dst === 'h16' && f.sizeBytes === 2_000_000 && f.startNs === 0)).toBe(true);
    expect(wl.flows.map((f) => f.src)).toEqual(Array.from({ length: 15 }, (_, i) => `h${i + 1}`));
    expect(new Set(wl.flows.map((f) => f.qpKey)).size).toBe(15);
  });

  it('reused connections share one QP', () => {
    const s = parseScenarioText(
      `topology: { kind: star, hosts: 2 }\nworkload: [{ kind: matrix, file: ${M('test_cr_1f10m1p.cm')} }]\n`,
    );
    const star = buildStar({ hosts: 2, link: { rateBps: 100e9, delayNs: 1000 } });
    const wl = generateWorkload(star, s.workload, { rng: createRng(1) });
    expect(wl.flows).toHaveLength(10);
    expect(new Set(wl.flows.map((f) => f.qpKey)).size).toBe(1);
  });

  it('a matrix for another host count, or a missing file, is one line', () => {
    const s = scenario(`{ kind: matrix, file: ${M('incast_128.cm')} }`);
    expect(() => generateWorkload(topo, s.workload, { rng: createRng(1) })).toThrow(
      /^matrix .*incast_128\.cm: 128 nodes, but the workload entry has 16 hosts \(set hosts to 128 of them\)$/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'matrix-'));
    writeFileSync(join(dir, 'bad.cm'), 'Nodes 16\n0->1 start 0 size 1 colour blue\n');
    const b = scenario(`{ kind: matrix, file: ${join(dir, 'bad.cm')} }`);
    expect(() => generateWorkload(topo, b.workload, { rng: createRng(1) })).toThrow(
      /^matrix .*bad\.cm line 2: unknown token "colour"$/,
    );
  });
});
