/**
 * Progress output: drawn on a pseudo-terminal (util-linux `script` gives the child a PTY), never
 * with --json, never into a pipe. Runs the built CLI (bin/rocelab.js → dist/, as `npm test` builds
 * first). Also: `rocelab run` writes report.html beside results.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProgress, progressLine } from '../../src/cli/progress.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rocelab.js');

const TINY = `name: tiny-progress
duration: 5ms
defaults:
  link: { rate: 100Gbps, delay: 1us }
topology: { kind: star, hosts: 3 }
workload:
  - { kind: incast, senders: [h1, h2], receiver: h3, size: 2MB }
`;

/** Run the CLI with a PTY as stdin/stdout/stderr; returns everything the terminal received. */
function onPty(args: string[], cwd: string): { code: number; out: string } {
  const cmd = ['node', BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-qfec', cmd, '/dev/null'], { cwd, encoding: 'utf8', timeout: 240_000 });
  if (r.error !== undefined) throw r.error;
  return { code: r.status ?? -1, out: r.stdout };
}

function scenarioDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-progress-'));
  writeFileSync(join(dir, 'tiny.yaml'), TINY);
  return dir;
}

describe('progress line', () => {
  it('shows emulated time done/total, events/s, packet-hops/s and an ETA', () => {
    const line = formatProgress(
      { emulatedNs: 2.5e6, totalNs: 10e6, events: 3e6, packetHops: 1e6, wallMs: 1000, done: false },
      'dcqcn (1/2)',
    );
    expect(line).toBe(
      `dcqcn (1/2) [${'█'.repeat(6)}${'░'.repeat(18)}]  25% · 2.50/10.00 ms emulated · 3.00 M events/s · 1.00 M pkt-hops/s · ETA 3.0 s`,
    );
  });

  it('redraws in place, never wider than the terminal, and erases itself when done', () => {
    let out = '';
    const p = progressLine((t) => (out += t), 'x', 40);
    p.update({ emulatedNs: 1, totalNs: 10, events: 1, packetHops: 1, wallMs: 1, done: false });
    expect(out.startsWith('\r')).toBe(true);
    expect(out.endsWith('\x1b[K')).toBe(true);
    expect([...out.slice(1, -3)].length).toBe(39);
    out = '';
    p.update({ emulatedNs: 10, totalNs: 10, events: 1, packetHops: 1, wallMs: 1, done: true });
    expect(out.endsWith('\r\x1b[K')).toBe(true);
    out = '';
    p.clear();
    expect(out).toBe('');
  });
});

describe('rocelab run: progress on a terminal only', { timeout: 300_000 }, () => {
  it('script(1) is available (util-linux); CI runs this test', () => {
    expect(() => execFileSync('script', ['--version'], { encoding: 'utf8' })).not.toThrow();
    expect(existsSync(BIN)).toBe(true);
  });

  it('draws the progress line on a PTY and writes report.html beside results.json', () => {
    const dir = scenarioDir();
    const r = onPty(['run', 'tiny.yaml', '--out', 'out'], dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /\r\[[█░]{24}\] +\d+% · [\d.]+\/5\.00 ms emulated · [\d.]+ [Mk]? ?events\/s · .* pkt-hops\/s · /,
    );
    // Erased before the summary table.
    expect(r.out).toContain('\r\x1b[K');
    expect(r.out).toContain('flows completed');
    expect(r.out).toContain(`report: ${join(dir, 'out', 'report.html')}`);
    expect(readFileSync(join(dir, 'out', 'report.html'), 'utf8')).toContain('<svg');
  });

  it('stays silent with --json, even on a PTY', () => {
    const dir = scenarioDir();
    const r = onPty(['run', 'tiny.yaml', '--out', 'out', '--json'], dir);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('emulated');
    expect(r.out).not.toContain('\x1b[');
    expect(JSON.parse(r.out.replace(/\r\n/g, '\n')).scenario).toBe('tiny-progress');
    // The report is still written, only not announced on stdout.
    expect(existsSync(join(dir, 'out', 'report.html'))).toBe(true);
  });

  it('stays silent when stderr is not a terminal', () => {
    const dir = scenarioDir();
    const r = spawnSync('node', [BIN, 'run', 'tiny.yaml', '--out', 'out'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('emulated ·');
    expect(r.stdout).not.toContain('\r');
  });
});
