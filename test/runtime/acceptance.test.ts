/**
 * Issue 3 acceptance in virtual time, with the real NIC and switch firmware: transport under
 * loss, line rate and ideal FCT on an idle path, PFC, DCQCN incast, determinism.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNic, type MessageCompletion } from '../../nic/api.js';
import { runScenario } from '../../src/runtime/run.js';
import type { NicFactory } from '../../src/runtime/virtual/virtual-run.js';
import { jainIndex } from '../../src/stats/aggregate.js';
import { isMessageEnd } from '../../src/wire/opcodes.js';
import { FrameKind } from '../../src/wire/packet.js';
import { makeRun, scenario } from './helpers.js';

const LINE_BPS = 100e9;
/** Payload share of a full 1000 B frame on the link: 1000 / (1000 + 62 B of RoCEv2 headers). */
const PAYLOAD_EFFICIENCY = 1000 / 1062;

/** Wraps createNic to log every completion each NIC reports. */
function recordingNic(log: (MessageCompletion & { host: string })[]): NicFactory {
  return (env, cfg) =>
    createNic(env, {
      ...cfg,
      observer: {
        ...cfg.observer,
        onMessageComplete(c) {
          log.push({ ...c, host: cfg.name });
          cfg.observer.onMessageComplete(c);
        },
      },
    });
}

describe('(1) transport under loss', () => {
  it('1% random loss on a link: 100 messages each complete exactly once, in order; retransmits counted', () => {
    const log: (MessageCompletion & { host: string })[] = [];
    const { run } = makeRun(
      `
duration: 50ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, rto: 100us }
topology: { kind: star, hosts: 2 }
links: [{ a: s1, b: h2, loss: 0.01 }]
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 1MB, messageSize: 10KB }]
`,
      { createNic: recordingNic(log) },
    );
    const r = run.run();
    const lost =
      r.ports.find((p) => p.node === 's1' && p.port === 1)!.drops +
      r.ports.find((p) => p.node === 'h2')!.drops;
    expect(lost).toBeGreaterThan(0);
    const sender = log.filter((c) => c.role === 'sender');
    const receiver = log.filter((c) => c.role === 'receiver');
    expect(sender.map((c) => c.id)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(receiver.map((c) => c.id)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(receiver.every((c) => c.bytes === 10_000)).toBe(true);
    expect(r.flows[0].endNs).not.toBeNull();
    const retransmits = r.hosts.find((h) => h.node === 'h1')!.retransmits;
    console.log(
      `1% loss: ${lost} frames lost, ${retransmits} retransmits, 100 messages done at ${r.flows[0].endNs} ns`,
    );
    expect(retransmits).toBeGreaterThan(0);
    expect(r.hosts.find((h) => h.node === 'h2')!.rxBytes).toBe(1_000_000);
    expect(r.warnings).toEqual([]);
  });

  it('the last packet of a message dropped once: the message still completes (timeout)', () => {
    let dropped = 0;
    const { run } = makeRun(
      `
duration: 10ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, rto: 100us }
topology: { kind: star, hosts: 2 }
workload:
  - kind: flows
    flows: [{ src: h1, dst: h2, size: 10KB }]
`,
      {
        drop: (node, _port, pkt) => {
          if (
            node.name === 'h1' &&
            pkt.kind === FrameKind.Data &&
            isMessageEnd(pkt.opcode) &&
            dropped === 0
          ) {
            dropped++;
            return true;
          }
          return false;
        },
      },
    );
    const r = run.run();
    expect(dropped).toBe(1);
    expect(r.flows[0].endNs).not.toBeNull();
    expect(r.flows[0].fctNs!).toBeGreaterThan(100_000);
    expect(r.hosts.find((h) => h.node === 'h1')!.retransmits).toBeGreaterThanOrEqual(1);
    expect(run.flows[0].senderCompletions).toBe(1);
    expect(run.flows[0].receiverCompletions).toBe(1);
  });
});

describe('(2) idle path', () => {
  const yaml = (flows: string) => `
duration: 10ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
topology: { kind: star, hosts: 2 }
workload:
  - kind: flows
    flows: ${flows}
`;

  it('a single long flow reaches ≥ 97% of line rate × payload efficiency', () => {
    const { run } = makeRun(yaml('[{ src: h1, dst: h2, size: 20MB }]'));
    const r = run.run();
    const f = r.flows[0];
    const goodputBps = (f.sizeBytes * 8e9) / f.fctNs!;
    expect(goodputBps / (LINE_BPS * PAYLOAD_EFFICIENCY)).toBeGreaterThanOrEqual(0.97);
    console.log(
      `long flow: ${(goodputBps / 1e9).toFixed(2)} Gbit/s = ${((100 * goodputBps) / (LINE_BPS * PAYLOAD_EFFICIENCY)).toFixed(2)} % of line rate × payload efficiency`,
    );
  });

  it("a short flow's FCT equals idealFctNs within 1%", () => {
    const sizes = [64_000, 100_000, 200_000];
    const flows = sizes.map((s, i) => `{ src: h1, dst: h2, size: ${s}, start: ${i}ms }`).join(', ');
    const r = makeRun(yaml(`[${flows}]`)).run.run();
    for (const f of r.flows) {
      const err = f.fctNs! / f.idealFctNs - 1;
      console.log(
        `short flow ${f.sizeBytes} B: fct ${f.fctNs} ns, ideal ${f.idealFctNs} ns (${(100 * err).toFixed(2)} %)`,
      );
      expect(Math.abs(err)).toBeLessThan(0.01);
    }
  });
});

describe('(3) PFC', () => {
  const incast = (sw: string, size: string) => `
duration: 50ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: none, rto: 200us }
  switch: ${sw}
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1..h8], receiver: h9, size: ${size} }
`;

  it('8-to-1 incast, cc none, PFC on: zero drops, pauses sent', () => {
    const r = makeRun(incast('{ buffer: 32MB, pfc: true }', '4MB')).run.run();
    expect(r.summary.flowsCompleted).toBe(8);
    expect(r.summary.drops).toBe(0);
    expect(r.summary.pfcPauseTx).toBeGreaterThan(0);
    expect(r.hosts.every((h) => h.retransmits === 0)).toBe(true);
    const pausedHosts = r.ports.filter((p) => p.node !== 's1' && p.pfcPauseRx > 0).length;
    console.log(
      `PFC on: ${r.summary.pfcPauseTx} pauses sent, ${pausedHosts} senders paused, max queue ${r.summary.maxQueueBytes} B`,
    );
    expect(pausedHosts).toBeGreaterThan(0);
  });

  it('PFC off with a small buffer: drops counted and every message still completes', () => {
    const r = makeRun(incast('{ buffer: 300KB, pfc: false }', '500KB')).run.run();
    console.log(
      `PFC off: ${r.summary.drops} drops, ${r.hosts.reduce((s, h) => s + h.retransmits, 0)} retransmits, done at ${r.durationNs} ns`,
    );
    expect(r.summary.drops).toBeGreaterThan(0);
    expect(r.summary.pfcPauseTx).toBe(0);
    expect(r.summary.flowsCompleted).toBe(8);
    expect(r.hosts.reduce((s, h) => s + h.retransmits, 0)).toBeGreaterThan(0);
  });
});

describe('(4) DCQCN 8-to-1 long-flow incast at 100 Gbps', () => {
  const yaml = (cc: string) => `
duration: 20ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
  nic: { cc: ${cc} }
  switch: { buffer: 32MB, ecn: { kmin: 400KB, kmax: 1600KB, pmax: 0.2 }, pfc: true }
topology: { kind: star, hosts: 9 }
workload:
  - { kind: incast, senders: [h1..h8], receiver: h9, size: inf }
`;

  it('zero drops; after convergence ≥ 90 % utilisation, Jain ≥ 0.95, max queue far below cc none', () => {
    const { run } = makeRun(yaml('dcqcn'));
    const sw = run.switches.get('s1')!;
    const bottleneck = 8; // s1 port 8 → h9
    const snapshot = () => ({
      t: run.sched.now(),
      txBytes: sw.portCounters()[bottleneck].txBytes,
      delivered: run.flows.map((f) => f.deliveredBytes),
    });
    run.runUntil(10e6);
    const a = snapshot();
    run.runUntil(20e6);
    const b = snapshot();
    const r = run.results();
    const windowNs = b.t - a.t;
    const utilisation = ((b.txBytes - a.txBytes) * 8e9) / windowNs / LINE_BPS;
    const rates = b.delivered.map((x, i) => ((x - a.delivered[i]) * 8e9) / windowNs);
    const jain = jainIndex(rates)!;
    const none = makeRun(yaml('none')).run.run();
    console.log(
      `DCQCN incast: utilisation ${(100 * utilisation).toFixed(1)} %, Jain ${jain.toFixed(4)}, max queue ${r.summary.maxQueueBytes} B (none: ${none.summary.maxQueueBytes} B), PFC ${r.summary.pfcPauseTx}`,
    );
    expect(r.summary.drops).toBe(0);
    expect(utilisation).toBeGreaterThanOrEqual(0.9);
    expect(jain).toBeGreaterThanOrEqual(0.95);
    expect(r.summary.maxQueueBytes).toBeLessThan(none.summary.maxQueueBytes / 4);
  });
});

describe('(7) determinism', () => {
  it('same scenario + seed twice → byte-identical results.json; another seed → different arrivals', () => {
    const s = scenario(
      readFileSync(join(import.meta.dirname, '../../scenarios/websearch-leafspine.yaml'), 'utf8').replace(
        'stop: 10ms',
        'stop: 1ms',
      ),
    );
    const out = (seed?: number) => {
      const dir = mkdtempSync(join(tmpdir(), 'rocelab-det-'));
      const o = runScenario({ scenario: s, outDir: dir, seed, print: null });
      return readFileSync(o.resultsPath, 'utf8');
    };
    const a = out();
    const b = out();
    expect(b).toBe(a);
    const c = out(2);
    const arrivals = (text: string) =>
      (JSON.parse(text).flows as { startNs: number; src: string }[]).map((f) => `${f.src}@${f.startNs}`);
    expect(arrivals(c)).not.toEqual(arrivals(a));
    expect(JSON.parse(a).flows.length).toBeGreaterThan(20);
  });
});
