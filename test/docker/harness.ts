/**
 * Helpers of the docker suite: tools (apt-get when missing), the docker engine (started in the
 * background when none runs, with every address pool inside 198.18.0.0/15), compose v2 or 1.29,
 * the image built without any registry, and Debian's Prometheus on the host.
 *
 * Failures throw with the reason (the suite fails loudly; it never skips).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface Cmd {
  status: number;
  stdout: string;
  stderr: string;
}

export function sh(
  cmd: string,
  args: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {},
): Cmd {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 300_000,
    input: opts.input,
    maxBuffer: 64 << 20,
  });
  if (r.error !== undefined) return { status: 127, stdout: '', stderr: r.error.message };
  return { status: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Run and throw with the command's own words when it fails. */
export function must(cmd: string, args: readonly string[], opts: Parameters<typeof sh>[2] = {}): string {
  const r = sh(cmd, args, opts);
  if (r.status !== 0) {
    const tail = `${r.stderr}\n${r.stdout}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`\`${cmd} ${args.join(' ')}\` failed (status ${r.status}):\n${tail}`);
  }
  return r.stdout;
}

export function have(cmd: string): boolean {
  return sh('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** apt-get install the Debian packages of the tools that are missing. */
export function ensureTools(log: (s: string) => void): void {
  const want: [string, string][] = [
    ['dockerd', 'docker.io'],
    ['docker-compose', 'docker-compose'],
    ['prometheus', 'prometheus'],
  ];
  let pkgs = want.filter(([bin]) => !have(bin)).map(([, pkg]) => pkg);
  // Compose v2 (the docker CLI plugin) does as well as docker-compose 1.29.
  if (pkgs.includes('docker-compose') && have('docker') && sh('docker', ['compose', 'version']).status === 0)
    pkgs = pkgs.filter((p) => p !== 'docker-compose');
  if (pkgs.length === 0) return;
  if (process.getuid?.() !== 0)
    throw new Error(`missing ${pkgs.join(', ')} and not root to apt-get install them`);
  log(`installing ${pkgs.join(' ')} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  must('apt-get', ['update', '-qq'], { env, timeoutMs: 300_000 });
  must('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...pkgs], { env, timeoutMs: 400_000 });
}

export interface Engine {
  /** The dockerd we started (null: one was already running). */
  proc: ChildProcess | null;
  stop(): void;
}

function dockerUp(): boolean {
  return sh('docker', ['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 }).status === 0;
}

/**
 * A running docker engine: the one there is, or dockerd started in the background (no systemd
 * here) with its bridge and default pools inside 198.18.0.0/15.
 */
export async function ensureDockerd(logDir: string, log: (s: string) => void): Promise<Engine> {
  if (dockerUp()) return { proc: null, stop() {} };
  if (!have('dockerd')) throw new Error('docker engine not running and dockerd not installed');
  const logPath = join(logDir, 'dockerd.log');
  const fd = openSync(logPath, 'a');
  log('starting dockerd in the background');
  const proc = spawn(
    'dockerd',
    ['--bip', '198.19.255.1/24', '--default-address-pool', 'base=198.19.128.0/18,size=24'],
    { stdio: ['ignore', fd, fd], detached: true },
  );
  closeSync(fd);
  let exited: string | null = null;
  proc.on('exit', (code, sig) => {
    exited = `dockerd exited (${sig ?? code})`;
  });
  const until = Date.now() + 60_000;
  while (Date.now() < until && exited === null) {
    if (dockerUp()) {
      return {
        proc,
        stop() {
          if (proc.exitCode !== null || proc.pid === undefined) return;
          try {
            process.kill(proc.pid, 'SIGTERM');
          } catch {
            return;
          }
          const t = Date.now() + 20_000;
          while (Date.now() < t && sh('kill', ['-0', String(proc.pid)]).status === 0) sh('sleep', ['0.2']);
          if (sh('kill', ['-0', String(proc.pid)]).status === 0) process.kill(proc.pid, 'SIGKILL');
          // dockerd leaves its default bridge behind; it was ours, so it goes too.
          sh('ip', ['link', 'del', 'docker0']);
        },
      };
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  let tail = '';
  try {
    tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-10).join('\n');
  } catch {
    // no log
  }
  try {
    if (proc.pid !== undefined) process.kill(proc.pid, 'SIGKILL');
  } catch {
    // gone
  }
  throw new Error(
    `docker engine did not start: ${exited ?? 'no answer to `docker info` after 60 s'}\n${tail}`,
  );
}

/** `docker compose` (v2) when the plugin is there, else `docker-compose` (1.29). */
export function composeCommand(): string[] {
  if (sh('docker', ['compose', 'version']).status === 0) return ['docker', 'compose'];
  if (have('docker-compose')) return ['docker-compose'];
  throw new Error('neither `docker compose` nor `docker-compose` is available');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export async function getJson<T>(url: string): Promise<T> {
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(), 5000);
  try {
    const r = await fetch(url, { signal: ctl.signal });
    return (await r.json()) as T;
  } finally {
    clearTimeout(t);
  }
}

export interface PromVector {
  status: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

/** Poll until `check` returns a value (not undefined) or time runs out. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(
    `timed out after ${timeoutMs / 1000} s waiting for ${what}${last !== undefined ? ` (${String(last)})` : ''}`,
  );
}
