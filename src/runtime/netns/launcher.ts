/**
 * `rocelab run … --runtime netns` (root): one Linux network namespace per node, one veth pair
 * per topology link with its own /30 in 198.18.0.0/15, tc shaping both ends of every link to
 * rate ÷ timeScale, and one `rocelab node` process per namespace (`ip netns exec`). The shared
 * Coordinator (src/runtime/real/coordinator.ts) runs the lifecycle and merges the nodes' reports
 * into results.json exactly as for `--runtime local`.
 *
 * Nothing is left behind: namespaces (and with them every veth and qdisc) are deleted, and the
 * processes inside killed, when the run ends, fails, is interrupted (SIGINT/SIGTERM) or the
 * launcher exits; namespaces of launchers that died without cleaning up are swept at the next
 * start (`sweepNetns`).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Results } from '../../stats/results.js';
import { nodeEntry } from '../local/launcher.js';
import { type AddressMap, GENEVE_UDP_PORT, VXLAN_UDP_PORT } from '../real/addresses.js';
import { checkMachineFits } from '../real/capacity.js';
import { Coordinator, type CoordinatorOptions } from '../real/coordinator.js';
import { nodeProcessFlags } from '../real/node-process.js';
import { INNER_HEADROOM_BYTES, largestHostMtuBytes } from '../real/path-mtu.js';
import type { NodeMessage } from '../real/protocol.js';
import { clearProgress, finishRealRun, progressPrinter } from '../real/run-output.js';
import type { RunOptions, RunOutput } from '../run.js';
import { type RunSetup, setupRun } from '../scenario-setup.js';
import { type NetnsPlan, planNetns } from './plan.js';
import { checkNetnsAvailable, createNetns, destroyNetns, sweepNetns } from './sys.js';
import { ENCAP_OVERHEAD_BYTES } from './tc.js';

export interface NetnsOptions extends RunOptions {
  overlay?: 'geneve' | 'vxlan';
  /** Extra environment for every node / per node (tests: CLOCK_SKEW_NS, LOG_LEVEL). */
  env?: Record<string, string>;
  nodeEnv?: Record<string, Record<string, string>>;
  /** GET /metrics port inside every namespace (default 9464; null: none). */
  metricsPort?: number | null;
  /** Override the scenario's time-dilation factor. */
  timeScale?: number;
  watchdogMs?: number;
  leadMs?: number;
  /** Namespace tag (default random); namespaces are `rl-<pid>-<tag>-<node>`. */
  tag?: string;
  /** Real ms of queueing tc accepts before dropping (default 500) and of bursts it passes (default 20). */
  tcLatencyMs?: number;
  tcBurstMs?: number;
  onMessage?(m: NodeMessage): void;
}

/** Environment a node inherits from the launcher; never contract names such as CC or NODE. */
const INHERITED_ENV = ['PATH', 'HOME', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'LC_ALL', 'TZ'];

function randomTag(): string {
  return Math.floor(Math.random() * 36 ** 5)
    .toString(36)
    .padStart(5, '0');
}

/** The address map of a netns run: `<node>:<port>` → that port's address, `<node>` → any (bind). */
export function netnsAddressMap(plan: NetnsPlan, udpPort: number): AddressMap {
  const map: AddressMap = {};
  for (const node of plan.namespaces.keys()) map[node] = `0.0.0.0:${udpPort}`;
  for (const [key, e] of plan.endpoints) map[key] = `${e.ip}:${udpPort}`;
  return map;
}

/** A netns run that tests can watch (namespaces, qdiscs, pids) before awaiting it. */
export class NetnsRun {
  readonly coordinator: Coordinator;
  readonly plan: NetnsPlan;
  readonly addresses: AddressMap;
  readonly outDir: string;
  readonly timeScale: number;
  readonly setup: RunSetup;
  /** Largest encapsulated frame on a veth (tc bucket sizes), and the veths' MTU. */
  private readonly maxPacketBytes: number;
  readonly linkMtuBytes: number;
  private created = false;
  private destroyed = false;
  private readonly onExit = () => this.destroy();

  private constructor(
    readonly opts: NetnsOptions,
    setup: RunSetup,
  ) {
    this.setup = setup;
    this.outDir = resolve(opts.outDir);
    this.timeScale = opts.timeScale ?? setup.scenario.timeScale;
    this.plan = planNetns(setup.topo, opts.tag ?? randomTag());
    const udpPort = opts.overlay === 'vxlan' ? VXLAN_UDP_PORT : GENEVE_UDP_PORT;
    this.addresses = netnsAddressMap(this.plan, udpPort);
    const entry = nodeEntry();
    const inherited: Record<string, string> = {};
    for (const k of INHERITED_ENV) if (process.env[k] !== undefined) inherited[k] = process.env[k]!;
    // The veths carry the largest frame in one datagram; the nodes bind 0.0.0.0, so they are told
    // the MTU rather than reading it from an interface.
    const largest = largestHostMtuBytes(
      setup.scenario,
      setup.topo.hosts.map((h) => h.name),
    );
    this.maxPacketBytes = largest + INNER_HEADROOM_BYTES + ENCAP_OVERHEAD_BYTES;
    this.linkMtuBytes = Math.max(1500, this.maxPacketBytes + 64);
    const env: Record<string, string> = {
      OVERLAY: opts.overlay ?? 'geneve',
      MTU: String(this.linkMtuBytes),
      LOG_LEVEL: 'info',
      ...(opts.metricsPort === null ? {} : { METRICS_PORT: String(opts.metricsPort ?? 9464) }),
      ...(opts.pcap === true ? { PCAP: join(this.outDir, 'pcap') } : {}),
      ...(opts.env ?? {}),
    };
    const namespaces = this.plan.namespaces;
    const copts: CoordinatorOptions = {
      runtime: 'netns',
      setup,
      seed: opts.seed ?? setup.scenario.seed,
      ...(opts.cc !== undefined ? { cc: opts.cc } : {}),
      timeScale: this.timeScale,
      addresses: this.addresses,
      env,
      nodeEnv: opts.nodeEnv,
      logDir: opts.keepLogs === true ? join(this.outDir, 'logs') : undefined,
      heapSamplingDir: process.env.ROCELAB_HEAP_SAMPLING_DIR || undefined,
      watchdogMs: opts.watchdogMs,
      leadMs: opts.leadMs,
      onMessage: opts.onMessage,
      onProgress: progressPrinter('netns', opts),
      // `ip netns exec` enters the namespace and execs node: the child's pid is node's, and the
      // IPC channel (an inherited fd) passes through.
      spawn: (req): ChildProcess =>
        spawn(
          'ip',
          ['netns', 'exec', namespaces.get(req.node)!, process.execPath, ...nodeProcessFlags(), entry],
          {
            env: { ...inherited, ...req.env },
            stdio: ['ignore', req.logFd, req.logFd, 'ipc'],
            serialization: 'json',
          },
        ),
    };
    this.coordinator = new Coordinator(copts);
  }

  /** Check the machine (root, iproute2), sweep leftovers of dead launchers, plan the run. */
  static create(opts: NetnsOptions): NetnsRun {
    checkNetnsAvailable();
    sweepNetns();
    const setup = setupRun(opts.scenario, { cc: opts.cc, seed: opts.seed });
    checkMachineFits(opts.scenario.name, setup.topo.nodes.length, 'netns');
    return new NetnsRun(opts, setup);
  }

  /** Namespaces, veths, addresses, qdiscs. */
  private build(): void {
    process.on('exit', this.onExit);
    this.created = true;
    createNetns(this.plan, {
      timeScale: this.timeScale,
      maxPacketBytes: this.maxPacketBytes,
      mtuBytes: this.linkMtuBytes,
      latencyMs: this.opts.tcLatencyMs,
      burstMs: this.opts.tcBurstMs,
    });
  }

  /** Kill what runs inside and delete the namespaces (idempotent, synchronous). */
  destroy(): void {
    if (!this.created || this.destroyed) return;
    this.destroyed = true;
    process.off('exit', this.onExit);
    destroyNetns(this.plan.runPrefix);
  }

  /** Build the fabric, run to the end, tear it down; writes OUT/results.json. */
  async run(): Promise<RunOutput> {
    const t0 = performance.now();
    mkdirSync(this.outDir, { recursive: true });
    let results: Results;
    try {
      this.build();
      results = await this.coordinator.run();
    } finally {
      clearProgress(this.opts);
      this.destroy();
    }
    return finishRealRun({
      results,
      outDir: this.outDir,
      opts: this.opts,
      wallMs: performance.now() - t0,
      how: `netns, ${this.plan.namespaces.size} namespaces, ${this.plan.links.length} shaped links, timeScale ${this.timeScale}`,
      datagrams: this.coordinator.datagramsSent(),
    });
  }
}

/** `--runtime netns`: the same RunOutput as runScenario. Needs root (else a one-line ConfigError). */
export async function runNetns(opts: NetnsOptions): Promise<RunOutput> {
  return NetnsRun.create(opts).run();
}
