/**
 * What a rocelab container does before `rocelab node` (deploy/entrypoint.sh):
 *
 * 1. Shape its links with tc (NET_ADMIN): every link to rate ÷ TIME_SCALE. A container's links
 *    usually share one interface (one docker network), so a switch gets an htb class per peer.
 * 2. Start gate (START_GATE=<dir on a volume shared with the traffic job>): say ready
 *    (`<dir>/ready/<node>`), wait for the job's `<dir>/start` and hand its emulated t=0 (host
 *    CLOCK_MONOTONIC ns, the same clock in every container of one kernel) to the node as
 *    START_AT_MONO_NS. Without a gate the node starts on its own (START_DELAY_MS).
 *
 * The node's configuration is read exactly as `rocelab node` reads it (R's nodeConfigFromEnv).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import {
  AddressError,
  type AddressMap,
  addressOf,
  hasDnsNames,
  parseAddressMap,
  resolveAddressMapRetrying,
} from '../real/addresses.js';
import { type NodeConfig, nodeConfigFromEnv } from '../real/node.js';
import { hostMonotonicNs } from '../real/protocol.js';
import { setupRun } from '../scenario-setup.js';
import { GateError, passHttpGate } from './http-gate.js';
import { runCommand } from './sys.js';
import { ENCAP_OVERHEAD_BYTES, type ShapeLink, shapeCommands } from './tc.js';

type Env = Record<string, string | undefined>;

export interface StartGateFile {
  /** Host CLOCK_MONOTONIC ns of emulated t = 0. */
  t0MonoNs: number;
  /** Real ns the run lasts (duration × timeScale): a start older than this is stale. */
  runRealNs: number;
  writtenBy: string;
}

export interface PrepareIo {
  log(line: string): void;
  /** Milliseconds to sleep between polls (tests shorten it). */
  pollMs?: number;
}

/** The device the kernel routes `ip` through (`ip -o route get`). */
export function routeDev(ip: string): string | null {
  const r = runCommand('ip', ['-o', 'route', 'get', ip]);
  if (r.status !== 0) return null;
  const m = / dev (\S+)/.exec(r.stdout);
  return m === null ? null : m[1];
}

/** tc commands (without `tc`) shaping every link of the node, grouped by the interface they use. */
export function containerShapeCommands(
  cfg: NodeConfig,
  devOf: (ip: string) => string | null = routeDev,
  opts: { keyByVni?: boolean } = {},
): { commands: string[][]; problems: string[] } {
  const setup = setupRun(cfg.scenario, { cc: cfg.cc, seed: cfg.seed });
  const me = setup.topo.byName.get(cfg.name);
  if (me === undefined) throw new ConfigError('NODE', `no node "${cfg.name}" in the topology`);
  const byDev = new Map<string, ShapeLink[]>();
  const problems: string[] = [];
  for (const p of me.ports) {
    const peer = addressOf(cfg.addresses, p.peerNode, p.peerPort);
    const dev = devOf(peer.host);
    if (dev === null) {
      problems.push(`no route to ${p.peerNode} (${peer.host})`);
      continue;
    }
    if (dev === 'lo') continue;
    const list = byDev.get(dev) ?? [];
    if (opts.keyByVni === true) {
      // One class per port, found by the VNI (= this egress port) whatever the peer's address.
      list.push({ rateBps: p.rateBps, peerIp: peer.host, vni: { vni: p.index, udpPort: peer.port } });
    } else {
      // Parallel links to one peer address share a class: one class per distinct peer address.
      const same = list.find((l) => l.peerIp === peer.host);
      if (same !== undefined) same.rateBps += p.rateBps;
      else list.push({ rateBps: p.rateBps, peerIp: peer.host });
    }
    byDev.set(dev, list);
  }
  const mtu =
    me.kind === 'host' ? setup.nicConfig(me, { name: me.name, ip: me.ip, port: dummyPort() }).mtuBytes : 0;
  const maxMtu = Math.max(
    mtu,
    ...setup.topo.hosts.map(
      (h) => setup.nicConfig(h, { name: h.name, ip: h.ip, port: dummyPort() }).mtuBytes,
    ),
  );
  const commands: string[][] = [];
  for (const [dev, links] of byDev) {
    const ifMtu = mtuOf(dev);
    const largest = maxMtu + MAX_HEADERS_BYTES + ENCAP_OVERHEAD_BYTES;
    if (ifMtu !== null && largest > ifMtu)
      problems.push(
        `datagrams of up to ${largest} bytes exceed ${dev}'s MTU ${ifMtu}: the kernel fragments them (slow, lossy); give the scenario's NICs mtu ≤ ${ifMtu - MAX_HEADERS_BYTES - ENCAP_OVERHEAD_BYTES}`,
      );
    commands.push(
      ...shapeCommands(dev, links, {
        timeScale: cfg.timeScale,
        maxPacketBytes: maxMtu + MAX_HEADERS_BYTES + ENCAP_OVERHEAD_BYTES,
      }),
    );
  }
  return { commands, problems };
}

/** Emulated headers above the NIC's MTU payload, and the Geneve options, at most (bytes). */
const MAX_HEADERS_BYTES = 200;

/** An interface's MTU (/sys/class/net/<dev>/mtu), null when unknown. */
export function mtuOf(dev: string): number | null {
  try {
    const v = Number(readFileSync(`/sys/class/net/${dev}/mtu`, 'utf8').trim());
    return Number.isInteger(v) && v > 0 ? v : null;
  } catch {
    return null;
  }
}

function dummyPort() {
  return { rateBps: 1, mac: 0, peerMac: 0 };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function readStartGate(dir: string): StartGateFile | null {
  try {
    const v = JSON.parse(readFileSync(join(dir, 'start'), 'utf8')) as Partial<StartGateFile>;
    if (typeof v.t0MonoNs !== 'number' || typeof v.runRealNs !== 'number') return null;
    return { t0MonoNs: v.t0MonoNs, runRealNs: v.runRealNs, writtenBy: String(v.writtenBy ?? '') };
  } catch {
    return null;
  }
}

/** Write `<dir>/<name>` atomically (tmp + rename), so a reader never sees half a file. */
export function writeAtomic(dir: string, name: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, join(dir, name));
}

function shapeNode(cfg: NodeConfig, env: Env, io: PrepareIo, keyByVni: boolean): void {
  if (env.SHAPE !== '0') {
    const { commands, problems } = containerShapeCommands(cfg, routeDev, { keyByVni });
    for (const p of problems) io.log(`rocelab: tc shaping: ${p}`);
    for (const c of commands) {
      const r = runCommand('tc', c);
      if (r.status !== 0) {
        io.log(
          `rocelab: tc ${c.slice(0, 4).join(' ')}… failed (${r.stderr.trim().split('\n')[0]}); links not shaped`,
        );
        break;
      }
    }
    if (commands.length > 0)
      io.log(
        `rocelab: ${cfg.name}: ${commands.length} tc commands shape its links to rate ÷ ${cfg.timeScale}`,
      );
  }
}

/**
 * Shape, pass the start gate; returns START_AT_MONO_NS for the node (null: let it start on its
 * own). Shaping problems are logged, not fatal (a container without NET_ADMIN still runs).
 */
export async function prepareContainerNode(env: Env, io: PrepareIo): Promise<number | null> {
  const cfg = nodeConfigFromEnv(env);
  shapeNode(cfg, env, io, false);
  if (env.START_AT_MONO_NS !== undefined && env.START_AT_MONO_NS !== '') return null;
  const gate = env.START_GATE;
  if (gate === undefined || gate === '') return null;
  if (/^https?:\/\//.test(gate)) return httpGate(gate, cfg.name, env, io);
  const bornNs = hostMonotonicNs();
  writeAtomic(join(gate, 'ready'), cfg.name, JSON.stringify({ node: cfg.name, monoNs: bornNs }));
  const timeoutMs = Number(env.START_GATE_TIMEOUT_S ?? 600) * 1000;
  const until = Date.now() + timeoutMs;
  io.log(`rocelab: ${cfg.name}: ready, waiting for the traffic job's start (${gate}/start)`);
  while (Date.now() < until) {
    const s = readStartGate(gate);
    // A start whose run is over is a leftover of an earlier `up`; wait for the new one.
    if (s !== null && s.t0MonoNs + s.runRealNs > hostMonotonicNs()) return Math.round(s.t0MonoNs);
    await sleep(io.pollMs ?? 100);
  }
  io.log(
    `rocelab: ${cfg.name}: no start from the traffic job after ${timeoutMs / 1000} s; starting on its own`,
  );
  return null;
}

function gateTimeoutMs(env: Env): number {
  return Number(env.START_GATE_TIMEOUT_S ?? 600) * 1000;
}

async function httpGate(url: string, node: string, env: Env, io: PrepareIo): Promise<number | null> {
  io.log(`rocelab: ${node}: waiting for the traffic job's start (${url})`);
  let t0: number | null;
  try {
    t0 = await passHttpGate(url, node, { timeoutMs: gateTimeoutMs(env), pollMs: io.pollMs, log: io.log });
  } catch (err) {
    if (err instanceof GateError) throw new ConfigError('START_GATE', err.message);
    throw err;
  }
  if (t0 === null) io.log(`rocelab: ${node}: no start from ${url}; starting on its own`);
  return t0;
}

/**
 * Everything the container entry hands the node (deploy/entrypoint.sh evaluates it): the
 * start (START_AT_MONO_NS) and, when the address map names peers by DNS (Kubernetes: the
 * headless Service's `<node>.<service>` records), the map with those names resolved.
 *
 * With names, the order differs from prepareContainerNode: resolve (retrying: a peer's record
 * appears once its pod has an address), pass the gate (then every peer exists), resolve again
 * (a peer that restarted meanwhile has a new address), and shape last, by VNI, so the classes
 * do not depend on addresses at all.
 */
export async function prepareContainer(env: Env, io: PrepareIo): Promise<Record<string, string>> {
  const raw = env.ADDRESS_MAP;
  let map: AddressMap | null = null;
  if (raw !== undefined && raw !== '' && !raw.startsWith('@')) {
    try {
      map = parseAddressMap(raw);
    } catch (err) {
      if (err instanceof AddressError) throw new ConfigError('ADDRESS_MAP', err.message);
      throw err;
    }
  }
  if (map === null || !hasDnsNames(map)) {
    const t0 = await prepareContainerNode(env, io);
    return t0 === null ? {} : { START_AT_MONO_NS: String(t0) };
  }
  const named = map;
  const resolveAll = async (timeoutMs: number) => {
    try {
      return await resolveAddressMapRetrying(named, {
        timeoutMs,
        retryMs: io.pollMs ?? 500,
        onRetry: (p) => io.log(`rocelab: ${p}; retrying`),
      });
    } catch (err) {
      if (err instanceof AddressError) throw new ConfigError('ADDRESS_MAP', err.message);
      throw err;
    }
  };
  const first = await resolveAll(gateTimeoutMs(env));
  const cfg0 = nodeConfigFromEnv({ ...env, ADDRESS_MAP: JSON.stringify(first) });
  let t0: number | null = null;
  if (env.START_AT_MONO_NS === undefined || env.START_AT_MONO_NS === '') {
    const gate = env.START_GATE;
    if (gate !== undefined && /^https?:\/\//.test(gate)) t0 = await httpGate(gate, cfg0.name, env, io);
    else if (gate !== undefined && gate !== '')
      throw new ConfigError('START_GATE', 'with DNS names in ADDRESS_MAP the gate must be an http:// URL');
  }
  const final = await resolveAll(30_000);
  const cfg = nodeConfigFromEnv({ ...env, ADDRESS_MAP: JSON.stringify(final) });
  shapeNode(cfg, env, io, true);
  // The names as given, for a node that re-resolves a peer whose sends fail (not wired yet).
  const out: Record<string, string> = { ADDRESS_MAP: JSON.stringify(final), ADDRESS_MAP_NAMES: raw! };
  // The pod interface's MTU, for a node that sizes its datagrams to it (not wired yet).
  const other = Object.keys(final).find((k) => k !== cfg.name && !k.includes(':'));
  const dev = other === undefined ? null : routeDev(addressOf(final, other).host);
  const mtu = dev === null ? null : mtuOf(dev);
  if (mtu !== null) out.POD_MTU = String(mtu);
  if (t0 !== null) out.START_AT_MONO_NS = String(t0);
  return out;
}

/** `export K='v'` lines for sh (single quotes; a quote inside becomes '\''). */
export function shellExports(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([k, v]) => `export ${k}='${v.replace(/'/g, "'\\''")}'\n`)
    .join('');
}
