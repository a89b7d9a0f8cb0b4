/**
 * The real-path JIT warm-up a node process runs before its nodes bind (warm-up-run.ts): the start
 * of its own scenario (a small one) or an incast, between real nodes of its own on loopback, in
 * the process's sync mode, run twice, that ends within its budget and leaves nothing behind.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeConfigFromEnv, RealNode } from '../../src/runtime/real/node.js';
import { warmUpRealPath, withTrafficFirst } from '../../src/runtime/real/warm-up-run.js';
import { INCAST_4TO1, tmp } from './helpers.js';

const udpSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap').length;

describe('real-path warm-up', () => {
  const file = join(tmp(), 'incast.yaml');
  writeFileSync(file, INCAST_4TO1);

  it.each([
    'lockstep',
    'wallclock',
  ] as const)('%s: runs the start of its own scenario over real sockets, within 2 s, and closes them', async (sync) => {
    const like = nodeConfigFromEnv({ NODE: 'h1', SCENARIO: file, SYNC: sync, LOG_LEVEL: 'silent' });
    const before = udpSockets();
    const run = await warmUpRealPath(like);
    expect(run.ran).toBe('own-scenario');
    // Twice (the second compiles what closing the first one's nodes made V8 throw away), each
    // pass's four senders of 150 KB all sent within its 300 µs: 600 KB of emulated bytes on the
    // wire per pass.
    expect(run.passes).toBe(2);
    expect(run.bytesSent).toBeGreaterThan(2 * 4 * 150_000);
    expect(run.wallMs).toBeLessThan(2000 + 500);
    await new Promise((r) => setTimeout(r, 50)); // dgram releases a closed socket's handle a turn later
    expect(udpSockets()).toBe(before);
  }, 10_000);

  it("under lockstep, grouped as the run's processes: what crosses groups goes in bundles, as it will in the run", async () => {
    const base = { NODE: 'h1', SCENARIO: file, SYNC: 'lockstep', LOG_LEVEL: 'silent' };
    const grouped = await warmUpRealPath(
      nodeConfigFromEnv({ ...base, PROCESS_GROUPS: 's1,h1,h2;h3,h4,h5', IN_PROCESS_LINKS: 'memory' }),
    );
    expect(grouped.passes).toBe(2);
    expect(grouped.bundledDatagrams).toBeGreaterThan(0);
    // One process (no groups): every link in memory, nothing bundled.
    const single = await warmUpRealPath(nodeConfigFromEnv({ ...base, IN_PROCESS_LINKS: 'memory' }));
    expect(single.bundledDatagrams).toBe(0);
    expect(single.bytesSent).toBeGreaterThan(2 * 4 * 150_000);
  }, 15_000);

  it("a scenario whose traffic starts later rehearses from its first flow's start, not an idle network", async () => {
    const late = join(tmp(), 'late.yaml');
    writeFileSync(late, INCAST_4TO1.replace('start: 0', 'start: 1ms'));
    const like = nodeConfigFromEnv({ NODE: 'h1', SCENARIO: late, SYNC: 'lockstep', LOG_LEVEL: 'silent' });
    const run = await warmUpRealPath(like);
    expect(run.ran).toBe('own-scenario');
    // As much as when the incast starts at 0: each pass's four senders of 150 KB.
    expect(run.bytesSent).toBeGreaterThan(2 * 4 * 150_000);
    const shifted = withTrafficFirst(like.scenario);
    expect(shifted.workload.map((w) => ('startNs' in w ? w.startNs : null))).toEqual([0]);
    expect(like.scenario.workload.map((w) => ('startNs' in w ? w.startNs : null))).toEqual([1_000_000]);
  }, 10_000);

  it('a topology too large for one process warms up on the incast instead', async () => {
    const big = join(tmp(), 'big.yaml');
    writeFileSync(big, INCAST_4TO1.replace('hosts: 5', 'hosts: 30'));
    const like = nodeConfigFromEnv({ NODE: 'h1', SCENARIO: big, SYNC: 'lockstep', LOG_LEVEL: 'silent' });
    const run = await warmUpRealPath(like);
    expect(run.ran).toBe('incast');
    // The incast's three senders of 150 KB.
    expect(run.bytesSent).toBeGreaterThan(3 * 150_000);
  }, 10_000);

  it('a fatal error in a warm-up node ends that node, not the process', async () => {
    const cfg = nodeConfigFromEnv({ NODE: 'h1', SCENARIO: file, SYNC: 'wallclock', LOG_LEVEL: 'silent' });
    const node = new RealNode(cfg, null, false);
    const done = node.done();
    node.fatal(new Error('firmware bug'));
    await done;
    expect(node.finishing).toBe(true);
  });
});
