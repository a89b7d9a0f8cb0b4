/**
 * `rocelab run … --runtime local`: one child process per node on 127.A.B.x (no root needed),
 * each running `rocelab node` (dist/src/runtime/real/node-main.js) with the environment contract
 * of docs/realtime.md. The shared Coordinator does the lifecycle and real/run-output.ts the
 * progress line and results.json (as the virtual runtime writes it); this file picks addresses
 * and spawns children.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../config/errors.js';
import { packageRoot } from '../../package-root.js';
import type { Results } from '../../stats/results.js';
import type { Topology } from '../../topology/model.js';
import {
  type AddressMap,
  GENEVE_UDP_PORT,
  localAddressMap,
  parseEndpoint,
  VXLAN_UDP_PORT,
} from '../real/addresses.js';
import { checkMachineFits } from '../real/capacity.js';
import { Coordinator, type CoordinatorOptions } from '../real/coordinator.js';
import { nodeProcessFlags } from '../real/node-process.js';
import type { NodeMessage } from '../real/protocol.js';
import { clearProgress, finishRealRun, progressPrinter } from '../real/run-output.js';
import type { RunOptions, RunOutput } from '../run.js';
import { setupRun } from '../scenario-setup.js';

export interface LocalOptions extends RunOptions {
  /** Overlay of data frames (default geneve). */
  overlay?: 'geneve' | 'vxlan';
  /** Extra environment for every node / per node (tests: CLOCK_SKEW_NS, LOG_LEVEL). */
  env?: Record<string, string>;
  nodeEnv?: Record<string, Record<string, string>>;
  /** GET /metrics port on every node's own address (default 9464; null: none). */
  metricsPort?: number | null;
  /** Address block (127.A.B.0/24) index; default: a free random one. */
  block?: number;
  /** Override the time-dilation factor of the scenario. */
  timeScale?: number;
  watchdogMs?: number;
  leadMs?: number;
  /** Override the scenario's `processes` (tests that kill nodes need `per-node`). */
  processes?: 'per-node' | 'auto' | number;
  onMessage?(m: NodeMessage): void;
}

/** Environment variables a child inherits from the launcher; never CC, NODE or other contract names. */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT'];

/** The compiled node entry the children run. */
export function nodeEntry(): string {
  const p = join(packageRoot(), 'dist', 'src', 'runtime', 'real', 'node-main.js');
  if (!existsSync(p))
    throw new ConfigError('runtime', `the real-runtime node is not built (${p}); run npm run build`);
  return p;
}

async function blockIsFree(addresses: AddressMap, first: string): Promise<boolean> {
  const ep = parseEndpoint(addresses[first], first);
  const s = createSocket('udp4');
  try {
    await new Promise<void>((res, rej) => {
      s.once('error', rej);
      s.bind(ep.port, ep.host, () => res());
    });
    return true;
  } catch {
    return false;
  } finally {
    try {
      s.close();
    } catch {
      // not bound
    }
  }
}

/** A local run that tests can steer (kill/restart nodes, read addresses) before awaiting it. */
export class LocalRun {
  readonly coordinator: Coordinator;
  readonly addresses: AddressMap;
  readonly block: number;
  readonly outDir: string;
  readonly timeScale: number;
  /** OS processes the nodes run in. */
  readonly processCount: number;
  private readonly setup: ReturnType<typeof setupRun>;

  private constructor(
    readonly opts: LocalOptions,
    addresses: AddressMap,
    block: number,
    setup: ReturnType<typeof setupRun>,
    processes: string[][],
  ) {
    this.addresses = addresses;
    this.block = block;
    this.setup = setup;
    this.outDir = resolve(opts.outDir);
    this.timeScale = opts.timeScale ?? setup.scenario.timeScale;
    const entry = nodeEntry();
    const inherited: Record<string, string> = {};
    for (const k of INHERITED_ENV) if (process.env[k] !== undefined) inherited[k] = process.env[k]!;
    const env: Record<string, string> = {
      OVERLAY: opts.overlay ?? 'geneve',
      LOG_LEVEL: 'info',
      ...(opts.metricsPort === null ? {} : { METRICS_PORT: String(opts.metricsPort ?? 9464) }),
      ...(opts.pcap === true ? { PCAP: join(this.outDir, 'pcap') } : {}),
      ...(opts.env ?? {}),
    };
    this.processCount = processes.length;
    const copts: CoordinatorOptions = {
      runtime: 'local',
      processes,
      setup,
      seed: opts.seed ?? setup.scenario.seed,
      ...(opts.cc !== undefined ? { cc: opts.cc } : {}),
      timeScale: this.timeScale,
      addresses,
      env,
      nodeEnv: opts.nodeEnv,
      logDir: opts.keepLogs === true ? join(this.outDir, 'logs') : undefined,
      heapSamplingDir: process.env.ROCELAB_HEAP_SAMPLING_DIR || undefined,
      watchdogMs: opts.watchdogMs,
      leadMs: opts.leadMs,
      onMessage: opts.onMessage,
      onProgress: progressPrinter('local', opts),
      spawn: (req): ChildProcess =>
        spawn(process.execPath, [...nodeProcessFlags(), entry], {
          env: { ...inherited, ...req.env },
          stdio: ['ignore', req.logFd, req.logFd, 'ipc'],
          serialization: 'json',
        }),
    };
    this.coordinator = new Coordinator(copts);
  }

  static async create(opts: LocalOptions): Promise<LocalRun> {
    const setup = setupRun(opts.scenario, { cc: opts.cc, seed: opts.seed });
    const names = setup.topo.nodes.map((n) => n.name);
    const want = opts.processes ?? setup.scenario.processes;
    const processes = processGroups(setup.topo, want, Object.keys(opts.nodeEnv ?? {}));
    checkMachineFits(opts.scenario.name, names.length, 'local', undefined, processes.length);
    const port = opts.overlay === 'vxlan' ? VXLAN_UDP_PORT : GENEVE_UDP_PORT;
    let block = opts.block ?? Math.floor(Math.random() * 60_000);
    for (let attempt = 0; ; attempt++) {
      const map = localAddressMap(names, block, port);
      if (await blockIsFree(map, names[0])) return new LocalRun(opts, map, block, setup, processes);
      if (opts.block !== undefined || attempt >= 20)
        throw new ConfigError('runtime', `no free local address block (tried ${map[names[0]]})`);
      block = Math.floor(Math.random() * 60_000);
    }
  }

  /** Run to the end and write OUT/results.json (and the summary unless silent). */
  async run(): Promise<RunOutput> {
    const t0 = performance.now();
    mkdirSync(this.outDir, { recursive: true });
    let results: Results;
    try {
      results = await this.coordinator.run();
    } finally {
      clearProgress(this.opts);
    }
    return finishRealRun({
      results,
      outDir: this.outDir,
      opts: this.opts,
      wallMs: performance.now() - t0,
      how: `local, ${this.setup.topo.nodes.length} nodes in ${this.processCount} processes, timeScale ${this.timeScale}`,
      datagrams: this.coordinator.datagramsSent(),
    });
  }
}

/** `--runtime local`: the same RunOutput as runScenario. */
export async function runLocal(opts: LocalOptions): Promise<RunOutput> {
  const run = await LocalRun.create(opts);
  return run.run();
}

/**
 * Which nodes share a process: `per-node` one each; `auto` one each while they fit the cores,
 * else as many processes as cores; a number that many. Nodes are grouped with their neighbours
 * (a switch, then the hosts on it), so most lockstep promises and frames stay inside a process's
 * own event loop: a datagram between two sockets of one process costs no wake-up of another.
 * `alone` nodes (their own environment) get a process each.
 */
export function processGroups(
  topo: Topology,
  processes: 'per-node' | 'auto' | number,
  alone: readonly string[] = [],
  cores: number = availableParallelism(),
): string[][] {
  const solo = new Set(alone);
  const names = topo.nodes.map((n) => n.name);
  const want =
    processes === 'per-node'
      ? names.length
      : processes === 'auto'
        ? Math.min(names.length, cores)
        : processes;
  if (want >= names.length) return names.map((n) => [n]);
  // Switches in topology order, each followed by the hosts attached to it not placed yet.
  const order: string[] = [];
  const placed = new Set<string>();
  const place = (n: string) => {
    if (placed.has(n) || solo.has(n)) return;
    placed.add(n);
    order.push(n);
  };
  for (const sw of topo.nodes) {
    if (sw.kind !== 'switch') continue;
    place(sw.name);
    for (const p of sw.ports) if (topo.byName.get(p.peerNode)?.kind === 'host') place(p.peerNode);
  }
  for (const n of names) place(n);
  const groups: string[][] = [...solo].filter((n) => topo.byName.has(n)).map((n) => [n]);
  const k = Math.max(1, Math.min(want, order.length));
  for (let i = 0; i < k; i++) {
    const g = order.slice(Math.floor((i * order.length) / k), Math.floor(((i + 1) * order.length) / k));
    if (g.length > 0) groups.push(g);
  }
  return groups;
}
