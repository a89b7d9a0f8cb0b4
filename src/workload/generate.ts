/**
 * Workload generators: a scenario's workload entries → a deterministic list of flows.
 *
 * Every flow is known up front (ids, sizes, endpoints), which keeps runs reproducible and lets
 * results list unfinished flows. Closed-loop patterns (repeated incast rounds, alltoall
 * iterations) are expressed as barrier groups: a flow may wait for a group of other flows to
 * complete, and the engine starts it when the group's last member completes (its completion
 * callback), never before its `startNs`.
 */
import type { Rng } from '../env/rng.js';
import type { Topology } from '../topology/model.js';
import { type Cdf, cdfMeanBytes, loadCdf, sampleFlowSize, WorkloadError } from './cdf.js';

export type Verb = 'send' | 'write';

export interface FlowSpec {
  /** Dense id 0..n-1, in generation order (entries in order; within poisson, by start time). */
  id: number;
  src: string;
  dst: string;
  sizeBytes: number;
  /** Earliest start, ns. With `waitGroup` the flow starts at max(startNs, group completion). */
  startNs: number;
  verb: Verb;
  /** Flows with equal keys share one QP (alltoall); otherwise every flow has its own. */
  qpKey: string;
  /** Index of the workload entry that produced it. */
  entry: number;
  /** Barrier groups this flow counts toward. */
  groups: number[];
  /** Barrier group that must complete before this flow starts, or -1. */
  waitGroup: number;
}

export interface Workload {
  flows: FlowSpec[];
  /** Member count of each barrier group. */
  groupSizes: number[];
}

export interface FlowsEntry {
  kind: 'flows';
  verb?: Verb;
  flows: { src: string; dst: string; sizeBytes: number; startNs?: number; verb?: Verb }[];
}

export interface IncastEntry {
  kind: 'incast';
  senders: string[];
  receiver: string;
  sizeBytes: number;
  startNs?: number;
  /** Rounds of the incast (default 1). */
  count?: number;
  /**
   * Gap between the starts of consecutive rounds, ns. When absent, round r+1 starts as soon as
   * every flow of round r has completed (partition-aggregate style).
   */
  intervalNs?: number;
  verb?: Verb;
}

export interface PermutationEntry {
  kind: 'permutation';
  /** Participating hosts (default: all). Each sends to a distinct other host: a random derangement. */
  hosts?: string[];
  sizeBytes: number;
  startNs?: number;
  verb?: Verb;
}

export interface PoissonEntry {
  kind: 'poisson';
  /** websearch | fb_hadoop | a CDF file path (relative to `baseDir`). */
  cdf: string;
  /** Offered load as a fraction of each host's link rate (0 < load ≤ 1 typically). */
  load: number;
  startNs?: number;
  /** Arrivals are generated in [startNs, startNs + durationNs). */
  durationNs: number;
  /** Sources and destinations (default: all hosts). */
  hosts?: string[];
  verb?: Verb;
}

export interface AlltoallEntry {
  kind: 'alltoall';
  hosts?: string[];
  messageBytes: number;
  iterations: number;
  startNs?: number;
  verb?: Verb;
}

export type WorkloadEntry = FlowsEntry | IncastEntry | PermutationEntry | PoissonEntry | AlltoallEntry;

export interface GenerateOptions {
  /** Root RNG of the run; each entry draws from fork(`workload:<index>`). */
  rng: Rng;
  /** Folder that relative CDF paths are resolved against. */
  baseDir?: string;
  /** Verb for entries that do not set one. */
  defaultVerb?: Verb;
}

class Gen {
  readonly flows: FlowSpec[] = [];
  readonly groupSizes: number[] = [];
  constructor(private readonly topo: Topology) {}

  host(name: string, what: string): string {
    const n = this.topo.byName.get(name);
    if (n === undefined || n.kind !== 'host') throw new WorkloadError(`${what}: unknown host "${name}"`);
    return name;
  }

  hosts(list: string[] | undefined, what: string): string[] {
    if (list === undefined) return this.topo.hosts.map((h) => h.name);
    const seen = new Set<string>();
    for (const h of list) {
      this.host(h, what);
      if (seen.has(h)) throw new WorkloadError(`${what}: host ${h} listed twice`);
      seen.add(h);
    }
    return list;
  }

  group(): number {
    this.groupSizes.push(0);
    return this.groupSizes.length - 1;
  }

  add(f: Omit<FlowSpec, 'id' | 'qpKey' | 'groups' | 'waitGroup'> & Partial<FlowSpec>): FlowSpec {
    if (f.src === f.dst) throw new WorkloadError(`flow from ${f.src} to itself`);
    if (!(Number.isInteger(f.sizeBytes) && f.sizeBytes >= 1))
      throw new WorkloadError(`flow ${f.src}->${f.dst}: size must be a whole number of bytes >= 1`);
    if (!(Number.isInteger(f.startNs) && f.startNs >= 0))
      throw new WorkloadError(`flow ${f.src}->${f.dst}: start must be a whole number of ns >= 0`);
    const id = this.flows.length;
    const flow: FlowSpec = {
      id,
      src: f.src,
      dst: f.dst,
      sizeBytes: f.sizeBytes,
      startNs: f.startNs,
      verb: f.verb,
      qpKey: f.qpKey ?? `f${id}`,
      entry: f.entry,
      groups: f.groups ?? [],
      waitGroup: f.waitGroup ?? -1,
    };
    for (const g of flow.groups) this.groupSizes[g]++;
    this.flows.push(flow);
    return flow;
  }
}

export function generateWorkload(topo: Topology, entries: WorkloadEntry[], opts: GenerateOptions): Workload {
  const gen = new Gen(topo);
  const defaultVerb = opts.defaultVerb ?? 'write';
  entries.forEach((e, entry) => {
    const rng = opts.rng.fork(`workload:${entry}`);
    const verb = e.verb ?? defaultVerb;
    const what = `workload[${entry}] (${e.kind})`;
    switch (e.kind) {
      case 'flows':
        for (const f of e.flows) {
          gen.add({
            src: gen.host(f.src, what),
            dst: gen.host(f.dst, what),
            sizeBytes: f.sizeBytes,
            startNs: f.startNs ?? 0,
            verb: f.verb ?? verb,
            entry,
          });
        }
        break;
      case 'incast':
        incast(gen, e, entry, verb, what);
        break;
      case 'permutation':
        permutation(gen, e, entry, verb, what, rng);
        break;
      case 'poisson':
        poisson(gen, topo, e, entry, verb, what, rng, loadCdfFor(e.cdf, opts.baseDir));
        break;
      case 'alltoall':
        alltoall(gen, e, entry, verb, what);
        break;
    }
  });
  return { flows: gen.flows, groupSizes: gen.groupSizes };
}

function loadCdfFor(name: string, baseDir: string | undefined): Cdf {
  return loadCdf(name, baseDir);
}

function incast(gen: Gen, e: IncastEntry, entry: number, verb: Verb, what: string): void {
  const receiver = gen.host(e.receiver, what);
  const senders = gen.hosts(e.senders, what);
  if (senders.length === 0) throw new WorkloadError(`${what}: no senders`);
  if (senders.includes(receiver)) throw new WorkloadError(`${what}: receiver ${receiver} is also a sender`);
  const count = e.count ?? 1;
  if (!(Number.isInteger(count) && count >= 1))
    throw new WorkloadError(`${what}: count must be an integer >= 1`);
  const start = e.startNs ?? 0;
  let prev = -1;
  for (let r = 0; r < count; r++) {
    const closedLoop = e.intervalNs === undefined && count > 1;
    const round = closedLoop && r < count - 1 ? gen.group() : -1;
    for (const s of senders) {
      gen.add({
        src: s,
        dst: receiver,
        sizeBytes: e.sizeBytes,
        startNs: start + (e.intervalNs ?? 0) * r,
        verb,
        entry,
        groups: round >= 0 ? [round] : [],
        waitGroup: closedLoop ? prev : -1,
      });
    }
    prev = round;
  }
}

/** Uniform random derangement by rejection (expected e ≈ 2.7 shuffles). */
export function derangement(n: number, rng: Rng): number[] {
  if (n < 2) throw new WorkloadError('a permutation needs at least 2 hosts');
  for (;;) {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      const t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    if (p.every((v, i) => v !== i)) return p;
  }
}

function permutation(gen: Gen, e: PermutationEntry, entry: number, verb: Verb, what: string, rng: Rng): void {
  const hosts = gen.hosts(e.hosts, what);
  const p = derangement(hosts.length, rng);
  hosts.forEach((src, i) => {
    gen.add({ src, dst: hosts[p[i]], sizeBytes: e.sizeBytes, startNs: e.startNs ?? 0, verb, entry });
  });
}

/**
 * Per-host Poisson arrivals (traffic_gen.py): mean inter-arrival = mean flow size × 8 / (load ×
 * host link rate), exponential gaps −ln(1−U)·mean, destination uniform over the other hosts.
 * Each source draws from its own stream, so adding a host does not change the others' flows.
 */
function poisson(
  gen: Gen,
  topo: Topology,
  e: PoissonEntry,
  entry: number,
  verb: Verb,
  what: string,
  rng: Rng,
  cdf: Cdf,
): void {
  const hosts = gen.hosts(e.hosts, what);
  if (hosts.length < 2) throw new WorkloadError(`${what}: needs at least 2 hosts`);
  if (!(e.load > 0 && Number.isFinite(e.load))) throw new WorkloadError(`${what}: load must be > 0`);
  if (!(e.durationNs > 0)) throw new WorkloadError(`${what}: duration must be > 0`);
  const start = e.startNs ?? 0;
  const end = start + e.durationNs;
  const meanBytes = cdfMeanBytes(cdf);
  const pending: { startNs: number; src: number; dst: string; sizeBytes: number; seq: number }[] = [];
  hosts.forEach((src, si) => {
    const r = rng.fork(src);
    const rateBps = topo.byName.get(src)!.ports[0].rateBps;
    const meanGapNs = (meanBytes * 8e9) / (e.load * rateBps);
    let t = start;
    let seq = 0;
    for (;;) {
      t += -Math.log(1 - r.next()) * meanGapNs;
      if (t >= end) break;
      let d = r.int(hosts.length - 1);
      if (d >= si) d++;
      pending.push({
        startNs: Math.floor(t),
        src: si,
        dst: hosts[d],
        sizeBytes: sampleFlowSize(cdf, r),
        seq: seq++,
      });
    }
  });
  pending.sort((a, b) => a.startNs - b.startNs || a.src - b.src || a.seq - b.seq);
  for (const p of pending) {
    gen.add({ src: hosts[p.src], dst: p.dst, sizeBytes: p.sizeBytes, startNs: p.startNs, verb, entry });
  }
}

/**
 * MPI-like alltoall: in every iteration each host sends `messageBytes` to every other host, one
 * QP per ordered pair reused across iterations. A host starts iteration i+1 when all of its
 * iteration-i messages, sent and received, have completed.
 */
function alltoall(gen: Gen, e: AlltoallEntry, entry: number, verb: Verb, what: string): void {
  const hosts = gen.hosts(e.hosts, what);
  if (hosts.length < 2) throw new WorkloadError(`${what}: needs at least 2 hosts`);
  if (!(Number.isInteger(e.iterations) && e.iterations >= 1))
    throw new WorkloadError(`${what}: iterations must be an integer >= 1`);
  const start = e.startNs ?? 0;
  let prev: number[] = [];
  for (let it = 0; it < e.iterations; it++) {
    const last = it === e.iterations - 1;
    const groups = last ? [] : hosts.map(() => gen.group());
    hosts.forEach((src, si) => {
      hosts.forEach((dst, di) => {
        if (si === di) return;
        gen.add({
          src,
          dst,
          sizeBytes: e.messageBytes,
          startNs: start,
          verb,
          entry,
          qpKey: `a2a${entry}:${src}>${dst}`,
          groups: last ? [] : [groups[si], groups[di]],
          waitGroup: it === 0 ? -1 : prev[si],
        });
      });
    });
    prev = groups;
  }
}
