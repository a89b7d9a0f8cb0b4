/** runScenario: files written, pcap, printing, config errors. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConfigError } from '../../src/config/errors.js';
import { type RuntimeKind, runScenario } from '../../src/runtime/run.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { decodeFrame } from '../../src/wire/frame.js';
import { FrameKind } from '../../src/wire/packet.js';
import { parsePcap } from '../../src/wire/pcap.js';
import { scenario } from './helpers.js';

const YAML = `
name: tiny
duration: 1ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
topology: { kind: star, hosts: 3 }
workload:
  - { kind: incast, senders: [h1, h2], receiver: h3, size: 20KB }
`;

const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-run-'));

describe('runScenario', () => {
  it('writes results.json (schema-valid) and prints the summary table', () => {
    const printed: string[] = [];
    const o = runScenario({ scenario: scenario(YAML), outDir: tmp(), print: (t) => printed.push(t) });
    const r = resultsSchema.parse(JSON.parse(readFileSync(o.resultsPath, 'utf8')));
    expect(r.scenario).toBe('tiny');
    expect(r.summary.flowsCompleted).toBe(2);
    expect(r.ccByHost).toEqual({ h1: 'dcqcn', h2: 'dcqcn', h3: 'dcqcn' });
    expect(printed.join('')).toMatch(/flows completed\s*│ 2 \/ 2/);
    expect(o.events).toBeGreaterThan(0);
  });

  it('--cc overrides every host; --json prints results.json itself', () => {
    const printed: string[] = [];
    const o = runScenario({
      scenario: scenario(YAML),
      outDir: tmp(),
      cc: 'none',
      json: true,
      print: (t) => printed.push(t),
    });
    expect(printed.join('')).toBe(readFileSync(o.resultsPath, 'utf8'));
    expect(Object.values(o.results.ccByHost)).toEqual(['none', 'none', 'none']);
    expect(o.results.flows.every((f) => f.cc === 'none')).toBe(true);
  });

  it('--pcap writes one decodable capture per node port, with emulated timestamps', () => {
    const o = runScenario({ scenario: scenario(YAML), outDir: tmp(), pcap: true, print: null });
    const dir = join(o.outDir, 'pcap');
    expect(readdirSync(dir).sort()).toEqual([
      'h1-p0.pcap',
      'h2-p0.pcap',
      'h3-p0.pcap',
      's1-p0.pcap',
      's1-p1.pcap',
      's1-p2.pcap',
    ]);
    const cap = parsePcap(readFileSync(join(dir, 'h3-p0.pcap')));
    if (!('records' in cap)) throw new Error('pcap did not parse');
    expect(cap.nanosecond).toBe(true);
    let data = 0;
    let acks = 0;
    let last = 0;
    for (const rec of cap.records) {
      const pkt = decodeFrame(rec.data);
      if (!('kind' in pkt)) throw new Error(`undecodable frame: ${JSON.stringify(pkt)}`);
      if (pkt.kind === FrameKind.Data) data++;
      if (pkt.kind === FrameKind.Ack) acks++;
      expect(rec.timeNs).toBeGreaterThanOrEqual(last);
      last = rec.timeNs;
    }
    // 2 × 20 data frames received, ACKs sent back.
    expect(data).toBe(40);
    expect(acks).toBeGreaterThan(0);
    expect(last).toBeLessThanOrEqual(o.results.durationNs);
  });

  it('bad input is a ConfigError (CLI exit 2): unknown algorithm, runtime, unlinked override', () => {
    const s = scenario(YAML);
    const bad = [
      () => runScenario({ scenario: s, outDir: tmp(), cc: 'nosuchcc', print: null }),
      () =>
        runScenario({ scenario: s, outDir: tmp(), runtime: 'docker' as unknown as RuntimeKind, print: null }),
      () =>
        runScenario({
          scenario: scenario(`${YAML}\nlinks: [{ a: h1, b: h2, rate: 10Gbps }]\n`),
          outDir: tmp(),
          print: null,
        }),
    ];
    for (const f of bad) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(isConfigError(err)).toBe(true);
      expect(String((err as Error).message)).not.toMatch(/\n/);
    }
  });
});
