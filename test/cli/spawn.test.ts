/**
 * The real binary: bin/rocelab.js → dist/src/cli/main.js, in a child process, so exit codes,
 * stdout/stderr separation and the "no stack trace" rule are checked end to end.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'rocelab.js');

function rocelab(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ROCELAB_DEBUG: '' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  // The binary runs dist/: build it first (tsc still emits when some other file has a type error).
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: ROOT,
        stdio: 'ignore',
      },
    );
  } catch {
    // checked below
  }
  expect(existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))).toBe(true);
});

describe('bin/rocelab.js', () => {
  it('--help exits 0 with usage on stdout', () => {
    const r = rocelab(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('rocelab run <scenario.yaml>');
    expect(r.stderr).toBe('');
  });

  it('list exits 0 and names the shipped scenarios', () => {
    const r = rocelab(['list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Congestion-control algorithms:');
    expect(r.stdout).toContain('Scenarios:');
  });

  it('a bad scenario exits 2 with exactly one line on stderr', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rocelab-bin-'));
    writeFileSync(
      join(dir, 'bad.yaml'),
      'topology: { kind: star, hosts: 3 }\ndefaults:\n  switch: { bufer: 1MB }\n',
    );
    const r = rocelab(['run', 'bad.yaml'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('rocelab: bad.yaml:3: defaults.switch.bufer: unknown key (did you mean buffer?)\n');
  });

  it('unknown command and missing file exit 2 with one line', () => {
    expect(rocelab(['launch'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'rocelab: unknown command "launch"; commands: run, compare, reproduce, list, node, deploy, sweep, help\n',
    });
    expect(rocelab(['run', 'no/such.yaml'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'rocelab: no/such.yaml: file not found\n',
    });
    expect(rocelab(['run', 'scenarios/incast-8to1.yaml', '--seed', 'x'])).toMatchObject({
      code: 2,
      stderr: 'rocelab: --seed expects an integer in [0, 4294967295], got "x"\n',
    });
  });
});
