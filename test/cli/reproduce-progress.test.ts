/**
 * `rocelab reproduce` shows the simulations a long check announces (ReproContext.progress): one
 * line on stderr as each ends (in a log too), and on a terminal a progress line while it runs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerReproSuite } from '../../experiments/registry.js';
import type { RunProgress } from '../../src/runtime/run.js';
import { cli } from '../deploy/support.js';

const snapshot = (emulatedNs: number, done: boolean): RunProgress => ({
  emulatedNs,
  totalNs: 2e6,
  events: 1000,
  packetHops: 500,
  wallMs: done ? 2500 : 1200,
  done,
});

// A suite whose one check announces two simulations, the second without a progress callback used.
registerReproSuite({
  algorithm: 'progress-fixture',
  spec: 'docs/cli.md',
  checks: [
    {
      id: 'P1',
      title: 'announces its runs',
      paper: '–',
      expected: '–',
      run(ctx) {
        for (const label of ['mix seed 1 a (1/2)', 'mix seed 1 b (2/2)']) {
          const report = ctx.progress?.(label);
          report?.(snapshot(1e6, false));
          report?.(snapshot(2e6, true));
        }
        return { measured: `progress ${ctx.progress === undefined ? 'absent' : 'given'}`, pass: true };
      },
    },
  ],
});

const reproduce = (argv: string[], tty: boolean) =>
  cli(['reproduce', 'progress-fixture', ...argv], mkdtempSync(join(tmpdir(), 'rocelab-repro-progress-')), {
    stderrIsTTY: tty,
    columns: 200,
  });

describe('reproduce progress', () => {
  it('logs each announced simulation when it ends, with the check and its wall time', async () => {
    const r = await reproduce([], false);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      '    progress-fixture P1 mix seed 1 a (1/2): 2.5 s\n' +
        '    progress-fixture P1 mix seed 1 b (2/2): 2.5 s\n' +
        `  progress-fixture P1: pass (${r.stderr.match(/P1: pass \(([\d.]+) s\)/)?.[1]} s)\n`,
    );
    expect(r.stdout).toContain('progress given');
  });

  it('draws a progress line on a terminal and erases it before the line of the finished run', async () => {
    const r = await reproduce([], true);
    expect(r.code).toBe(0);
    const first = r.stderr.indexOf('\rprogress-fixture P1 mix seed 1 a (1/2) [');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(r.stderr.indexOf(' 50% · 1.00/2.00 ms emulated', first)).toBeGreaterThan(first);
    expect(r.stderr).toContain('\r\x1b[K    progress-fixture P1 mix seed 1 a (1/2): 2.5 s\n');
  });

  it('--json prints no progress', async () => {
    const r = await reproduce(['--json'], true);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)[0].measured).toBe('progress absent');
  });
});
