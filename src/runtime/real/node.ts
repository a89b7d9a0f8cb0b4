/**
 * `rocelab node`: one NIC or switch of a real run, in its own OS process, configured from
 * environment variables (docs/realtime.md has the full contract):
 *
 *   NODE              node name in the topology (h1, s1, …)                        required
 *   SCENARIO          scenario YAML (alias TOPOLOGY), with ROCELAB_SET/SET "k=v;k=v" and SEED
 *   SCENARIO_JSON     …or a resolved scenario written by a launcher (takes precedence)
 *   CC, CC_<PARAM>    algorithm of every host, and its parameters (CC_RAI=40Mbps)
 *   TIME_SCALE        time-dilation factor (default: the scenario's timeScale)
 *   ADDRESS_MAP       JSON {"<node>[:<port>]": "ip:udpPort"} or @file; BIND overrides the local socket
 *   OVERLAY           geneve (default) | vxlan
 *   METRICS_PORT      GET /metrics port (unset: no server); METRICS_HOST (default: the node's IP)
 *   LOG_LEVEL         pino level (default info); logs are JSON lines on stdout
 *   PCAP              directory for <node>-p<port>.pcap of the emulated frames
 *   CLOCK_SKEW_NS     injected clock error in real ns (tests); CLOCK_DRIFT_PPM
 *   SYNC_REF          clock-sync reference node (default: the first switch)
 *   START_AT_MONO_NS  standalone start: host CLOCK_MONOTONIC ns of emulated t=0 (else now + START_DELAY_MS)
 *   REPORT_FILE       standalone: where the node writes its report when it ends
 *   ARRIVAL_STAMPS    1 (default): Geneve frames carry their emulated arrival instant and are
 *                     delivered at it; 0: delivered when the event loop reads them (wallclock only)
 *   SYNC              lockstep (default: the scenario's `sync`) | wallclock (docs/realtime.md)
 *   PEER_TIMEOUT_MS   lockstep: a neighbour silent this long (real ms) is declared down (5000)
 *   TRAIN             auto (default: the scenario's `train`) | off: frames of one turn in one datagram
 *   IN_PROCESS_LINKS  auto (default: the scenario's `inProcessLinks`) | socket | memory: datagrams to
 *                     nodes of this process handed over in memory (auto: under lockstep, and
 *                     under wallclock with REALTIME_PRIORITY's main thread at real-time priority)
 *   PROCESS_GROUPS    set by the local launcher: the nodes of every process ("s1,h1;h2,h3"); under
 *                     lockstep with links in memory, datagrams to another process leave in bundles
 *                     (process-bundles.ts); BUNDLES=0 sends each alone
 *   MTU, POD_MTU      MTU of the real path (default: read from the interface holding BIND's address)
 *   DROP_EVERY        tests: lose every n-th sequenced datagram once (the overlay resends it)
 *   POISON_FRAMES     tests: 1 = frames given back to the free list are poisoned until reused
 *
 * Under a launcher (IPC channel present) the node says `ready`, waits for `start`, reports flow
 * completions, and on `finish` sends its report and exits. Standalone (containers) it starts at
 * START_AT_MONO_NS and ends at the scenario's duration or on SIGTERM, writing REPORT_FILE.
 */
import { createSocket, type Socket } from 'node:dgram';
import { lookup as dnsLookup, type LookupOptions } from 'node:dns';
import { readFileSync, writeFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { availableParallelism, networkInterfaces } from 'node:os';
import { monitorEventLoopDelay, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { pino } from 'pino';
import { createNic, type Nic } from '../../../nic/api.js';
import { createSwitch, type Switch } from '../../../switch/api.js';
import { listAlgorithms } from '../../cc/registry.js';
import { ConfigError } from '../../config/errors.js';
import { loadScenario } from '../../config/load.js';
import type { Scenario } from '../../config/scenario.js';
import type { Logger, TimerService } from '../../env/env.js';
import { createRng } from '../../env/rng.js';
import { createNodeMetrics, type NodeMetrics } from '../../metrics/node-metrics.js';
import { Probe } from '../../probe/probe.js';
import { idealFctNs, slowdown } from '../../stats/fct.js';
import type { FlatSeries } from '../../stats/results.js';
import { RealClock } from '../../time/real-clock.js';
import { shortestLinkDelayNs, type TopologyNode } from '../../topology/model.js';
import type { Packet } from '../../wire/packet.js';
import { HostApp } from '../app/host-app.js';
import { firmwareReport } from '../app/node-report.js';
import { peerMacOf, planFromSetup, type RunPlan } from '../app/plan.js';
import { createPcapTap, type PcapTap } from '../pcap-tap.js';
import { type RunSetup, setupRun } from '../scenario-setup.js';
import { warmUp } from '../warmup.js';
import {
  AddressError,
  type AddressMap,
  addressOf,
  type Endpoint,
  GENEVE_UDP_PORT,
  localAddressMap,
  parseAddressMap,
  parseEndpoint,
  VXLAN_UDP_PORT,
} from './addresses.js';
import { AllocationSampler } from './alloc-sampler.js';
import { ClockSyncClient, defaultSyncRef, isSyncResponse, syncResponse, syncTree } from './clock-sync.js';
import { EventTimers } from './event-timers.js';
import { HeapSampling } from './heap-sampling.js';
import { inputOrderOf, LockstepScheduler, queuedLockstepTurns } from './lockstep.js';
import { LATE_BINS, type Overlay, RealNodeEnv } from './node-env.js';
import { checkPathMtu, largestHostMtuBytes } from './path-mtu.js';
import { configureBundler, type ProcessBundler } from './process-bundles.js';
import {
  hostMonotonicNs,
  hostMonotonicNsAt,
  type LauncherMessage,
  type LongGc,
  type NodeLoadReport,
  type NodeMessage,
  type NodeReport,
} from './protocol.js';
import { mainThreadIsRealtime } from './realtime-priority.js';
import { scenarioFromJson } from './scenario-json.js';

export interface NodeConfig {
  name: string;
  scenario: Scenario;
  cc: string | undefined;
  seed: number | undefined;
  timeScale: number;
  addresses: AddressMap;
  bind: Endpoint;
  overlay: Overlay;
  metrics: { host: string; port: number } | null;
  logLevel: string;
  pcapDir: string | null;
  skewRealNs: number;
  driftPpm: number;
  syncRef: string | null;
  syncIntervalMs: number;
  syncExchanges: number;
  startAtMonoNs: number | null;
  startDelayMs: number;
  reportFile: string | null;
  incarnation: number;
  timerSpinMs: number;
  /** Sample V8's allocated bytes every this many real ms (0: off; a bench knob, alloc-sampler.ts). */
  allocSampleMs: number;
  /** HEAP_SAMPLING_FILE: write a sampling heap profile of the run there (heap-sampling.ts). */
  heapSamplingFile: string | null;
  /**
   * Wallclock events run in time windows of the shortest link delay (`link`, the default) or as
   * each falls due (`off`); TIME_WINDOW. EventTimers' `windowNs`, docs/realtime.md "Time windows".
   */
  timeWindow: 'link' | 'off';
  /** Check the ICRC of received frames; null: hosts do, switches do not (as in hardware). */
  verifyIcrc: boolean | null;
  /** A switch forwards frames in place (patching, not re-encoding); FORWARD_IN_PLACE=0 turns it off. */
  forwardInPlace: boolean;
  warmUp: boolean;
  arrivalStamps: boolean;
  sync: 'lockstep' | 'wallclock';
  peerTimeoutMs: number;
  train: 'auto' | 'off';
  /** Datagrams to nodes of this process over memory (in-process-links.ts). */
  inProcessLinks: 'socket' | 'memory';
  /**
   * The nodes of every process of the run (PROCESS_GROUPS, set by the local launcher), or null:
   * under lockstep with links in memory, datagrams to another process's nodes leave in bundles
   * (process-bundles.ts) unless BUNDLES=0.
   */
  processGroups: string[][] | null;
  /**
   * Run the process's main thread under SCHED_RR (realtime-priority.ts): the scenario's
   * `realtimePriority` or REALTIME_PRIORITY; `auto` is on under wallclock when the launcher runs
   * no more node processes (PROCESSES_ON_HOST) than the machine has cores.
   */
  realtimePriority: boolean;
  /** MTU of the real path; datagrams stay below it − 28 bytes (IPv4 + UDP), so IP never fragments. */
  mtu: number;
  dropEvery: number;
}

type Env = Record<string, string | undefined>;

function num(env: Env, key: string, def: number, check: (v: number) => boolean = Number.isFinite): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return def;
  const v = Number(raw);
  if (!check(v)) throw new ConfigError(key, `invalid value ${JSON.stringify(raw)}`);
  return v;
}

/** env[key] when set and not empty, else the scenario's `def`: one of `allowed`, or a ConfigError. */
function choice<T extends string>(env: Env, key: string, def: string, allowed: readonly T[]): T {
  const set = env[key];
  const raw = set !== undefined && set !== '' ? set : def;
  if (!(allowed as readonly string[]).includes(raw)) {
    const expected = `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}`;
    throw new ConfigError(key, `expected ${expected}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

const norm = (s: string) => s.toLowerCase().replace(/_/g, '');

/** CC_<PARAM>=value → cc.<algorithm>.<param>, matching the registry's names and aliases. */
function applyCcEnv(s: Scenario, env: Env, cc: string | undefined): void {
  const keys = Object.keys(env).filter((k) => k.startsWith('CC_') && env[k] !== undefined);
  if (keys.length === 0) return;
  const algName = cc ?? s.defaults.nic.cc;
  const alg = listAlgorithms().find((a) => a.name === algName);
  const known = alg === undefined ? [] : [...alg.params.map((p) => p.name), ...Object.keys(alg.aliases)];
  const section = (s.cc[algName] ??= { profile: null, params: {} });
  for (const k of keys) {
    const want = norm(k.slice(3));
    const name = known.find((n) => norm(n) === want) ?? k.slice(3).toLowerCase();
    const raw = env[k]!;
    const asNum = Number(raw);
    section.params[name] = raw.trim() !== '' && Number.isFinite(asNum) ? asNum : raw;
  }
}

/**
 * The configurations of the nodes one process runs: NODE names one node, or several separated by
 * commas (the local launcher's `processes`, docs/realtime.md "Processes"). The nodes of one
 * process share the scenario; each binds its own address from the address map, so BIND and
 * REPORT_FILE, which name one node's, need a single NODE.
 */
export function nodeConfigsFromEnv(env: Env): NodeConfig[] {
  const list = env.NODE ?? env.ROCELAB_NODE ?? '';
  const names = list.split(',').map((n) => n.trim());
  if (names.length <= 1) return [nodeConfigFromEnv(env)];
  if (names.some((n) => n === ''))
    throw new ConfigError('NODE', `an empty name in the list ${JSON.stringify(list)}`);
  if (new Set(names).size !== names.length)
    throw new ConfigError('NODE', `a name twice in the list ${JSON.stringify(list)}`);
  for (const key of ['BIND', 'REPORT_FILE'] as const)
    if (env[key] !== undefined && env[key] !== '')
      throw new ConfigError(key, 'names one node: set it only when NODE names a single node');
  const first = nodeConfigFromEnv({ ...env, NODE: names[0], ROCELAB_NODE: undefined });
  return names.map((name, i) => {
    if (i === 0) return first;
    let bind: Endpoint;
    try {
      bind = addressOf(first.addresses, name);
    } catch (err) {
      if (err instanceof AddressError) throw new ConfigError('ADDRESS_MAP', err.message);
      throw err;
    }
    const metrics =
      first.metrics === null ? null : { host: env.METRICS_HOST ?? bind.host, port: first.metrics.port };
    return { ...first, name, bind, metrics };
  });
}

export function nodeConfigFromEnv(env: Env): NodeConfig {
  const name = env.NODE ?? env.ROCELAB_NODE;
  if (name === undefined || name === '')
    throw new ConfigError('NODE', 'required: the name of the node to run');
  if (name.includes(','))
    throw new ConfigError('NODE', `one node expected here, got the list ${JSON.stringify(name)}`);
  const cc = env.CC !== undefined && env.CC !== '' ? env.CC : undefined;
  const seed =
    env.SEED !== undefined && env.SEED !== '' ? num(env, 'SEED', 0, Number.isSafeInteger) : undefined;
  let scenario: Scenario;
  if (env.SCENARIO_JSON !== undefined && env.SCENARIO_JSON !== '') {
    scenario = scenarioFromJson(readFileSync(env.SCENARIO_JSON, 'utf8'));
  } else {
    const file = env.SCENARIO ?? env.TOPOLOGY;
    if (file === undefined || file === '') throw new ConfigError('SCENARIO', 'required: a scenario file');
    const sets = (env.ROCELAB_SET ?? env.SET ?? '')
      .split(/[;\n]/)
      .map((x) => x.trim())
      .filter((x) => x !== '');
    if (seed !== undefined) sets.push(`seed=${seed}`);
    scenario = loadScenario(file, sets);
  }
  applyCcEnv(scenario, env, cc);
  const timeScale = num(env, 'TIME_SCALE', scenario.timeScale, (v) => v > 0 && Number.isFinite(v));
  const overlayRaw = env.OVERLAY ?? 'geneve';
  if (overlayRaw !== 'geneve' && overlayRaw !== 'vxlan')
    throw new ConfigError('OVERLAY', `expected geneve or vxlan, got ${JSON.stringify(overlayRaw)}`);
  const overlay: Overlay = overlayRaw;
  const train = choice(env, 'TRAIN', scenario.train, ['auto', 'off']);
  const inProcessLinks = choice(env, 'IN_PROCESS_LINKS', scenario.inProcessLinks ?? 'auto', [
    'auto',
    'socket',
    'memory',
  ]);
  const timeWindow = choice(env, 'TIME_WINDOW', scenario.timeWindow, ['link', 'off']);
  const sync = choice(env, 'SYNC', scenario.sync, ['lockstep', 'wallclock']);
  const realtimePriority = choice(env, 'REALTIME_PRIORITY', scenario.realtimePriority ?? 'auto', [
    'auto',
    'on',
    'off',
  ]);
  const processesOnHost =
    env.PROCESSES_ON_HOST === undefined
      ? null
      : num(env, 'PROCESSES_ON_HOST', 0, (v) => Number.isInteger(v) && v >= 1);
  // auto: only where no node process waits behind another's time slice of 100 ms
  // (realtime-priority.ts), and only where a late frame is an error (wallclock).
  const realtimeMainThread =
    realtimePriority === 'auto'
      ? sync === 'wallclock' && processesOnHost !== null && processesOnHost <= availableParallelism()
      : realtimePriority === 'on';
  if (sync === 'lockstep' && overlay !== 'geneve')
    throw new ConfigError('OVERLAY', 'lockstep needs the geneve overlay (frames carry their arrival stamps)');
  let addresses: AddressMap;
  const rawMap = env.ADDRESS_MAP;
  try {
    if (rawMap !== undefined && rawMap !== '') {
      addresses = parseAddressMap(rawMap.startsWith('@') ? readFileSync(rawMap.slice(1), 'utf8') : rawMap);
    } else {
      // Standalone on one machine without a map: the local launcher's layout in block LOCAL_BLOCK.
      const topoNames = setupRun(scenario, { cc, seed }).topo.nodes.map((n) => n.name);
      addresses = localAddressMap(
        topoNames,
        num(env, 'LOCAL_BLOCK', 0, Number.isInteger),
        overlay === 'geneve' ? GENEVE_UDP_PORT : VXLAN_UDP_PORT,
      );
    }
  } catch (err) {
    if (err instanceof AddressError) throw new ConfigError('ADDRESS_MAP', err.message);
    throw err;
  }
  let bind: Endpoint;
  try {
    bind =
      env.BIND !== undefined && env.BIND !== ''
        ? parseEndpoint(env.BIND, 'BIND')
        : addressOf(addresses, name);
  } catch (err) {
    if (err instanceof AddressError) throw new ConfigError('BIND', err.message);
    throw err;
  }
  const metricsPort = env.METRICS_PORT;
  const metrics =
    metricsPort === undefined || metricsPort === ''
      ? null
      : {
          host: env.METRICS_HOST ?? bind.host,
          port: num(env, 'METRICS_PORT', 0, (v) => Number.isInteger(v) && v >= 0 && v <= 65535),
        };
  return {
    name,
    scenario,
    cc,
    seed,
    timeScale,
    addresses,
    bind,
    overlay,
    metrics,
    logLevel: env.LOG_LEVEL ?? 'info',
    pcapDir: env.PCAP !== undefined && env.PCAP !== '' && env.PCAP !== '0' ? env.PCAP : null,
    skewRealNs: num(env, 'CLOCK_SKEW_NS', 0),
    driftPpm: num(env, 'CLOCK_DRIFT_PPM', 0),
    syncRef: env.SYNC_REF !== undefined && env.SYNC_REF !== '' ? env.SYNC_REF : null,
    syncIntervalMs: num(env, 'SYNC_INTERVAL_MS', 300, (v) => v >= 10),
    syncExchanges: num(env, 'SYNC_EXCHANGES', 8, (v) => Number.isInteger(v) && v >= 1 && v <= 1000),
    startAtMonoNs: env.START_AT_MONO_NS !== undefined ? num(env, 'START_AT_MONO_NS', 0) : null,
    startDelayMs: num(env, 'START_DELAY_MS', 1000, (v) => v >= 0),
    reportFile: env.REPORT_FILE !== undefined && env.REPORT_FILE !== '' ? env.REPORT_FILE : null,
    incarnation: num(env, 'INCARNATION', 0, Number.isInteger),
    timerSpinMs: num(env, 'TIMER_SPIN_MS', 0, (v) => v >= 0 && v <= 50),
    allocSampleMs: num(env, 'ALLOC_SAMPLE_MS', 0, (v) => v >= 0),
    heapSamplingFile:
      env.HEAP_SAMPLING_FILE !== undefined && env.HEAP_SAMPLING_FILE !== '' ? env.HEAP_SAMPLING_FILE : null,
    timeWindow,
    // Like real switches, a switch node leaves the end-to-end ICRC to the receiving NIC.
    verifyIcrc: env.VERIFY_ICRC === undefined || env.VERIFY_ICRC === '' ? null : env.VERIFY_ICRC !== '0',
    forwardInPlace: env.FORWARD_IN_PLACE !== '0',
    warmUp: env.WARMUP !== '0',
    arrivalStamps: env.ARRIVAL_STAMPS !== '0',
    sync,
    peerTimeoutMs: num(env, 'PEER_TIMEOUT_MS', 5000, (v) => v >= 100),
    train,
    // auto: in memory under lockstep, where it only makes the run faster (its results are virtual
    // time's either way), and under wallclock with the main thread at real-time priority, where
    // fewer received Buffers shorten the young collections that are then what makes frames late;
    // the socket otherwise, where memory was not better (docs/realtime.md "Processes").
    inProcessLinks:
      inProcessLinks === 'auto'
        ? sync === 'lockstep' || realtimeMainThread
          ? 'memory'
          : 'socket'
        : inProcessLinks,
    dropEvery: num(env, 'DROP_EVERY', 0, (v) => Number.isInteger(v) && v >= 0),
    processGroups: env.BUNDLES === '0' ? null : processGroupsFromEnv(env.PROCESS_GROUPS),
    realtimePriority: realtimeMainThread,
    mtu: num(
      env,
      env.MTU !== undefined ? 'MTU' : 'POD_MTU',
      interfaceMtu(bind.host),
      (v) => Number.isInteger(v) && v >= 576 && v <= 65536,
    ),
  };
}

/** PROCESS_GROUPS: the nodes of each process, comma-separated, processes separated by `;`. */
function processGroupsFromEnv(v: string | undefined): string[][] | null {
  if (v === undefined || v.trim() === '') return null;
  const groups = v.split(';').map((g) => g.split(',').map((n) => n.trim()));
  const seen = new Set<string>();
  for (const g of groups)
    for (const n of g) {
      if (n === '') throw new ConfigError('PROCESS_GROUPS', `an empty node name in ${JSON.stringify(v)}`);
      if (seen.has(n)) throw new ConfigError('PROCESS_GROUPS', `node "${n}" is in two processes`);
      seen.add(n);
    }
  return groups;
}

/** Per-port accounting of achieved vs expected rate over sampling windows with work queued. */
interface PortLoad {
  configuredBps: number;
  lastTxBytes: number;
  loadedWindows: number;
  loadedBytes: number;
  loadedNs: number;
  expectedBitNs: number;
  lastAchievedBps: number;
  wasLoaded: boolean;
}

/**
 * MTU of the interface holding `ip` (loopback for 127.0.0.0/8), read from sysfs; 1500 when it
 * cannot be read (not Linux, address not local yet).
 */
export function interfaceMtu(ip: string): number {
  let name: string | undefined = ip.startsWith('127.') ? 'lo' : undefined;
  if (name === undefined) {
    for (const [n, addrs] of Object.entries(networkInterfaces()))
      if (addrs?.some((a) => a.address === ip)) name = n;
  }
  if (name === undefined) return 1500;
  try {
    const v = Number(readFileSync(`/sys/class/net/${name}/mtu`, 'utf8').trim());
    return Number.isInteger(v) && v >= 576 ? Math.min(v, 65_536) : 1500;
  } catch {
    return 1500;
  }
}

/** Lockstep: progress reports and liveness checks, and keepalives, real ms apart. */
const PROGRESS_MS = 250;
/** Collections over 1 ms a node lists with their times (it counts all of them). */
const LONG_GC_KEPT = 256;
/** perf_hooks' GC kinds, by value. */
const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

function gcKindName(kind: number | undefined): string {
  return kind === undefined ? 'unknown' : (GC_KINDS[kind] ?? `kind ${kind}`);
}

/** Lockstep, after the report: keepalives carrying the final +∞ promise, real ms apart. */
const LINGER_KEEPALIVES = 3;
const LINGER_MS = 100;
const KEEPALIVE_MS = 1000;

export class RealNode {
  readonly cfg: NodeConfig;
  readonly plan: RunPlan;
  readonly me: TopologyNode;
  readonly log: pino.Logger;
  private readonly setup: RunSetup;
  private socket: Socket | null = null;
  private metrics: NodeMetrics | null = null;
  private metricsAddress: string | null = null;
  private clock: RealClock | null = null;
  private timers: EventTimers | null = null;
  /** Lockstep mode: the conservative scheduler that runs frames and timers (lockstep.ts). */
  private lockstep: LockstepScheduler<Packet> | null = null;
  /** Lockstep: the end the launcher announced, reported once every event up to it ran. */
  private endingAtNs: number | null = null;
  private atCapSent = false;
  private progressTimer: NodeJS.Timeout | null = null;
  private ticks = 0;
  /** Lockstep: (real ns, emulated ns) at the last progress tick, and the dilations measured. */
  private lastTick: { realNs: number; emNs: number } | null = null;
  private readonly dilations: number[] = [];
  lastDilation = Number.NaN;
  env: RealNodeEnv | null = null;
  nic: Nic | null = null;
  sw: Switch | null = null;
  /** The scenario's probe bins of this node (null: the scenario asks for none). */
  private probe: Probe | null = null;
  driver: HostApp | null = null;
  private sync: ClockSyncClient | null = null;
  private pcap: PcapTap | null = null;
  private readonly loop = monitorEventLoopDelay({ resolution: 1 });
  /** Garbage-collection pauses since the start: the longest, and how many took over 1 ms real. */
  private gcMaxNs = 0;
  private gcOver1Ms = 0;
  /** Why the process's main thread is not at real-time priority though this node's config asks for it (run-node.ts), or null. */
  realtimePriorityRefused: string | null = null;
  private readonly gcLong: LongGc[] = [];
  private gcObserver: PerformanceObserver | null = null;
  private allocSampler: AllocationSampler | null = null;
  private heapSampling: HeapSampling | null = null;
  private readonly queueSeries = new Map<number, number[]>();
  private readonly queueMax = new Map<number, number>();
  private portLoad: PortLoad[] = [];
  private lastSampleNs = 0;
  private readonly skewNs: number;
  private epochNs = 0;
  private finished = false;
  /** The node has reached its end and is finishing (reporting, then lingering for its neighbours). */
  get finishing(): boolean {
    return this.finished;
  }
  private readonly syncRef: string;
  private syncedOnce = false;
  private readonly warnings: string[] = [];
  /** Messages to the launcher (IPC); null when standalone. */
  private readonly send: ((m: NodeMessage) => void) | null;
  private exitResolve: (() => void) | null = null;

  /**
   * `send`: the launcher's IPC channel (null: standalone). `fatalExits: false` (a warm-up's nodes,
   * warm-up-run.ts): a fatal error closes the node and ends it instead of exiting the process.
   */
  constructor(
    cfg: NodeConfig,
    send: ((m: NodeMessage) => void) | null,
    private readonly fatalExits = true,
  ) {
    this.cfg = cfg;
    this.send = send;
    ({ setup: this.setup, plan: this.plan } = sharedSetup(cfg));
    const me = this.setup.topo.byName.get(cfg.name);
    if (me === undefined) {
      const names = this.setup.topo.nodes.map((n) => n.name);
      throw new ConfigError(
        'NODE',
        `no node "${cfg.name}" in the topology (nodes: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''})`,
      );
    }
    this.me = me;
    checkPathMtu(
      cfg.mtu,
      largestHostMtuBytes(
        this.setup.scenario,
        this.setup.topo.hosts.map((h) => h.name),
      ),
    );
    this.skewNs = cfg.skewRealNs / cfg.timeScale;
    this.syncRef = cfg.syncRef ?? defaultSyncRef(this.setup.topo);
    if (!this.setup.topo.byName.has(this.syncRef))
      throw new ConfigError('SYNC_REF', `no node "${this.syncRef}"`);
    this.log = pino({ level: cfg.logLevel, base: { node: cfg.name, pid: process.pid } });
  }

  /** Bind the socket and the metrics server. */
  async open(): Promise<void> {
    const sock = createSocket({
      type: 'udp4',
      recvBufferSize: 4 << 20,
      sendBufferSize: 4 << 20,
      lookup: literalFirstLookup,
    });
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.bind(this.cfg.bind.port, this.cfg.bind.host, () => {
        sock.off('error', reject);
        resolve();
      });
    });
    sock.on('error', (err) => this.log.error({ err: err.message }, 'socket error'));
    this.socket = sock;
    if (this.cfg.warmUp) warmUpOnce(this.cfg.cc ?? this.cfg.scenario.defaults.nic.cc);
    if (this.cfg.metrics !== null) {
      this.metrics = this.createMetrics();
      this.metricsAddress = await this.metrics.listen(this.cfg.metrics.host, this.cfg.metrics.port);
    }
    this.log.info(
      {
        address: `${this.cfg.bind.host}:${this.cfg.bind.port}`,
        metrics: this.metricsAddress,
        timeScale: this.cfg.timeScale,
      },
      'node ready',
    );
    this.send?.({
      t: 'ready',
      node: this.cfg.name,
      pid: process.pid,
      address: `${this.cfg.bind.host}:${this.cfg.bind.port}`,
      metrics: this.metricsAddress,
    });
  }

  /** Corrected emulated ns, unrounded. */
  private readonly preciseNow = (): number => {
    const c = this.clock!;
    return (
      ((c.realNowNs() - this.epochNs) / this.cfg.timeScale) * (1 + this.cfg.driftPpm * 1e-6) +
      this.skewNs +
      c.offsetNs
    );
  };

  /** Emulated t=0 is host-monotonic `t0MonoNs`: build the clock, firmware, and start. */
  start(t0MonoNs: number): void {
    if (this.clock !== null) return;
    const cfg = this.cfg;
    this.epochNs = t0MonoNs;
    const clock = new RealClock({
      timeScale: cfg.timeScale,
      epochRealNs: t0MonoNs,
      source: hostMonotonicNs,
      skew: { offsetNs: this.skewNs, driftPpm: cfg.driftPpm },
    });
    this.clock = clock;
    this.timers = new EventTimers(clock, {
      spinMs: cfg.timerSpinMs,
      windowNs:
        cfg.sync === 'wallclock' && cfg.timeWindow === 'link' ? shortestLinkDelayNs(this.setup.topo) : 0,
      onError: (err) => this.fatal(err),
    });
    if (cfg.sync === 'lockstep') {
      this.lockstep = new LockstepScheduler<Packet>({
        clock,
        inputDelaysNs: this.me.ports.map((p) => p.delayNs),
        inputOrder: inputOrderOf(this.setup.topo.nodes, this.me.name),
        deliver: (port, pkt) => this.env!.deliverLockstep(port, pkt),
        afterTurn: () => this.afterTurn(),
        onError: (err) => this.fatal(err),
      });
    }
    const rng = createRng(cfg.seed ?? cfg.scenario.seed).fork(this.me.name);
    const log = this.firmwareLogger();
    // A probe's NIC hooks see every frame; like virtual time, recycle only what nothing traces.
    const hostRecycles = this.me.kind === 'host' && cfg.scenario.probes === undefined;
    const env = new RealNodeEnv({
      node: this.me,
      topo: this.setup.topo,
      addresses: cfg.addresses,
      socket: this.socket!,
      timers: this.timers,
      overlay: cfg.overlay,
      rng,
      log,
      preciseNow: this.preciseNow,
      verifyIcrc: cfg.verifyIcrc ?? this.me.kind === 'host',
      intMulti: this.setup.intMulti,
      intRatesBps: this.setup.intRatesBps,
      forwardInPlace: cfg.forwardInPlace && this.me.kind === 'switch',
      recyclePackets: this.me.kind === 'switch' || hostRecycles,
      recycleReceived: hostRecycles,
      arrivalStamps: cfg.arrivalStamps,
      ...(this.lockstep !== null ? { lockstep: this.lockstep } : {}),
      trains: cfg.train !== 'off',
      inProcessLinks: cfg.inProcessLinks === 'memory',
      bundler: this.bundler(),
      maxDatagramBytes: Math.min(65_507, cfg.mtu - 28),
      onLinkError: (m) => this.fatal(new Error(m)),
      dropEvery: cfg.dropEvery,
      lateBinNs: Math.ceil(cfg.scenario.durationNs / LATE_BINS),
    });
    this.env = env;
    this.createFirmware(env);
    if (this.metrics !== null) this.attachMetricsTaps(this.metrics);
    if (cfg.pcapDir !== null) {
      const pcap = createPcapTap(cfg.pcapDir);
      this.pcap = pcap;
      const me = this.me;
      env.taps.push({
        onTx: (port, pkt, t) => pcap.tap.onTx!(me, port, pkt, t),
        onRx: (port, pkt, t) => pcap.tap.onRx!(me, port, pkt, t),
      });
    }
    this.startClockSync(env);
    this.portLoad = env.links.map((l) => ({
      configuredBps: l.rateBps,
      lastTxBytes: 0,
      loadedWindows: 0,
      loadedBytes: 0,
      loadedNs: 0,
      expectedBitNs: 0,
      lastAchievedBps: Number.NaN,
      wasLoaded: false,
    }));
    // Flow starts first, so the t=0 sample sees flows that start at 0 (as in virtual time).
    this.driver?.armStarts();
    this.sched().setTimer(0, this.sample);
    // Event-loop lag counts from the start barrier on: start-up work is not lag.
    this.loop.reset();
    this.loop.enable();
    // The nodes of one process share its collections: its first node counts them for all.
    if (processPausesOwner === null) {
      processPausesOwner = this;
      this.observeGc();
      if (cfg.allocSampleMs > 0) this.allocSampler = new AllocationSampler(cfg.allocSampleMs);
      if (cfg.heapSamplingFile !== null) this.heapSampling = new HeapSampling(cfg.heapSamplingFile);
    }
    const ls = this.lockstep;
    if (ls !== null) {
      ls.unbounded = this.driver?.hasUnfinishedSends() ?? false;
      // Standalone nodes cannot hear of an earlier end: they run to the duration.
      if (this.send === null) this.endAt(cfg.scenario.durationNs);
      else ls.capAt(cfg.scenario.durationNs);
      this.progressTimer = setInterval(() => this.progressTick(), PROGRESS_MS);
      if (cfg.incarnation === 0) ls.start();
      else void this.resume(ls);
    } else if (this.send === null) {
      // Standalone: end at the scenario's duration.
      this.timers.setTimer(cfg.scenario.durationNs, () => void this.finish(cfg.scenario.durationNs));
    } else {
      // The launcher's finish for a run that lasts its whole duration comes a while after the
      // duration in real time; no event after it may run meanwhile, or the report counts what was
      // delivered and sent after the end (a 600 µs incast-8to1 reported 101.6 Gbit/s of goodput on
      // 100 Gbit/s links; virtual time 60.1).
      this.timers.setTimer(cfg.scenario.durationNs, () => this.timers?.close());
    }
    this.log.info(
      { t0MonoNs, syncRef: this.syncRef, skewNs: this.skewNs, timeWindowNs: this.timers.windowNs },
      'started',
    );
  }

  private observeGc(): void {
    this.gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const atMonoNs = Math.round(hostMonotonicNsAt(e.startTime));
        const ns = e.duration * 1e6;
        // A collection over before t0 (the lead, in which the node built its run) paused no event.
        if (atMonoNs + ns < this.epochNs) continue;
        if (ns > this.gcMaxNs) this.gcMaxNs = ns;
        if (ns <= 1e6) continue;
        this.gcOver1Ms++;
        if (this.gcLong.length >= LONG_GC_KEPT) continue;
        this.gcLong.push({
          atMonoNs,
          atNs: Math.max(0, Math.round((atMonoNs - this.epochNs) / this.cfg.timeScale)),
          durationNs: Math.round(ns),
          kind: gcKindName((e as { detail?: { kind?: number } }).detail?.kind),
        });
      }
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
  }

  /** Where firmware timers live: the lockstep scheduler, or the wall-clock event timers. */
  private sched(): TimerService {
    return this.lockstep ?? this.timers!;
  }

  /** Lockstep: the run ends at `endNs`; the node reports once it has handled every event up to it. */
  private endAt(endNs: number): void {
    this.endingAtNs = endNs;
    this.lockstep!.endAt(endNs);
    // A node that cannot reach the end says where it waits (the launcher gives up after 60 s).
    const ls = this.lockstep!;
    const t = setTimeout(() => {
      if (!this.finished) this.log.warn({ endNs, ...ls.state() }, 'lockstep: still not at the end');
    }, 5000);
    t.unref();
  }

  /** Lockstep, after every turn of the scheduler. */
  private afterTurn(): void {
    const ls = this.lockstep!;
    if (this.driver !== null) ls.unbounded = this.driver.hasUnfinishedSends();
    this.env!.flushPromises();
    // The process's last queued turn: its bundles leave now, not a loop iteration later.
    if (queuedLockstepTurns() === 0) this.env!.bundledBy?.flush();
    if (!ls.reachedCap()) return;
    if (this.endingAtNs !== null) {
      void this.finish(this.endingAtNs);
    } else if (!this.atCapSent) {
      // Every event up to the duration ran without the flows completing: the launcher ends the run.
      this.atCapSent = true;
      this.send?.({ t: 'atCap', node: this.me.name });
    }
  }

  /** Lockstep: the emulated time every event before which has run (for progress and dilation). */
  private doneNs(): number {
    const ls = this.lockstep!;
    const f = ls.frontierNs();
    const cap = this.cfg.scenario.durationNs;
    return Math.max(0, Math.min(f, cap));
  }

  /**
   * A restarted node (INCARNATION > 0) resumes where its previous incarnation stopped: after
   * every neighbour's keepalive has said what it heard from it (at most a few seconds), at the
   * latest instant from which its frames still arrive after everything heard.
   */
  private async resume(ls: LockstepScheduler<Packet>): Promise<void> {
    const env = this.env!;
    const t0 = Date.now();
    const heardAll = () => env.links.every((l) => env.down[l.port] || env.heardByPeerNs[l.port] > -Infinity);
    while (!heardAll() && Date.now() - t0 < 3 * KEEPALIVE_MS && !this.finished)
      await new Promise((r) => setTimeout(r, 20));
    let fromNs = 0;
    for (const l of env.links) {
      const h = env.heardByPeerNs[l.port];
      if (Number.isFinite(h)) fromNs = Math.max(fromNs, h - Math.max(0, l.delayNs));
    }
    this.log.info({ fromNs }, 'lockstep: restarted node resumes');
    ls.start(fromNs);
  }

  private progressTick(): void {
    if (this.finished || this.lockstep === null) return;
    const env = this.env!;
    for (const d of env.checkPeers(PROGRESS_MS, this.cfg.peerTimeoutMs)) {
      const w = `link to ${d.peer} (port ${d.port}) went down at ${d.atNs} ns: silent for ${this.cfg.peerTimeoutMs / 1000} s real`;
      this.warnings.push(w);
      this.log.warn({ port: d.port, peer: d.peer, atNs: d.atNs }, 'lockstep: link down');
    }
    if (++this.ticks % Math.round(KEEPALIVE_MS / PROGRESS_MS) === 0) env.keepalive();
    const realNs = hostMonotonicNs();
    const emNs = this.doneNs();
    const last = this.lastTick;
    if (last !== null && emNs > last.emNs) {
      this.lastDilation = (realNs - last.realNs) / (emNs - last.emNs);
      this.dilations.push(this.lastDilation);
    }
    if (last === null || emNs > last.emNs) this.lastTick = { realNs, emNs };
    this.send?.({ t: 'progress', node: this.me.name, doneNs: emNs });
  }

  private firmwareLogger(): Logger {
    const l = this.log;
    return {
      debug: (o, m) => l.debug(o, m),
      info: (o, m) => l.info(o, m),
      warn: (o, m) => l.warn(o, m),
      error: (o, m) => l.error(o, m),
    };
  }

  private createFirmware(env: RealNodeEnv): void {
    const me = this.me;
    const topo = this.setup.topo;
    // Each node bins what its own firmware sees, on its own emulated clock; the launcher sums
    // the nodes' parts (docs/results.md "probes").
    const probes = this.cfg.scenario.probes;
    this.probe = probes === undefined ? null : new Probe(probes, this.plan);
    if (me.kind === 'host') {
      const p = me.ports[0];
      const cfg = this.setup.nicConfig(me, {
        name: me.name,
        ip: me.ip,
        port: { rateBps: p.rateBps, mac: p.mac, peerMac: peerMacOf(topo, me, 0) },
      });
      const driver = new HostApp(me, this.plan, env, {
        flowDone: (flowId, endNs, fctNs) => {
          this.send?.({ t: 'flowDone', node: me.name, flowId, endNs });
          const f = this.plan.flows[flowId];
          const ideal = idealFctNs({
            sizeBytes: Math.max(
              1,
              f.messageBytes === null ? this.driver!.txFlows.get(flowId)!.postedBytes : f.spec.sizeBytes,
            ),
            mtuBytes: f.mtuBytes,
            verb: f.verb,
            hpccBaseRttNs: f.qp.path.hpccBaseRttNs,
            bottleneckRateBps: f.qp.path.bottleneckRateBps,
          });
          this.metrics?.observeFlow(fctNs, slowdown(fctNs, ideal));
        },
      });
      this.driver = driver;
      const nic = createNic(env, {
        ...cfg,
        observer: driver.observer,
        trace: this.probe?.nic(me.name) ?? null,
      });
      this.nic = nic;
      this.probe?.attach(me.name, nic);
      env.attach(nic);
      driver.attach(nic);
    } else {
      const cfg = this.setup.switchConfig(me, {
        name: me.name,
        id: me.index,
        ports: me.ports.map((p) => ({
          rateBps: p.rateBps,
          mac: p.mac,
          peerMac: peerMacOf(topo, me, p.index),
        })),
        routes: this.plan.routes.tables.get(me.name)!,
      });
      const sw = createSwitch(env, { ...cfg, trace: this.probe?.switch(me.name) ?? null });
      this.sw = sw;
      env.attach(sw);
      for (const p of me.ports) {
        this.queueSeries.set(p.index, []);
        this.queueMax.set(p.index, 0);
      }
    }
  }

  private startClockSync(env: RealNodeEnv): void {
    const tree = syncTree(this.setup.topo, this.syncRef);
    const me = this.me;
    // Serve children: answer requests with the corrected clock.
    env.onSync = (port, pkt, t2) => {
      if (isSyncResponse(pkt)) {
        this.sync?.onResponse(pkt, t2);
        return;
      }
      const resp = syncResponse(pkt, t2, this.preciseNow(), me.ip);
      if (resp !== null) env.sendControl(port, resp);
    };
    const up = tree.get(me.name);
    if (up === null || up === undefined) {
      // The reference: its clock is the truth.
      this.syncedOnce = true;
      this.send?.({ t: 'synced', node: me.name, residualNs: 0, correctionNs: 0 });
      return;
    }
    const parentIp = this.setup.topo.byName.get(up.parent)!.ip;
    const port = up.port;
    const clock = this.clock!;
    this.sync = new ClockSyncClient(
      {
        exchanges: this.cfg.syncExchanges,
        spacingMs: 3,
        intervalMs: this.cfg.syncIntervalMs,
        now: this.preciseNow,
        getCorrectionNs: () => clock.offsetNs,
        setCorrectionNs: (ns) => clock.setOffsetNs(ns),
        sendToParent: (pkt) => env.sendControl(port, pkt),
        onRound: (residualNs, best, round) => {
          this.log.debug(
            { residualNs, delayNs: best.delayNs, round, correctionNs: clock.offsetNs },
            'clock sync round',
          );
          if (!this.syncedOnce) {
            this.syncedOnce = true;
            this.send?.({ t: 'synced', node: me.name, residualNs, correctionNs: clock.offsetNs });
          }
        },
      },
      me.ip,
      parentIp,
    );
    this.sync.start();
  }

  private createMetrics(): NodeMetrics {
    const me = this.me;
    return createNodeMetrics({
      node: me.name,
      kind: me.kind,
      timeScale: this.cfg.timeScale,
      nic: () => this.nic,
      sw: () => this.sw,
      qpns: () => this.driver?.qpns() ?? [],
      ports: me.ports.map((p) => ({ port: p.index, rateBps: p.rateBps })),
      clockResidualNs: () => {
        if (this.clock === null) return Number.NaN;
        return this.sync === null ? 0 : this.sync.lastResidualNs;
      },
      clockCorrectionNs: () => this.clock?.offsetNs ?? 0,
      eventLoop: () => this.eventLoopStats(),
      timerLateNs: () => {
        const l = this.timers?.lag();
        return { meanNs: l?.meanLateNs ?? 0, maxNs: l?.maxLateNs ?? 0 };
      },
      achievedBps: (port) => this.portLoad[port]?.lastAchievedBps ?? Number.NaN,
      garbage: () => ({ ...(this.env?.counters.garbage ?? {}) }),
      datagrams: () => ({ tx: this.env?.counters.txDatagrams ?? 0, rx: this.env?.counters.rxDatagrams ?? 0 }),
      ...(this.cfg.sync === 'lockstep'
        ? {
            sync: () => ({
              dilation: this.lastDilation,
              doneNs: this.lockstep !== null ? this.doneNs() : 0,
              promisesTx: this.env?.counters.promisesTx ?? 0,
              promisesRx: this.env?.counters.promisesRx ?? 0,
            }),
          }
        : {}),
    });
  }

  private attachMetricsTaps(m: NodeMetrics): void {
    const t = m.tallies;
    this.env!.taps.push({
      onTx: (port, pkt) => t.onTx(port, pkt),
      onRx: (port, pkt, now) => t.onRx(port, pkt, now),
    });
  }

  private eventLoopStats() {
    const h = this.loop;
    const ok = h.count > 0;
    return {
      p50Ns: ok ? h.percentile(50) : 0,
      p99Ns: ok ? h.percentile(99) : 0,
      maxNs: ok ? h.max : 0,
      meanNs: ok ? h.mean : 0,
    };
  }

  private readonly sample = (): void => {
    if (this.finished) return;
    const t = this.env!.now();
    const sw = this.sw;
    if (sw !== null) {
      for (const [port, pts] of this.queueSeries) {
        const b = sw.queueBytes(port);
        pts.push(t, b);
        if (b > this.queueMax.get(port)!) this.queueMax.set(port, b);
      }
    }
    const nic = this.nic;
    const driver = this.driver;
    let hostExpectedBps = 0;
    if (nic !== null && driver !== null) hostExpectedBps = driver.sampleRates(t);
    this.accountLoad(t, hostExpectedBps);
    const interval = Math.max(1, this.cfg.scenario.sampleIntervalNs);
    const next = (Math.floor(t / interval) + 1) * interval;
    if (next <= this.cfg.scenario.durationNs) this.sched().setTimer(next, this.sample);
  };

  /**
   * Achieved vs expected rate per port over the window since the last sample. A switch port had
   * work when its queue was non-empty at both ends of the window; a host port when it had active
   * flows (expected: the smaller of the line rate and the sum of their pacing rates).
   */
  private accountLoad(t: number, hostExpectedBps: number): void {
    const env = this.env!;
    const dt = t - this.lastSampleNs;
    this.lastSampleNs = t;
    this.portLoad.forEach((pl, port) => {
      const tx = env.counters.portTxBytes[port];
      const bytes = tx - pl.lastTxBytes;
      pl.lastTxBytes = tx;
      let expected = 0;
      let loaded: boolean;
      if (this.sw !== null) {
        const busy = this.sw.queueBytes(port) > 0;
        loaded = busy && pl.wasLoaded;
        pl.wasLoaded = busy;
        // The port's rate now: a link event (scenario `links` with `at`) may have slowed it.
        expected = this.sw.portRateBps(port);
      } else {
        // A host port had work when its flows were active and it sent in this window and the
        // previous one (the tail of a flow, waiting for its last ACKs, is not load).
        expected = Math.min(pl.configuredBps, hostExpectedBps);
        const sending = expected > 0 && bytes > 0;
        loaded = pl.wasLoaded && sending;
        pl.wasLoaded = sending;
      }
      if (!loaded || dt <= 0) return;
      pl.loadedWindows++;
      pl.loadedBytes += bytes;
      pl.loadedNs += dt;
      pl.expectedBitNs += expected * dt;
      pl.lastAchievedBps = (bytes * 8e9) / dt;
    });
  }

  onLauncherMessage(m: LauncherMessage): void {
    switch (m.t) {
      case 'start':
        this.start(m.t0MonoNs);
        break;
      case 'finish':
        if (this.lockstep !== null && this.env !== null) this.endAt(m.endNs);
        else void this.finish(m.endNs);
        break;
      case 'endBound':
        this.lockstep?.raiseEndBound(m.endBoundNs);
        break;
    }
  }

  private loadReport(): NodeLoadReport {
    const e = this.eventLoopStats();
    const lag = this.timers?.lag();
    return {
      eventLoopP50Ns: e.p50Ns,
      eventLoopP99Ns: e.p99Ns,
      eventLoopMaxNs: e.maxNs,
      timerMeanLateNs: lag?.meanLateNs ?? 0,
      timerMaxLateNs: lag?.maxLateNs ?? 0,
      gcMaxNs: this.gcMaxNs,
      gcOver1Ms: this.gcOver1Ms,
      gcLong: this.gcLong,
      realtimePriority: {
        wanted: this.cfg.realtimePriority,
        applied: mainThreadIsRealtime(),
        ...(this.realtimePriorityRefused === null ? {} : { refused: this.realtimePriorityRefused }),
      },
      ...(this.allocSampler === null ? {} : { allocSamples: this.allocSampler.samples() }),
      ports: this.portLoad.map((pl, port) => {
        const achieved = pl.loadedNs > 0 ? (pl.loadedBytes * 8e9) / pl.loadedNs : 0;
        const expected = pl.loadedNs > 0 ? pl.expectedBitNs / pl.loadedNs : 0;
        return {
          port,
          configuredBps: pl.configuredBps,
          achievedBps: Math.round(achieved),
          ratio: expected > 0 ? achieved / expected : null,
          loadedWindows: pl.loadedWindows,
        };
      }),
    };
  }

  report(endNs: number): NodeReport {
    const me = this.me;
    const io = this.env?.counters;
    const { ports, host, firmware } = firmwareReport(me, { nic: this.nic, sw: this.sw }, endNs, (port) =>
      me.kind === 'host' && port === 0 ? (io?.heldDrops ?? 0) + (io?.sendErrors ?? 0) : 0,
    );
    const queue: Record<string, FlatSeries> = {};
    for (const [port, pts] of this.queueSeries)
      if ((this.queueMax.get(port) ?? 0) > 0) queue[`${me.name}:${port}`] = pts.slice();
    const rate = this.driver?.rateSeries() ?? {};
    return {
      node: me.name,
      kind: me.kind,
      incarnation: this.cfg.incarnation,
      endNs,
      ports,
      host,
      flows: this.driver?.flowReports() ?? [],
      rx: this.driver?.rxReports() ?? [],
      duplicateDeliveries: this.driver?.duplicateDeliveries ?? 0,
      duplicateCompletions: this.driver?.duplicateCompletions ?? 0,
      unknownCompletions: this.driver?.unknownCompletions ?? 0,
      series: { queue, rate },
      ...(this.probe === null ? {} : { probe: this.probe.report(endNs, me.name) }),
      clock: {
        timeScale: this.cfg.timeScale,
        skewNs: this.skewNs,
        correctionNs: this.clock?.offsetNs ?? 0,
        residualNs:
          this.sync !== null && Number.isFinite(this.sync.lastResidualNs) ? this.sync.lastResidualNs : null,
        delayNs: this.sync !== null && Number.isFinite(this.sync.lastDelayNs) ? this.sync.lastDelayNs : null,
        rounds: this.sync?.rounds ?? 0,
        syncRef: this.syncRef,
      },
      load: this.loadReport(),
      io: {
        txDatagrams: io?.txDatagrams ?? 0,
        rxDatagrams: io?.rxDatagrams ?? 0,
        garbage: { ...(io?.garbage ?? {}) },
        garbageTotal: io?.garbageTotal ?? 0,
        encodeErrors: io?.encodeErrors ?? 0,
        inPlaceFrames: io?.inPlaceFrames ?? 0,
        sendErrors: io?.sendErrors ?? 0,
        heldDrops: io?.heldDrops ?? 0,
        arrivalStamps: this.cfg.arrivalStamps,
        stampedFrames: io?.stampedFrames ?? 0,
        lateFrames: io?.lateFrames ?? 0,
        maxLateNs: io?.maxLateNs ?? 0,
        ...(io !== undefined ? { lateByBin: [...io.lateByBin], lateBinNs: io.lateBinNs } : {}),
        promisesTx: io?.promisesTx ?? 0,
        promisesRx: io?.promisesRx ?? 0,
        dataTx: io?.dataTx ?? 0,
        downDrops: io?.downDrops ?? 0,
        trainDatagrams: io?.trainDatagrams ?? 0,
        bundledTx: io?.bundledTx ?? 0,
        ...(this.env?.reportsBundler === true ? { bundles: this.env.bundledBy!.report() } : {}),
        linkSeqErrors: io?.linkSeqErrors ?? 0,
        outOfOrderDatagrams: io?.outOfOrderDatagrams ?? 0,
        resentDatagrams: io?.resentDatagrams ?? 0,
      },
      linksDown: [...(this.env?.linksDown ?? [])],
      sync: {
        mode: this.cfg.sync,
        events: this.lockstep?.stats.events ?? 0,
        turns: this.lockstep?.stats.turns ?? 0,
        blockedOnPeers: this.lockstep?.stats.blockedOnPeers ?? 0,
        blockedOnWall: this.lockstep?.stats.blockedOnWall ?? 0,
        blockedOnBound: this.lockstep?.stats.blockedOnBound ?? 0,
        dilations: [...this.dilations],
      },
      firmware,
      warnings: [...this.warnings],
    };
  }

  /** Stop the firmware, hand the report over, release everything. */
  async finish(endNs: number): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    if (this.progressTimer !== null) clearInterval(this.progressTimer);
    this.env?.promiseForever(endNs);
    const report = this.report(endNs);
    this.lockstep?.close();
    this.timers?.close();
    this.sync?.close();
    if (this.pcap !== null) this.pcap.close();
    if (this.cfg.reportFile !== null) writeFileSync(this.cfg.reportFile, JSON.stringify(report));
    // Written before the report goes: a launcher or bench may kill the node once it has that.
    this.heapSampling?.close();
    this.send?.({ t: 'report', node: this.me.name, report });
    if (this.lockstep !== null && this.env !== null) {
      // A neighbour may still be on its way to the end and need our last promise, which the real
      // network may have lost: repeat it a few times, answering resend requests meanwhile.
      for (let i = 0; i < LINGER_KEEPALIVES; i++) {
        await new Promise((r) => setTimeout(r, LINGER_MS));
        this.env.keepalive();
      }
    }
    await this.env?.drain();
    this.env?.close();
    await this.close();
    this.log.info({ endNs }, 'finished');
    this.exitResolve?.();
  }

  /**
   * The process's bundler (process-bundles.ts) when bundles are on: lockstep, links in memory, and
   * the launcher said which nodes each process runs.
   */
  private bundler(): ProcessBundler | null {
    const cfg = this.cfg;
    const groups = cfg.processGroups;
    if (groups === null || groups.length < 2 || cfg.sync !== 'lockstep' || cfg.inProcessLinks !== 'memory')
      return null;
    const self = groups.findIndex((g) => g.includes(this.me.name));
    if (self < 0) throw new ConfigError('PROCESS_GROUPS', `names no process for node "${this.me.name}"`);
    const processOf = new Map<string, number>();
    // Another process sends its bundles from one of its nodes' sockets: only those are taken.
    const peers: Endpoint[] = [];
    groups.forEach((g, i) => {
      for (const n of g) {
        if (!this.setup.topo.byName.has(n))
          throw new ConfigError('PROCESS_GROUPS', `no node "${n}" in the topology`);
        processOf.set(n, i);
        if (i !== self) peers.push(addressOf(cfg.addresses, n));
      }
    });
    return configureBundler({ processOf, self, peers, maxDatagramBytes: Math.min(65_507, cfg.mtu - 28) });
  }

  async close(): Promise<void> {
    this.loop.disable();
    this.gcObserver?.disconnect();
    this.allocSampler?.close();
    this.heapSampling?.close();
    // A later node of the process (after a warm-up run's) counts the pauses from then on.
    if (processPausesOwner === this) processPausesOwner = null;
    this.sync?.close();
    this.timers?.close();
    // Before the socket: the env's deferred sends (a wallclock train's flush, frames held for a
    // link's delay) must not reach a closed socket (ERR_SOCKET_DGRAM_NOT_RUNNING ends the process).
    const bundler = this.env?.bundledBy ?? null;
    this.env?.close();
    if (bundler !== null && this.socket !== null) {
      // The process's last node closes every socket of it (siblings still receive on ours).
      this.socket = null;
      await bundler.release();
    } else {
      try {
        this.socket?.close();
      } catch {
        // already closed
      }
      this.socket = null;
    }
    await this.metrics?.close();
  }

  fatal(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.log.error({ err: message, stack: err instanceof Error ? err.stack : undefined }, 'fatal');
    this.send?.({ t: 'fatal', node: this.me.name, message });
    if (!this.fatalExits) {
      this.finished = true;
      this.lockstep?.close();
      void this.close().finally(() => this.exitResolve?.());
      return;
    }
    void this.close().finally(() => process.exit(1));
  }

  /** Resolves when the node has finished (report sent). */
  done(): Promise<void> {
    return new Promise((resolve) => {
      if (this.finished) resolve();
      else this.exitResolve = resolve;
    });
  }
}

/**
 * The setup and plan of a node's scenario, shared by the nodes of one process (they read them
 * only, as the nodes of a virtual run share theirs): a process running a hundred nodes of the
 * 320-host fat tree plans its 11 k flows once.
 */
function sharedSetup(cfg: NodeConfig): { setup: RunSetup; plan: RunPlan } {
  const key = `${cfg.cc ?? ''}|${cfg.seed ?? ''}`;
  let byKey = setups.get(cfg.scenario);
  if (byKey === undefined) setups.set(cfg.scenario, (byKey = new Map()));
  let entry = byKey.get(key);
  if (entry === undefined) {
    const setup = setupRun(cfg.scenario, { cc: cfg.cc, seed: cfg.seed });
    entry = { setup, plan: planFromSetup(setup) };
    byKey.set(key, entry);
  }
  return entry;
}
const setups = new WeakMap<Scenario, Map<string, { setup: RunSetup; plan: RunPlan }>>();

/** JIT warm-up once per process and algorithm: the nodes of one process share the compiled code. */
function warmUpOnce(cc: string): void {
  if (warmedUp.has(cc)) return;
  warmedUp.add(cc);
  warmUp(cc);
}
const warmedUp = new Set<string>();
/** The node of this process that observes its garbage collections. */
let processPausesOwner: RealNode | null = null;

/**
 * The socket's address lookup: peers are IPv4 literals once resolved at start, and dgram would
 * still send each of them through dns.lookup, which answers a literal on the next tick: one
 * deferred callback per datagram on the hot path. A literal is answered at once; a name (none is
 * expected) still goes to dns.lookup.
 */
function literalFirstLookup(
  hostname: string,
  options: LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  if (knownLiterals.has(hostname)) callback(null, hostname, 4);
  else if (isIPv4(hostname)) {
    // isIPv4 is a regular expression: remember the few peers instead of matching every datagram.
    knownLiterals.add(hostname);
    callback(null, hostname, 4);
  } else dnsLookup(hostname, { ...options, all: false }, callback as never);
}
const knownLiterals = new Set<string>();
