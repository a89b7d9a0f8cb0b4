/**
 * Acceptance (f), faults: a switch killed and restarted mid-run (flows resume through the NIC's
 * go-back-N retransmission, and the application sees every message exactly once), a host killed
 * mid-run (lockstep declares its link down after PEER_TIMEOUT_MS and the other flows complete),
 * and garbage datagrams sent to nodes (counted by reason, dropped, the run goes on). Also checks
 * GET /metrics on a running node and that no node process outlives a run.
 */

import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { beforeAll, describe, expect, it } from 'vitest';
import { LocalRun } from '../../src/runtime/local/launcher.js';
import { parseEndpoint } from '../../src/runtime/real/addresses.js';
import type { NodeMessage } from '../../src/runtime/real/protocol.js';
import { ensureBuilt, scenario, survivors, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const RESTART = `
name: rt-switch-restart
seed: 1
duration: 20ms
timeScale: 1000
defaults:
  link: { rate: 10Gbps, delay: 1us }
  nic: { cc: dcqcn, mtu: 1000, rto: 100us }
topology: { kind: star, hosts: 3 }
workload:
  - { kind: flows, flows: [ { src: h1, dst: h3, size: 1MB, messageSize: 50KB }, { src: h2, dst: h3, size: 1MB, messageSize: 50KB } ] }
`;

describe('faults', () => {
  it('a switch killed and restarted mid-run: flows resume and complete, every message delivered exactly once', async () => {
    const pids = new Set<number>();
    const run = await LocalRun.create({
      scenario: scenario(RESTART),
      outDir: tmp(),
      print: null,
      metricsPort: null,
      // A node killed on its own needs a process of its own.
      processes: 'per-node',
      onMessage: (m: NodeMessage) => {
        if (m.t === 'ready') pids.add(m.pid);
      },
    });
    const done = run.run();
    // Kill s1 once 300 µs of emulated time have passed (the flows need ~1.6 ms), restart it 300 ms later.
    const t0 = Date.now();
    while ((run.coordinator.emulatedNowNs() ?? -1) < 300_000 && Date.now() - t0 < 30_000) await sleep(10);
    const killedAtNs = run.coordinator.emulatedNowNs()!;
    const flowsDoneAtKill = run.coordinator.flowsDone();
    run.coordinator.kill('s1');
    await sleep(300);
    run.coordinator.restart('s1');
    const out = await done;
    const r = out.results;
    const reports = run.coordinator.nodeReports();
    const h3 = reports.get('h3')!;
    const senders = ['h1', 'h2'].map((n) => reports.get(n)!);
    console.log(
      `switch restart: s1 killed at ${(killedAtNs / 1e3).toFixed(0)} µs emulated (${flowsDoneAtKill} flows done), restarted 300 ms real later; ` +
        `flows ${r.summary.flowsCompleted}/${r.summary.flowsTotal} completed at ${(r.durationNs / 1e3).toFixed(0)} µs; ` +
        `retransmits ${r.hosts.map((h) => h.retransmits).join('/')}, timeouts ${senders.map((s) => s.host!.timeouts).join('/')}; ` +
        `receiver completions ${h3.rx.map((x) => x.receiverCompletions).join('/')} of 20/20, duplicates ${h3.duplicateDeliveries}`,
    );
    expect(flowsDoneAtKill).toBe(0);
    expect(r.summary.flowsCompleted).toBe(2);
    // exactly once: 20 messages per flow, each completed once at the receiver and at the sender
    for (const x of h3.rx) expect(x.receiverCompletions).toBe(20);
    expect(h3.duplicateDeliveries).toBe(0);
    for (const s of senders) {
      expect(s.duplicateCompletions).toBe(0);
      expect(s.flows[0].senderCompletions).toBe(20);
      // Recovered by go-back-N: under lockstep emulated time stands still while s1 is away, so the
      // frames it lost show up as a PSN gap (NACK) or, when nothing followed them, a timeout.
      expect(s.host!.retransmits).toBeGreaterThan(0);
    }
    for (const f of r.flows) expect(f.sizeBytes).toBe(1_000_000);
    expect(r.warnings.some((w) => w.includes('s1 was restarted'))).toBe(true);
    expect(reports.get('s1')!.incarnation).toBe(1);
    expect(await survivors([...pids])).toEqual([]);
  });

  it('a host killed mid-run: its link is declared down, results say when, the other flows complete', async () => {
    const pids = new Set<number>();
    // h2's flow is long enough to be running when h2 dies; h1's completes without it.
    const s = scenario(RESTART, ['workload[0].flows[0].size=300KB', 'duration=3ms']);
    const run = await LocalRun.create({
      scenario: s,
      outDir: tmp(),
      print: null,
      metricsPort: null,
      processes: 'per-node',
      env: { PEER_TIMEOUT_MS: '1000' },
      onMessage: (m: NodeMessage) => {
        if (m.t === 'ready') pids.add(m.pid);
      },
    });
    const done = run.run();
    const t0 = Date.now();
    while ((run.coordinator.emulatedNowNs() ?? -1) < 100_000 && Date.now() - t0 < 30_000) await sleep(10);
    run.coordinator.kill('h2');
    const out = await done;
    const r = out.results;
    const down = r.realtime?.linksDown ?? [];
    console.log(
      `host kill: h2 killed; links down ${JSON.stringify(down)}; flows ${r.flows.map((f) => `${f.src}→${f.dst} ${f.endNs === null ? 'unfinished' : `${(f.endNs / 1e3).toFixed(0)} µs`}`).join(', ')}`,
    );
    expect(down.some((d) => d.node === 's1' && d.peer === 'h2' && d.atNs >= 100_000)).toBe(true);
    const h1 = r.flows.find((f) => f.src === 'h1')!;
    expect(h1.endNs).not.toBeNull();
    expect(r.flows.find((f) => f.src === 'h2')!.endNs).toBeNull();
    expect(r.warnings.some((w) => w.includes('link to h2') && w.includes('went down'))).toBe(true);
    expect(await survivors([...pids])).toEqual([]);
  });

  it('garbage datagrams are counted and dropped; the nodes keep running; /metrics shows them', async () => {
    const pids = new Set<number>();
    const metricsAt = new Map<string, string>();
    const s = scenario(RESTART, ['workload[0].flows[0].size=300KB', 'workload[0].flows[1].size=300KB']);
    const run = await LocalRun.create({
      scenario: s,
      outDir: tmp(),
      print: null,
      metricsPort: 0,
      onMessage: (m: NodeMessage) => {
        if (m.t === 'ready') {
          pids.add(m.pid);
          if (m.metrics !== null) metricsAt.set(m.node, m.metrics);
        }
      },
    });
    const done = run.run();
    const t0 = Date.now();
    while ((run.coordinator.emulatedNowNs() ?? -1) < 50_000 && Date.now() - t0 < 30_000) await sleep(10);
    const s1 = parseEndpoint(run.addresses.s1, 's1');
    const h3 = parseEndpoint(run.addresses.h3, 'h3');
    const h1 = parseEndpoint(run.addresses.h1, 'h1');
    // From an address that is no neighbour (127.A.B.250), and from a neighbour's IP (h1's, another port).
    const stranger = createSocket('udp4');
    const spoof = createSocket('udp4');
    const strangerIp = h1.host.replace(/\.\d+$/, '.250');
    await new Promise<void>((res) => stranger.bind(0, strangerIp, () => res()));
    await new Promise<void>((res) => spoof.bind(0, h1.host, () => res()));
    const N = 200;
    for (let i = 0; i < N; i++) {
      const junk = randomBytes(1 + (i % 1400));
      // Some start with a bundle's magic byte (process-bundles.ts): from a stranger that is junk too.
      if (i % 10 === 0) junk[0] = 0xb5;
      stranger.send(junk, h3.port, h3.host);
      stranger.send(junk, s1.port, s1.host);
      // A Geneve-looking header then garbage: passes the overlay check, fails in the decoder.
      const geneveish = Buffer.concat([Buffer.from([0, 0, 0x65, 0x58, 0, 0, 0, 0]), junk]);
      spoof.send(i % 2 === 0 ? geneveish : junk, s1.port, s1.host);
      if (i % 50 === 49) await sleep(5);
    }
    await sleep(100);
    const metricsText = await (await fetch(`http://${metricsAt.get('s1')}/metrics`)).text();
    stranger.close();
    spoof.close();
    const out = await done;
    const reports = run.coordinator.nodeReports();
    const g1 = reports.get('s1')!.io;
    const g3 = reports.get('h3')!.io;
    console.log(
      `garbage: s1 dropped ${g1.garbageTotal} ${JSON.stringify(g1.garbage)}, h3 dropped ${g3.garbageTotal} ${JSON.stringify(g3.garbage)}`,
    );
    expect(out.results.summary.flowsCompleted).toBe(2);
    expect(g3.garbage['unknown-peer']).toBe(N);
    expect(g1.garbage['unknown-peer']).toBe(N);
    // everything from h1's IP on the wrong port is garbage of some decode reason (never delivered)
    expect(g1.garbageTotal).toBe(2 * N);
    expect(out.results.warnings.some((w) => w.startsWith('s1: 400 garbage datagrams'))).toBe(true);
    // /metrics of the running switch: garbage, queue, clock and lag metrics
    expect(metricsText).toMatch(/rocelab_garbage_datagrams_total\{reason="unknown-peer",node="s1"\} \d+/);
    for (const name of [
      'rocelab_port_queue_bytes',
      'rocelab_port_tx_bytes_total',
      'rocelab_clock_offset_seconds',
      'rocelab_event_loop_lag_seconds',
      'rocelab_link_rate_configured_bps',
      'rocelab_pfc_pause_frames_total',
    ])
      expect(metricsText).toContain(name);
    const hostMetrics = await Promise.resolve(metricsAt.get('h1'));
    expect(hostMetrics).toBeDefined();
    expect(await survivors([...pids])).toEqual([]);
  });
});
