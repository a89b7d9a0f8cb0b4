/** A node process's main thread at real-time priority (realtime-priority.ts, docs/realtime.md "Real-time priority"). */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isConfigError } from '../../src/config/errors.js';
import { kernelAllowsRealtimePriority } from '../support/kernel-allows-rr.js';
import { nodeConfigOf } from '../support/node-config.js';

const YAML = `
name: rtp
duration: 100us
topology: { kind: star, hosts: 2 }
workload:
  - { kind: incast, senders: [h1], receiver: h2, size: 10KB, start: 0 }
`;

describe('real-time priority configuration', () => {
  const cfg = nodeConfigOf(YAML);
  const wants = (env: Record<string, string>) => cfg(env).realtimePriority;
  const cores = availableParallelism();

  it('auto: under wallclock, when the launcher runs no more node processes than there are cores', () => {
    expect(wants({ SYNC: 'wallclock', PROCESSES_ON_HOST: String(cores) })).toBe(true);
    expect(wants({ SYNC: 'wallclock', PROCESSES_ON_HOST: String(cores + 1) })).toBe(false);
    // No launcher said how many share the machine (rocelab node, a container).
    expect(wants({ SYNC: 'wallclock' })).toBe(false);
    expect(wants({ SYNC: 'lockstep', PROCESSES_ON_HOST: '1' })).toBe(false);
  });

  it('on and off override auto, from the scenario or REALTIME_PRIORITY', () => {
    expect(wants({ SYNC: 'lockstep', REALTIME_PRIORITY: 'on' })).toBe(true);
    expect(wants({ SYNC: 'wallclock', PROCESSES_ON_HOST: '1', SET: 'realtimePriority=off' })).toBe(false);
    expect(
      wants({
        SYNC: 'wallclock',
        PROCESSES_ON_HOST: '1',
        SET: 'realtimePriority=off',
        REALTIME_PRIORITY: 'auto',
      }),
    ).toBe(true);
  });

  it('inProcessLinks auto: under wallclock, in memory exactly when the main thread takes the priority', () => {
    const links = (env: Record<string, string>) => cfg(env).inProcessLinks;
    expect(links({ SYNC: 'wallclock', PROCESSES_ON_HOST: '1' })).toBe('memory');
    expect(links({ SYNC: 'wallclock', PROCESSES_ON_HOST: '1', REALTIME_PRIORITY: 'off' })).toBe('socket');
    expect(links({ SYNC: 'wallclock' })).toBe('socket');
    expect(links({ SYNC: 'wallclock', PROCESSES_ON_HOST: '1', IN_PROCESS_LINKS: 'socket' })).toBe('socket');
    expect(links({ SYNC: 'lockstep' })).toBe('memory');
  });

  it('refuses anything else, naming the variable', () => {
    for (const env of [{ REALTIME_PRIORITY: 'yes' }, { PROCESSES_ON_HOST: '0' }] as Record<
      string,
      string
    >[]) {
      let err: unknown;
      try {
        wants(env);
      } catch (e) {
        err = e;
      }
      expect(isConfigError(err)).toBe(true);
      expect(String((err as Error).message)).toMatch(Object.keys(env)[0]);
    }
  });
});

/** The module under test as built (a child process imports it). */
const mod = join(import.meta.dirname, '../../dist/src/runtime/real/realtime-priority.js');

/**
 * Runs raiseMainThreadPriority in a process of its own, returning what it said and the policy
 * after; `asNobody`: with root's privileges dropped first (after the module is loaded, so the
 * checkout need not be readable by nobody).
 */
function raiseIn(asNobody = false): { refused: string | null; realtime: boolean } {
  const drop = asNobody ? 'process.setgid(65534); process.setuid(65534);' : '';
  const code = `import(${JSON.stringify(mod)}).then((m) => {
    ${drop}
    const refused = m.raiseMainThreadPriority();
    process.stdout.write(JSON.stringify({ refused, realtime: m.mainThreadIsRealtime() }));
  });`;
  const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { refused: string | null; realtime: boolean };
}

describe.runIf(process.platform === 'linux')('raiseMainThreadPriority', () => {
  const allowed = kernelAllowsRealtimePriority();

  it.runIf(allowed)('where the kernel allows it: the main thread runs under SCHED_RR after it', () => {
    expect(raiseIn()).toEqual({ refused: null, realtime: true });
  });

  it.skipIf(allowed)('where the kernel does not: says why in one line, and the policy stays', () => {
    const r = raiseIn();
    expect(r.realtime).toBe(false);
    expect(r.refused).toMatch(/\S/);
    expect(r.refused).not.toContain('\n');
  });

  it.runIf(allowed && process.getuid?.() === 0)(
    "with root's privileges dropped: refused with the kernel's reason, in one line",
    () => {
      const r = raiseIn(true);
      expect(r.realtime).toBe(false);
      expect(r.refused).toMatch(/not permitted/i);
      expect(r.refused).not.toContain('\n');
    },
  );

  it('a new process starts at normal priority', () => {
    const r = spawnSync(
      process.execPath,
      [
        '-e',
        `import(${JSON.stringify(mod)}).then((m) => process.stdout.write(String(m.mainThreadIsRealtime())))`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stdout).toBe('false');
  });
});
