/**
 * The launcher side of a real run, shared by every launcher (local, netns, …): spawn one node
 * process per topology node through a launcher-specific `spawn`, wait until all are ready, start
 * them at a common emulated t=0, end the run when every flow completed
 * or the emulated duration passed (with a real-time watchdog), gather the reports and merge them
 * into results.json. Children are killed on every way out (done, failure, SIGINT/SIGTERM, exit).
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Results } from '../../stats/results.js';
import { planFromSetup, type RunPlan } from '../app/plan.js';
import type { RunSetup } from '../scenario-setup.js';
import type { AddressMap } from './addresses.js';
import { LateRun, RunFailed } from './errors.js';
import { mergeReports } from './merge.js';
import { hostMonotonicNs, type LauncherMessage, type NodeMessage, type NodeReport } from './protocol.js';
import { scenarioToJson } from './scenario-json.js';

export interface SpawnRequest {
  /** The node the process runs, or its nodes joined by commas (`processes`). */
  node: string;
  incarnation: number;
  /** Environment of the node (the `rocelab node` contract), complete. */
  env: Record<string, string>;
  /** File the node's stdout/stderr go to. */
  logFd: number;
}

export interface CoordinatorOptions {
  runtime: string;
  setup: RunSetup;
  seed: number;
  /** The run's `--cc` (every host runs it), passed to each node as CC: undefined, the scenario's. */
  cc?: string;
  timeScale: number;
  addresses: AddressMap;
  /** Start a node process with an IPC channel (stdio[3] = 'ipc'). */
  spawn(req: SpawnRequest): ChildProcess;
  /**
   * Which nodes share a process (each inner list one process; default: a process per node). A
   * node with its own `nodeEnv`, and a node the run may kill or restart, must be alone in its.
   */
  processes?: string[][];
  /** Extra environment for every node, and per node (e.g. CLOCK_SKEW_NS for one). */
  env?: Record<string, string>;
  nodeEnv?: Record<string, Record<string, string>>;
  /** Directory for node logs (default: a temp dir removed at the end). */
  logDir?: string;
  /**
   * Directory where each node process writes a sampling heap profile of its run
   * (HEAP_SAMPLING_FILE), named like its log: `<first node>[+N][.incarnation].heapprofile`.
   * The launchers take it from ROCELAB_HEAP_SAMPLING_DIR. Default none.
   */
  heapSamplingDir?: string;
  /** Real ms between "all ready" and emulated t=0, for clock sync to settle. Default 800. */
  leadMs?: number;
  /** Real ms a node may take to become ready. Default 30 000. */
  readyTimeoutMs?: number;
  /**
   * Hard real-time limit of the whole run, ms (default: 3 × duration × timeScale + 60 s; under
   * lockstep, where emulated time may slow down, 30 min).
   */
  watchdogMs?: number;
  /** Lockstep: fail when the run's progress stalls this long, real ms (default 60 000). */
  stallMs?: number;
  /**
   * Progress callback (emulated ns now, total, flows done, flows total, and under lockstep the
   * dilation achieved over the last window), a few times a second.
   */
  onProgress?(nowNs: number, totalNs: number, done: number, total: number, dilation?: number): void;
  onMessage?(m: NodeMessage): void;
}

export { RunFailed } from './errors.js';

interface Child {
  node: string;
  incarnation: number;
  proc: ChildProcess;
  ready: boolean;
  expectedExit: boolean;
  exited: boolean;
}

const live = new Set<Coordinator>();
let hooksInstalled = false;

/** Kill every child of every coordinator on the way out of this process. */
function installProcessHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const c of live) c.killAll();
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      const had = live.size > 0;
      for (const c of live) c.abort(`interrupted by ${sig}`);
      // Only take over the signal's default meaning while a run is in progress.
      if (had && process.listenerCount(sig) === 1) process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}

export class Coordinator {
  readonly plan: RunPlan;
  readonly nodes: string[];
  private readonly children = new Map<string, Child>();
  private readonly reports = new Map<string, NodeReport>();
  private readonly flowEnd = new Map<number, number>();
  private readonly warnings: string[] = [];
  private readonly tmp: string;
  private readonly logDir: string;
  private readonly ownLogDir: boolean;
  private t0MonoNs: number | null = null;
  private endNs: number | null = null;
  private finishing = false;
  private failure: Error | null = null;
  private settle: { resolve: (r: Results) => void; reject: (e: Error) => void } | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly restarts: string[] = [];
  /** Nodes killed on purpose (fault injection) and not restarted since. */
  private readonly killed = new Set<string>();
  private readonly logFds: number[] = [];
  readonly logFiles = new Map<string, string>();
  private readonly scenarioPath: string;
  /** How the nodes keep time (the scenario's `sync`, or SYNC in the nodes' environment). */
  readonly sync: 'lockstep' | 'wallclock';
  /** Lockstep: per node, the emulated time before which every event has run. */
  private readonly doneNs = new Map<string, number>();
  private readonly atCap = new Set<string>();
  /** Lockstep: the run's progress (min over nodes of doneNs) at the last window, and the dilations. */
  private lastGvt: { realNs: number; gvtNs: number } | null = null;
  private readonly dilations: number[] = [];
  private lastDilation: number | undefined;
  private lastAdvanceRealNs = 0;
  /** The nodes of each process (one per node unless `processes` groups them). */
  private readonly groups: string[][];

  constructor(private readonly opts: CoordinatorOptions) {
    this.plan = planFromSetup(opts.setup);
    this.nodes = this.plan.topo.nodes.map((n) => n.name);
    this.tmp = mkdtempSync(join(tmpdir(), 'rocelab-run-'));
    this.ownLogDir = opts.logDir === undefined;
    this.logDir = opts.logDir ?? join(this.tmp, 'logs');
    mkdirSync(this.logDir, { recursive: true });
    this.scenarioPath = join(this.tmp, 'scenario.json');
    const syncEnv = opts.env?.SYNC;
    this.sync = syncEnv === 'wallclock' || syncEnv === 'lockstep' ? syncEnv : opts.setup.scenario.sync;
    this.groups = opts.processes ?? this.nodes.map((n) => [n]);
    const grouped = this.groups.flat();
    if (
      grouped.length !== this.nodes.length ||
      new Set(grouped).size !== grouped.length ||
      grouped.some((n) => !this.nodes.includes(n))
    )
      throw new Error('processes must name every node of the topology exactly once');
    for (const g of this.groups)
      if (g.length > 1 && g.some((n) => opts.nodeEnv?.[n] !== undefined))
        throw new Error(`a node with its own environment must run alone in its process (${g.join(', ')})`);
    writeFileSync(this.scenarioPath, scenarioToJson(opts.setup.scenario));
  }

  /** Emulated ns now on the launcher's (unskewed) clock; null before the start. */
  emulatedNowNs(): number | null {
    if (this.t0MonoNs === null) return null;
    if (this.sync === 'lockstep') return this.gvtNs();
    return (hostMonotonicNs() - this.t0MonoNs) / this.opts.timeScale;
  }

  baseEnv(nodes: string[], incarnation: number): Record<string, string> {
    return {
      NODE: nodes.join(','),
      SCENARIO_JSON: this.scenarioPath,
      TIME_SCALE: String(this.opts.timeScale),
      SEED: String(this.opts.seed),
      // setup.ccByHost has --cc applied, the scenario JSON does not: a node reads it here.
      ...(this.opts.cc !== undefined ? { CC: this.opts.cc } : {}),
      ADDRESS_MAP: JSON.stringify(this.opts.addresses),
      INCARNATION: String(incarnation),
      // How many node processes share this machine's cores (REALTIME_PRIORITY=auto, node.ts).
      PROCESSES_ON_HOST: String(this.groups.length),
      // Processes that run several nodes bundle what they send each other (process-bundles.ts).
      ...(this.groups.length > 1 && this.groups.some((g) => g.length > 1)
        ? { PROCESS_GROUPS: this.groups.map((g) => g.join(',')).join(';') }
        : {}),
      ...(this.opts.env ?? {}),
      ...(nodes.length === 1 ? (this.opts.nodeEnv?.[nodes[0]] ?? {}) : {}),
    };
  }

  /** Start the process of `nodes` (one node, or a group sharing the process). */
  private spawnProcess(nodes: string[], incarnation: number): void {
    const label = nodes.length === 1 ? nodes[0] : `${nodes[0]}+${nodes.length - 1}`;
    const fileName = (ext: string) =>
      incarnation === 0 ? `${label}.${ext}` : `${label}.${incarnation}.${ext}`;
    const logPath = join(this.logDir, fileName('log'));
    const samplingDir = this.opts.heapSamplingDir;
    const fd = openSync(logPath, 'a');
    this.logFds.push(fd);
    for (const node of nodes) this.logFiles.set(node, logPath);
    const proc = this.opts.spawn({
      node: nodes.join(','),
      incarnation,
      env: {
        ...this.baseEnv(nodes, incarnation),
        ...(samplingDir === undefined
          ? {}
          : { HEAP_SAMPLING_FILE: join(samplingDir, fileName('heapprofile')) }),
      },
      logFd: fd,
    });
    const mine = new Map<string, Child>();
    for (const node of nodes) {
      const child: Child = { node, incarnation, proc, ready: false, expectedExit: false, exited: false };
      this.children.set(node, child);
      mine.set(node, child);
    }
    const all = [...mine.values()];
    proc.on('message', (m: NodeMessage) => {
      const child = mine.get(m.node);
      if (child !== undefined) this.onMessage(child, m);
    });
    proc.on('error', (err) => {
      // A child killed on purpose may still see an IPC write fail on its way out.
      if (all.every((c) => c.expectedExit)) return;
      this.fail(new RunFailed(`${label}: could not start (${err.message})`));
    });
    proc.on('exit', (code, signal) => {
      for (const c of all) c.exited = true;
      if (all.every((c) => c.expectedExit) || this.finishing) {
        this.maybeSettle();
        return;
      }
      const who = nodes.length === 1 ? `node ${label}` : `the process of nodes ${nodes.join(', ')}`;
      this.fail(
        new RunFailed(
          `${who} exited unexpectedly (${signal ?? `status ${code}`}); last log lines:\n${this.tail(nodes[0])}`,
        ),
      );
    });
  }

  /** Send `m` once to every live process. */
  private broadcast(m: LauncherMessage): void {
    const seen = new Set<ChildProcess>();
    for (const c of this.children.values()) {
      if (seen.has(c.proc)) continue;
      seen.add(c.proc);
      this.send(c, m);
    }
  }

  /** Last lines of a node's log (for error messages). */
  tail(node: string, lines = 6): string {
    const f = this.logFiles.get(node);
    if (f === undefined) return '';
    try {
      return readFileSync(f, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  private send(child: Child, m: LauncherMessage): void {
    if (child.exited || child.expectedExit || !child.proc.connected) return;
    try {
      // The callback takes a failed write (the child died meanwhile: EPIPE) off the 'error' path.
      child.proc.send(m, undefined, undefined, () => {});
    } catch {
      // the child is going away; its exit handler decides what that means
    }
  }

  private onMessage(child: Child, m: NodeMessage): void {
    this.opts.onMessage?.(m);
    if (this.children.get(child.node) !== child) return;
    switch (m.t) {
      case 'ready':
        child.ready = true;
        if (this.t0MonoNs !== null) this.send(child, { t: 'start', t0MonoNs: this.t0MonoNs });
        else if ([...this.children.values()].every((c) => c.ready)) this.startAll();
        break;
      case 'flowDone':
        this.onFlowDone(m.flowId, m.endNs);
        break;
      case 'report':
        this.reports.set(m.node, m.report);
        this.maybeSettle();
        break;
      case 'fatal':
        this.fail(new RunFailed(`node ${m.node} failed: ${m.message}`));
        break;
      case 'synced':
        break;
      case 'progress':
        if ((this.doneNs.get(m.node) ?? -1) < m.doneNs) this.doneNs.set(m.node, m.doneNs);
        break;
      case 'atCap':
        this.atCap.add(m.node);
        if (this.nodes.every((n) => this.atCap.has(n) || this.killed.has(n)))
          this.finishAll(this.opts.setup.scenario.durationNs);
        break;
    }
  }

  private startAll(): void {
    const lead = this.opts.leadMs ?? 800;
    this.t0MonoNs = hostMonotonicNs() + lead * 1e6;
    this.broadcast({ t: 'start', t0MonoNs: this.t0MonoNs });
    const s = this.opts.setup.scenario;
    if (this.sync === 'wallclock') {
      // End at the emulated duration (real: duration × timeScale after t0).
      const durRealMs = (s.durationNs * this.opts.timeScale) / 1e6;
      this.timers.push(setTimeout(() => this.finishAll(s.durationNs), lead + durRealMs + 50));
    }
    if (this.plan.flows.length === 0) this.timers.push(setTimeout(() => this.finishAll(0), lead));
    this.lastAdvanceRealNs = hostMonotonicNs() + lead * 1e6;
    // Emulated 0 is t0: the first dilation window starts there, not at the first tick (which
    // came during the start lead and made the first window up to 800 ms of waiting too long).
    if (this.sync === 'lockstep') this.lastGvt = { realNs: this.t0MonoNs, gvtNs: 0 };
    const tick = this.opts.onProgress;
    const iv = setInterval(() => {
      if (this.sync === 'lockstep') this.lockstepTick();
      const now = this.emulatedNowNs();
      if (tick !== undefined && now !== null)
        tick(
          Math.max(0, Math.min(now, s.durationNs)),
          s.durationNs,
          this.flowEnd.size,
          this.plan.flows.length,
          this.lastDilation,
        );
    }, 250);
    this.timers.push(iv);
  }

  /** Lockstep: the run's progress, the least of what every node has done. */
  private gvtNs(): number {
    let gvt = Number.POSITIVE_INFINITY;
    for (const n of this.nodes) if (!this.killed.has(n)) gvt = Math.min(gvt, this.doneNs.get(n) ?? 0);
    return gvt === Number.POSITIVE_INFINITY ? 0 : gvt;
  }

  /** Lockstep, every progress window: dilation achieved, and the stall watchdog. */
  private lockstepTick(): void {
    const realNs = hostMonotonicNs();
    const gvt = this.gvtNs();
    const last = this.lastGvt;
    if (last === null || gvt > last.gvtNs) {
      if (last !== null) {
        this.lastDilation = (realNs - last.realNs) / (gvt - last.gvtNs);
        this.dilations.push(this.lastDilation);
      }
      this.lastGvt = { realNs, gvtNs: gvt };
      this.lastAdvanceRealNs = realNs;
      return;
    }
    const stallMs = this.opts.stallMs ?? 60_000;
    if (!this.finishing && (realNs - this.lastAdvanceRealNs) / 1e6 > stallMs) {
      const slow = this.nodes.filter((n) => (this.doneNs.get(n) ?? 0) <= gvt);
      this.fail(
        new RunFailed(
          `lockstep made no progress for ${stallMs / 1000} s at ${Math.round(gvt)} ns emulated (waiting on ${slow.join(', ')})`,
        ),
      );
    }
  }

  private onFlowDone(flowId: number, endNs: number): void {
    if (this.flowEnd.has(flowId)) return;
    this.flowEnd.set(flowId, endNs);
    if (this.flowEnd.size === this.plan.flows.length) {
      let end = 0;
      for (const e of this.flowEnd.values()) end = Math.max(end, e);
      this.finishAll(end);
    }
  }

  /** Tell every node to stop at emulated `endNs` and report. */
  finishAll(endNs: number): void {
    if (this.finishing) return;
    this.finishing = true;
    this.endNs = endNs;
    this.broadcast({ t: 'finish', endNs });
    // Nodes that cannot report (dead, wedged) must not hold the run forever. Under lockstep nodes
    // first run every event up to the end, which a slowed-down run may take a while to do.
    this.timers.push(setTimeout(() => this.settleNow(), this.sync === 'lockstep' ? 60_000 : 10_000));
    this.maybeSettle();
  }

  private maybeSettle(): void {
    if (!this.finishing || this.settle === null) return;
    for (const [name, c] of this.children) if (!this.reports.has(name) && !c.exited) return;
    this.settleNow();
  }

  private settleNow(): void {
    const settle = this.settle;
    if (settle === null) return;
    this.settle = null;
    const missing = this.nodes.filter((n) => !this.reports.has(n));
    // A node killed on purpose (fault injection) may have nothing to say; any other silence means
    // its counters are unknown, and results without them would be wrong.
    const silent = missing.filter((n) => !this.killed.has(n));
    if (silent.length > 0) {
      const late = this.sync === 'wallclock';
      const why = late
        ? 'the host could not keep up (raise timeScale, or use sync: lockstep)'
        : 'see their logs (--keep-logs)';
      const Err = late ? LateRun : RunFailed;
      this.failure = new Err(`no report from ${silent.join(', ')} after the end of the run: ${why}`);
      this.cleanup();
      settle.reject(this.failure);
      return;
    }
    if (missing.length > 0)
      this.warnings.push(`no report from ${missing.join(', ')}; their counters are zero`);
    for (const r of this.restarts) this.warnings.push(r);
    let results: Results;
    try {
      const s = this.opts.setup.scenario;
      const cc: Record<string, string> = {};
      for (const h of this.plan.topo.hosts) cc[h.name] = this.opts.setup.ccByHost.get(h.name)!.name;
      results = mergeReports({
        scenario: s.name,
        runtime: this.opts.runtime,
        seed: this.opts.seed,
        timeScale: this.opts.timeScale,
        endNs: Math.round(this.endNs ?? 0),
        plan: this.plan,
        ccByHost: cc,
        reports: this.reports,
        warnings: this.warnings,
        sync: this.sync,
        dilations: this.dilations,
        processes: this.groups.length,
      });
    } catch (err) {
      this.cleanup();
      settle.reject(err as Error);
      return;
    }
    this.cleanup();
    settle.resolve(results);
  }

  private fail(err: Error): void {
    if (this.failure !== null) return;
    this.failure = err;
    const settle = this.settle;
    this.settle = null;
    this.cleanup();
    settle?.reject(err);
  }

  /** Stop the run now (Ctrl-C): kill everything and reject. */
  abort(reason: string): void {
    this.fail(new RunFailed(reason));
  }

  /** Spawn every node and run to the end; resolves with the merged results. */
  run(): Promise<Results> {
    installProcessHooks();
    live.add(this);
    const p = new Promise<Results>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    const s = this.opts.setup.scenario;
    const watchdog =
      this.opts.watchdogMs ??
      (this.sync === 'lockstep' ? 30 * 60_000 : (3 * s.durationNs * this.opts.timeScale) / 1e6 + 60_000);
    this.timers.push(
      setTimeout(() => {
        if (this.finishing) return;
        this.warnings.push(`the real-time watchdog (${Math.round(watchdog / 1000)} s) ended the run`);
        const now = this.emulatedNowNs();
        this.finishAll(Math.round(Math.max(0, Math.min(now ?? 0, s.durationNs))));
      }, watchdog),
    );
    this.timers.push(
      setTimeout(() => {
        if (this.t0MonoNs !== null) return;
        const slow = [...this.children.values()].filter((c) => !c.ready).map((c) => c.node);
        this.fail(
          new RunFailed(
            `nodes not ready after ${(this.opts.readyTimeoutMs ?? 30_000) / 1000} s: ${slow.join(', ')}\n${slow.length > 0 ? this.tail(slow[0]) : ''}`,
          ),
        );
      }, this.opts.readyTimeoutMs ?? 30_000),
    );
    try {
      for (const g of this.groups) this.spawnProcess(g, 0);
    } catch (err) {
      this.fail(err as Error);
    }
    return p;
  }

  /** Kill a node's process (fault injection); the run goes on without it. */
  kill(node: string, signal: NodeJS.Signals = 'SIGKILL'): void {
    const c = this.children.get(node);
    if (c === undefined || c.exited) return;
    if (this.groups.some((g) => g.length > 1 && g.includes(node)))
      throw new Error(`${node} shares its process with other nodes: kill needs a process per node`);
    c.expectedExit = true;
    this.killed.add(node);
    c.proc.kill(signal);
    // Its unfinished flows will never complete, so the run lasts its whole duration: nodes held
    // by the end bound (lockstep.ts) may run on to it.
    const unfinished = this.plan.flows.some((f) => f.spec.src === node && !this.flowEnd.has(f.spec.id));
    if (this.sync === 'lockstep' && unfinished) {
      const endBoundNs = this.opts.setup.scenario.durationNs;
      this.broadcast({ t: 'endBound', endBoundNs });
    }
    const t = this.emulatedNowNs();
    this.restarts.push(`${node} was killed at ${t === null ? '?' : Math.round(t)} ns`);
  }

  /** Start a killed node again; it joins at once on the run's clock, with fresh state. */
  restart(node: string): void {
    const old = this.children.get(node);
    if (old !== undefined && !old.exited) throw new Error(`${node} is still running`);
    const inc = (old?.incarnation ?? 0) + 1;
    this.killed.delete(node);
    this.spawnProcess([node], inc);
    const t = this.emulatedNowNs();
    this.restarts.push(
      `${node} was restarted at ${t === null ? '?' : Math.round(t)} ns; its counters cover only its last incarnation`,
    );
  }

  /** Resolves once `node` (a fresh incarnation) is ready, or rejects after `timeoutMs`. */
  async waitReady(node: string, timeoutMs = 20_000): Promise<void> {
    const t0 = Date.now();
    while (Date.now() - t0 < timeoutMs) {
      if (this.children.get(node)?.ready === true) return;
      if (this.failure !== null) throw this.failure;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${node} not ready after ${timeoutMs} ms`);
  }

  /** PIDs of running node processes. */
  pids(): number[] {
    const pids = new Set<number>();
    for (const c of this.children.values()) if (!c.exited && c.proc.pid !== undefined) pids.add(c.proc.pid);
    return [...pids];
  }

  /** Datagrams the nodes sent (frames × hops, the real-runtime packetHops), from their reports. */
  datagramsSent(): number {
    let n = 0;
    for (const r of this.reports.values()) n += r.io.txDatagrams;
    return n;
  }

  /** The reports gathered so far (all of them once run() resolved). */
  nodeReports(): ReadonlyMap<string, NodeReport> {
    return this.reports;
  }

  flowsDone(): number {
    return this.flowEnd.size;
  }

  killAll(): void {
    for (const c of this.children.values()) {
      c.expectedExit = true;
      if (c.exited) continue;
      try {
        c.proc.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  private cleanup(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.killAll();
    live.delete(this);
    for (const fd of this.logFds) {
      try {
        closeSync(fd);
      } catch {
        // closed
      }
    }
    this.logFds.length = 0;
    try {
      if (this.ownLogDir) rmSync(this.tmp, { recursive: true, force: true });
      else rmSync(this.scenarioPath, { force: true });
    } catch {
      // best effort
    }
  }
}
