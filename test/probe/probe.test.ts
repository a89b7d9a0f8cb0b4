/**
 * The observation API (src/probe, src/env/trace.ts): the scenario's `probes` key bins per port and
 * per flow what the firmware's trace hooks report, and the bins add up to the run's own totals;
 * without the key results.json has no `probes` section; a node's part of the bins merges back
 * into the whole (what a real run's launcher does); bad probe settings exit as config errors.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { mergeProbeReports, Probe, tracer } from '../../src/probe/probe.js';
import { planFromSetup } from '../../src/runtime/app/plan.js';
import { runScenario } from '../../src/runtime/run.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { serializeResults } from '../../src/stats/results.js';
import { resultsSchema } from '../../src/stats/results-schema.js';
import { FrameKind } from '../../src/wire/packet.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rocelab-probe-'));

// Two senders into one receiver through one switch: the receiver's port queues, DCQCN marks.
const INCAST = `
name: probe-incast
duration: 2ms
topology: { kind: star, hosts: 3 }
defaults: { nic: { cc: dcqcn }, switch: { ecn: { kmin: 5KB, kmax: 50KB, pmax: 0.5 } } }
workload:
  - kind: incast
    senders: [h1, h2]
    receiver: h3
    size: 300KB
`;

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('probes in results.json', () => {
  it('bins add up to the run totals (bytes, queue integral and peak)', () => {
    const s = parseScenarioText(`${INCAST}\nprobes: { bin: 5us, ports: all }\n`);
    const r = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    expect(resultsSchema.safeParse(JSON.parse(serializeResults(r))).success).toBe(true);
    const p = r.probes!;
    expect(p.binNs).toBe(5000);
    expect(p.bins).toBe(Math.ceil(r.durationNs / 5000));
    expect(p.ports).toHaveLength(3);
    for (const port of r.ports.filter((x) => x.node === 's1')) {
      const b = p.ports.find((x) => x.port === port.port)!;
      expect(sum(b.txBytes)).toBe(port.txBytes);
      expect(Math.max(...b.queueMaxBytes)).toBe(port.maxQueueBytes);
      const area = b.queueMeanBytes.reduce(
        (a, m, i) => a + m * Math.min(p.binNs, r.durationNs - i * p.binNs),
        0,
      );
      expect(area / r.durationNs).toBeCloseTo(port.meanQueueBytes, 0);
    }
    expect(p.flows.map((f) => f.id)).toEqual(r.flows.map((f) => f.id));
    for (const f of p.flows) {
      expect(sum(f.rxBytes)).toBeGreaterThanOrEqual(r.flows[f.id].sizeBytes);
      expect(sum(f.txBytes)).toBeGreaterThan(r.flows[f.id].sizeBytes);
      expect(sum(f.ackRx)).toBeGreaterThan(0);
    }
    const host = (n: string) => r.hosts.find((h) => h.node === n)!;
    expect(sum(p.flows.flatMap((f) => f.cnpRx))).toBe(host('h1').cnpRx + host('h2').cnpRx);
    expect(host('h1').cnpRx).toBeGreaterThan(0);
  });

  it('is absent unless the scenario asks, and observing does not change the run', () => {
    const plain = runScenario({ scenario: parseScenarioText(INCAST), outDir: tmp(), print: null }).results;
    expect(plain.probes).toBeUndefined();
    expect(serializeResults(plain)).not.toContain('"probes"');
    let frames = 0;
    const watched = runScenario({
      scenario: parseScenarioText(INCAST),
      outDir: tmp(),
      print: null,
      trace: tracer({ nicRx: () => frames++, queue: () => {} }),
    }).results;
    expect(frames).toBeGreaterThan(100);
    expect(serializeResults(watched)).toBe(serializeResults(plain));
  });

  it('counts the PFC pauses a switch port sends, and their XOFF transitions', () => {
    const s = parseScenarioText(`
name: probe-pfc
duration: 1ms
topology: { kind: star, hosts: 5 }
defaults: { nic: { cc: none }, switch: { buffer: 400KB, pfc: true } }
workload:
  - kind: incast
    senders: [h1, h2, h3, h4]
    receiver: h5
    size: 400KB
probes: { bin: 20us }
`);
    const r = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const p = r.probes!;
    const pauses = r.ports.filter((x) => x.node === 's1').reduce((a, x) => a + x.pfcPauseTx, 0);
    expect(pauses).toBeGreaterThan(0);
    expect(sum(p.ports.flatMap((x) => x.pfcPauseTx))).toBe(pauses);
    const xoff = sum(p.ports.flatMap((x) => x.pfcXoffTx));
    expect(xoff).toBeGreaterThan(0);
    expect(xoff).toBeLessThanOrEqual(pauses);
  });

  it('keeps the QP state variables asked for, per flow and bin, at both ends', () => {
    const s = parseScenarioText(`${INCAST}\nprobes: { bin: 20us, ports: [], qpState: [rateBps, alpha] }\n`);
    const r = runScenario({ scenario: s, outDir: tmp(), print: null }).results;
    const p = r.probes!;
    for (const f of p.flows) {
      const rate = f.senderState!.rateBps;
      expect(rate).toHaveLength(p.bins);
      // null until the first ACK reached the sender, then the pacing rate it had after each bin.
      expect(rate[0] === null || rate[0] > 0).toBe(true);
      expect(rate.filter((x) => x !== null).every((x) => x! > 0 && x! <= 100e9)).toBe(true);
      // DCQCN cut the rate during the incast, and alpha rose above 0 at the sender.
      expect(Math.min(...rate.filter((x) => x !== null).map(Number))).toBeLessThan(100e9);
      expect(Math.max(...f.senderState!.alpha.map(Number))).toBeGreaterThan(0);
      expect(f.receiverState!.rateBps).toHaveLength(p.bins);
    }
    expect(resultsSchema.safeParse(JSON.parse(serializeResults(r))).success).toBe(true);
  });

  it('listed ports only, and flows off', () => {
    const s = parseScenarioText(
      `${INCAST}\nprobes: { bin: 10us, ports: [{ switch: s1, port: 2 }], flows: false }\n`,
    );
    const p = runScenario({ scenario: s, outDir: tmp(), print: null }).results.probes!;
    expect(p.ports.map((x) => `${x.node}:${x.port}`)).toEqual(['s1:2']);
    expect(p.flows).toEqual([]);
  });

  it('node parts merge into the whole (the real runtimes report per node)', () => {
    const s = parseScenarioText(INCAST);
    const setup = setupRun(s);
    const probe = new Probe({ binNs: 7000, ports: 'all', flows: true }, planFromSetup(setup));
    const out = runScenario({ scenario: s, outDir: tmp(), print: null, trace: probe });
    const endNs = out.results.durationNs;
    const whole = probe.report(endNs);
    const parts = setup.topo.nodes.map((n) => probe.report(endNs, n.name));
    expect(mergeProbeReports(parts)).toEqual({
      ...whole,
      ports: [...whole.ports].sort((a, b) => a.port - b.port),
    });
    // Data arrivals seen through the probe's own hooks match the receiver's first/last arrival.
    const f0 = probe.flows[0];
    expect(f0.firstRxNs).toBeGreaterThan(0);
    expect(f0.lastRxNs).toBeLessThanOrEqual(out.results.flows[0].endNs!);
  });

  it('hooks see every frame kind the NIC receives', () => {
    const kinds = new Set<number>();
    runScenario({
      scenario: parseScenarioText(INCAST),
      outDir: tmp(),
      print: null,
      trace: tracer({ nicRx: (_h, _t, pkt) => kinds.add(pkt.kind) }),
    });
    expect(kinds.has(FrameKind.Data)).toBe(true);
    expect(kinds.has(FrameKind.Ack)).toBe(true);
    expect(kinds.has(FrameKind.Cnp)).toBe(true);
  });

  it('rejects a probe port on an unknown switch, and a zero bin', () => {
    expect(() =>
      parseScenarioText(`${INCAST}\nprobes: { bin: 10us, ports: [{ switch: s9, port: 0 }] }\n`),
    ).toThrow(ConfigError);
    expect(() => parseScenarioText(`${INCAST}\nprobes: { bin: 0 }\n`)).toThrow(ConfigError);
    expect(() => parseScenarioText(`${INCAST}\nprobes: { bins: 10us }\n`)).toThrow(ConfigError);
  });
});
