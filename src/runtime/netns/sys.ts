/**
 * The netns fabric on the host: create the namespaces, veth pairs, addresses and tc qdiscs of a
 * plan; tear them down; sweep what crashed launchers left behind. Everything goes through `ip`
 * and `tc` (iproute2), batched, as root.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { ConfigError } from '../../config/errors.js';
import { NETNS_PREFIX, type NetnsPlan, parseNetnsName } from './plan.js';
import { type ShapeOptions, shapeCommands } from './tc.js';

/** Thrown when this machine cannot run netns (not root, no iproute2, no namespace support). */
export class NetnsUnavailableError extends ConfigError {
  constructor(reason: string) {
    super('runtime', `netns: ${reason}`);
  }
}

export interface CommandResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Run a command without a shell; never throws for a non-zero exit. */
export function runCommand(cmd: string, args: readonly string[], input?: string): CommandResult {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', timeout: 60_000 });
  if (r.error !== undefined) {
    const e = r.error as NodeJS.ErrnoException;
    return { status: e.code === 'ENOENT' ? 127 : 1, stdout: '', stderr: e.message };
  }
  return { status: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** Throws NetnsUnavailableError (one line) unless `ip netns` and `tc` work here. */
export function checkNetnsAvailable(): void {
  if (typeof process.getuid === 'function' && process.getuid() !== 0)
    throw new NetnsUnavailableError(
      'needs root (network namespaces, veth and tc); rerun as root or use --runtime local',
    );
  const ip = runCommand('ip', ['netns', 'list']);
  if (ip.status === 127) throw new NetnsUnavailableError('`ip` not found; install iproute2');
  if (ip.status !== 0) throw new NetnsUnavailableError(`\`ip netns\` failed: ${firstLine(ip.stderr)}`);
  const tc = runCommand('tc', ['-V']);
  if (tc.status === 127) throw new NetnsUnavailableError('`tc` not found; install iproute2');
}

/** Run `ip -batch` / `tc -batch` lines (in namespace `ns` when given); throws with the reason. */
function batch(tool: 'ip' | 'tc', ns: string | null, lines: readonly string[]): void {
  if (lines.length === 0) return;
  const args = ns === null ? ['-batch', '-'] : ['-n', ns, '-batch', '-'];
  const r = runCommand(tool, args, `${lines.join('\n')}\n`);
  if (r.status !== 0)
    throw new Error(
      `${tool}${ns === null ? '' : ` in ${ns}`} failed: ${firstLine(r.stderr) || firstLine(r.stdout)}`,
    );
}

export interface FabricOptions extends ShapeOptions {
  /** Interface MTU of the veths, bytes. */
  mtuBytes: number;
}

/**
 * Create everything of `plan`. On error, what was made is removed again before the error is
 * rethrown (the caller's destroyNetns is idempotent too).
 */
export function createNetns(plan: NetnsPlan, o: FabricOptions): void {
  try {
    const root: string[] = [];
    for (const ns of plan.namespaces.values()) root.push(`netns add ${ns}`);
    batch('ip', null, root);
    // Both ends are created inside their namespaces: nothing of a run lives in the root namespace.
    batch(
      'ip',
      null,
      plan.links.map(
        (l) =>
          `link add name ${l.a.dev} netns ${l.a.ns} mtu ${o.mtuBytes} type veth peer name ${l.b.dev} netns ${l.b.ns} mtu ${o.mtuBytes}`,
      ),
    );
    const ipBy = new Map<string, string[]>();
    const tcBy = new Map<string, string[]>();
    for (const ns of plan.namespaces.values()) {
      ipBy.set(ns, ['link set lo up']);
      tcBy.set(ns, []);
    }
    for (const l of plan.links) {
      for (const e of [l.a, l.b]) {
        ipBy.get(e.ns)!.push(`addr add ${e.ip}/30 dev ${e.dev}`, `link set ${e.dev} up`);
        for (const c of shapeCommands(e.dev, [{ rateBps: l.rateBps, peerIp: e.peerIp }], o))
          tcBy.get(e.ns)!.push(c.join(' '));
      }
    }
    for (const [ns, lines] of ipBy) batch('ip', ns, lines);
    for (const [ns, lines] of tcBy) batch('tc', ns, lines);
  } catch (err) {
    destroyNetns(plan.runPrefix);
    throw err;
  }
}

/** Names of the namespaces on this machine (`ip netns list`). */
export function listNamespaces(): string[] {
  const r = runCommand('ip', ['netns', 'list']);
  if (r.status !== 0) return [];
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0])
    .filter((n) => n !== undefined && n !== '');
}

/** PIDs of processes inside namespace `ns`. */
export function namespacePids(ns: string): number[] {
  const r = runCommand('ip', ['netns', 'pids', ns]);
  if (r.status !== 0) return [];
  return r.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((p) => Number.isInteger(p) && p > 0);
}

function killAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Remove every namespace whose name starts with `runPrefix` (`rl-<pid>-<tag>`), after ending the
 * processes still inside (SIGTERM, then SIGKILL after `graceMs`). Deleting a namespace deletes
 * its veths. Synchronous, so it can run from an exit handler. Returns the namespaces removed.
 */
export function destroyNetns(runPrefix: string, graceMs = 1000): string[] {
  const mine = listNamespaces().filter((n) => n === runPrefix || n.startsWith(`${runPrefix}-`));
  if (mine.length === 0) return [];
  let pids = mine.flatMap(namespacePids);
  if (pids.length > 0) {
    killAll(pids, 'SIGTERM');
    const until = Date.now() + graceMs;
    while (Date.now() < until) {
      pids = mine.flatMap(namespacePids);
      if (pids.length === 0) break;
      sleepMs(25);
    }
    if (pids.length > 0) {
      killAll(pids, 'SIGKILL');
      sleepMs(50);
    }
  }
  for (const ns of mine) {
    const r = runCommand('ip', ['netns', 'del', ns]);
    if (r.status !== 0 && listNamespaces().includes(ns)) {
      // A process we could not see may hold it; one more try after a kill of what is inside.
      killAll(namespacePids(ns), 'SIGKILL');
      sleepMs(50);
      runCommand('ip', ['netns', 'del', ns]);
    }
  }
  return mine;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove rocelab namespaces left by launchers that no longer run (or all of them with
 * `all: true`). Returns the namespaces removed.
 */
export function sweepNetns(opts: { all?: boolean } = {}): string[] {
  const prefixes = new Set<string>();
  for (const ns of listNamespaces()) {
    if (!ns.startsWith(NETNS_PREFIX)) continue;
    const p = parseNetnsName(ns);
    if (p === null) continue;
    if (opts.all === true || (p.pid !== process.pid && !alive(p.pid))) prefixes.add(p.runPrefix);
  }
  return [...prefixes].flatMap((p) => destroyNetns(p, 200));
}

/** `tc qdisc show` inside `ns` (empty on error). */
export function qdiscShow(ns: string): string {
  const r = runCommand('tc', ['-n', ns, 'qdisc', 'show']);
  return r.status === 0 ? r.stdout : '';
}

/** execFileSync for short helper calls whose failure is an error. */
export function mustRun(cmd: string, args: readonly string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
