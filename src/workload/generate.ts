/**
 * Workload generators: the scenario's resolved workload entries (src/config/scenario.ts) → a
 * deterministic list of flows.
 *
 * Every flow is known up front (ids, sizes, endpoints), which keeps runs reproducible and lets
 * results list unfinished flows. Closed-loop patterns (alltoall iterations) are expressed as
 * gates (./gate.ts): a flow may wait for events of its own host (earlier flows acknowledged or
 * received) plus a compute delay, never starting before its `startNs`.
 */
import type {
  AllToAllWorkload,
  FlowsWorkload,
  IncastWorkload,
  PermutationWorkload,
  PoissonWorkload,
  Verb,
  WorkloadSpec,
} from '../config/scenario.js';
import type { Rng } from '../env/rng.js';
import type { Topology } from '../topology/model.js';
import { type Cdf, cdfMeanBytes, loadCdf, sampleFlowSize, WorkloadError } from './cdf.js';
import { type CollectiveInstance, type CollectiveSpec, generateJob } from './collective/generate.js';
import type { Gate, LocalEvent } from './gate.js';
import { matrixFlows } from './matrix.js';

export type { Verb, WorkloadSpec };

export interface FlowSpec {
  /** Dense id 0..n-1, in generation order (entries in order; within poisson, by start time). */
  id: number;
  src: string;
  dst: string;
  /** Bytes to transfer; Infinity = long-lived (sends until the run ends or `stopNs`). */
  sizeBytes: number;
  /** Earliest start, ns. With a `gate` the flow starts at max(startNs, when the gate opens). */
  startNs: number;
  /** Long-lived flows stop posting at this time (null: run to the end). */
  stopNs: number | null;
  verb: Verb;
  /** Split into messages of this size (null: one message; long-lived flows default to 1 MB). */
  messageBytes: number | null;
  /**
   * Flows with equal keys share one QP (alltoall); otherwise every flow has its own. The flows of
   * one QP are posted in the plan's order (src/runtime/app/plan.ts `flowIds`).
   */
  qpKey: string;
  /** Index of the workload entry that produced it. */
  entry: number;
  tag: string | null;
  /** Index of the gate (Workload.gates) the flow waits at, or -1: it starts at startNs. */
  gate: number;
}

export interface Workload {
  flows: FlowSpec[];
  /** Gates flows wait at (./gate.ts), each at the sender of the flows it holds. */
  gates: Gate[];
  /** Every collective run (alltoall and collective entries), in flow order. */
  collectives: CollectiveInstance[];
}

export interface GenerateOptions {
  /** RNG of the workload; entry i draws from fork(`workload:<i>`). */
  rng: Rng;
  /** Folder that relative CDF paths are resolved against. */
  baseDir?: string;
}

type NewFlow = Pick<FlowSpec, 'src' | 'dst' | 'sizeBytes' | 'startNs' | 'verb' | 'entry'> &
  Partial<Omit<FlowSpec, 'id'>>;

export class Gen {
  readonly flows: FlowSpec[] = [];
  readonly gates: Gate[] = [];
  constructor(private readonly topo: Topology) {}

  host(name: string, what: string): string {
    const n = this.topo.byName.get(name);
    if (n === undefined || n.kind !== 'host') throw new WorkloadError(`${what}: unknown host "${name}"`);
    return name;
  }

  hosts(list: readonly string[], what: string): string[] {
    const seen = new Set<string>();
    for (const h of list) {
      this.host(h, what);
      if (seen.has(h)) throw new WorkloadError(`${what}: host ${h} listed twice`);
      seen.add(h);
    }
    return [...list];
  }

  /**
   * A gate at `host` that opens `computeNs` after every event of `after`; every event must be of
   * a flow generated before and local to `host` (its sender for `acked`, its receiver for
   * `received`), and that flow finite, or an earlier gate at `host`, so a gate can always open. A flow without events to wait
   * for is a static start, not a gate.
   */
  gate(host: string, after: LocalEvent[], computeNs: number): number {
    if (after.length === 0) throw new WorkloadError(`gate at ${host}: waits for no event`);
    for (const e of after) {
      if (e.on === 'opened') {
        if (this.gates[e.gate]?.host !== host)
          throw new WorkloadError(
            `gate at ${host}: waits for gate ${e.gate}, not an earlier gate at ${host}`,
          );
        continue;
      }
      const f = this.flows[e.flow];
      if (f === undefined) throw new WorkloadError(`gate at ${host}: event of unknown flow ${e.flow}`);
      const at = e.on === 'acked' ? f.src : f.dst;
      if (at !== host)
        throw new WorkloadError(`gate at ${host}: flow ${e.flow} is ${e.on} at ${at}, not at ${host}`);
      if (!Number.isFinite(f.sizeBytes) && f.stopNs === null)
        throw new WorkloadError(`gate at ${host}: flow ${e.flow} never completes`);
    }
    if (!(Number.isInteger(computeNs) && computeNs >= 0))
      throw new WorkloadError(`gate at ${host}: compute time must be a whole number of ns >= 0`);
    this.gates.push({ host, after, computeNs });
    return this.gates.length - 1;
  }

  add(f: NewFlow): FlowSpec {
    const what = `flow ${f.src}->${f.dst}`;
    if (f.src === f.dst) throw new WorkloadError(`flow from ${f.src} to itself`);
    if (!(f.sizeBytes === Number.POSITIVE_INFINITY || (Number.isInteger(f.sizeBytes) && f.sizeBytes >= 1)))
      throw new WorkloadError(`${what}: size must be a whole number of bytes >= 1`);
    if (!(Number.isInteger(f.startNs) && f.startNs >= 0))
      throw new WorkloadError(`${what}: start must be a whole number of ns >= 0`);
    const mb = f.messageBytes ?? null;
    if (mb !== null && !(Number.isInteger(mb) && mb >= 1))
      throw new WorkloadError(`${what}: message size must be a whole number of bytes >= 1`);
    const id = this.flows.length;
    const gate = f.gate ?? -1;
    if (gate >= 0 && this.gates[gate]?.host !== f.src)
      throw new WorkloadError(`${what}: waits at a gate that is not at ${f.src}`);
    const flow: FlowSpec = {
      id,
      src: f.src,
      dst: f.dst,
      sizeBytes: f.sizeBytes,
      startNs: f.startNs,
      stopNs: f.stopNs ?? null,
      verb: f.verb,
      messageBytes: mb,
      qpKey: f.qpKey ?? `f${id}`,
      entry: f.entry,
      tag: f.tag ?? null,
      gate,
    };
    this.flows.push(flow);
    return flow;
  }
}

export function generateWorkload(
  topo: Topology,
  entries: readonly WorkloadSpec[],
  opts: GenerateOptions,
): Workload {
  const gen = new Gen(topo);
  const collectives: CollectiveInstance[] = [];
  const jobs = collectiveJobs(entries);
  entries.forEach((e, entry) => {
    const rng = opts.rng.fork(`workload:${entry}`);
    const what = `workload[${entry}] (${e.kind})`;
    switch (e.kind) {
      case 'flows':
        flows(gen, e, entry, what);
        break;
      case 'incast':
        incast(gen, e, entry, what, rng);
        break;
      case 'permutation':
        permutation(gen, e, entry, what, rng);
        break;
      case 'poisson':
        poisson(gen, topo, e, entry, what, rng, loadCdf(e.cdfFile ?? e.cdf, opts.baseDir));
        break;
      case 'alltoall':
      case 'collective': {
        // A job's entries run together, from the place of its first entry.
        const job = jobs.get(jobName(e, entry));
        if (job?.[0].entry === entry) generateJob(gen, job, collectives);
        break;
      }
      case 'matrix':
        for (const f of matrixFlows(e, entry))
          gen.add({
            src: gen.host(f.src, what),
            dst: gen.host(f.dst, what),
            sizeBytes: f.sizeBytes,
            startNs: f.startNs,
            verb: e.verb,
            messageBytes: e.messageBytes,
            entry,
            tag: e.tag,
            ...(f.qpKey === null ? {} : { qpKey: f.qpKey }),
          });
        break;
    }
  });
  return { flows: gen.flows, gates: gen.gates, collectives };
}

/** Job of a collective entry; an alltoall entry is a job of its own (a direct all-to-all). */
export function jobName(e: WorkloadSpec, entry: number): string {
  return e.kind === 'collective' ? e.job : `job${entry}`;
}

/** The entries of each job, in workload order, as the collective generator runs them. */
function collectiveJobs(
  entries: readonly WorkloadSpec[],
): Map<string, { entry: number; spec: CollectiveSpec }[]> {
  const jobs = new Map<string, { entry: number; spec: CollectiveSpec }[]>();
  entries.forEach((e, entry) => {
    let spec: CollectiveSpec;
    if (e.kind === 'collective') spec = { ...e, verb: 'send' };
    else if (e.kind === 'alltoall') spec = alltoallAsCollective(e, entry);
    else return;
    const name = jobName(e, entry);
    const list = jobs.get(name);
    if (list === undefined) jobs.set(name, [{ entry, spec }]);
    else list.push({ entry, spec });
  });
  return jobs;
}

/**
 * `kind: alltoall`, the shorthand: a direct all-to-all of messageSize per ordered pair (so a
 * buffer of n × messageSize), one channel per QP of a pair, in its own verb. A host starts
 * iteration i+1 gap after its own iteration-i sends were acknowledged and receives arrived.
 */
function alltoallAsCollective(e: AllToAllWorkload, entry: number): CollectiveSpec {
  const what = `workload[${entry}] (alltoall)`;
  if (e.hosts.length < 2) throw new WorkloadError(`${what}: needs at least 2 hosts`);
  if (!(Number.isInteger(e.iterations) && e.iterations >= 1))
    throw new WorkloadError(`${what}: iterations must be an integer >= 1`);
  if (e.messageBytes < e.qpsPerPair)
    throw new WorkloadError(`${what}: messageSize is smaller than qpsPerPair`);
  return {
    job: jobName(e, entry),
    op: 'alltoall',
    algorithm: 'direct',
    ranks: e.hosts,
    sizeBytes: e.messageBytes * e.hosts.length,
    sizesBytes: null,
    skew: 0,
    channels: e.qpsPerPair,
    chunkBytes: null,
    iterations: e.iterations,
    gapNs: e.gapNs,
    startNs: e.startNs,
    tag: e.tag,
    verb: e.verb,
  };
}

function flows(gen: Gen, e: FlowsWorkload, entry: number, what: string): void {
  for (const f of e.flows) {
    for (let k = 0; k < f.count; k++) {
      gen.add({
        src: gen.host(f.src, what),
        dst: gen.host(f.dst, what),
        sizeBytes: f.sizeBytes,
        startNs: f.startNs,
        stopNs: f.stopNs,
        verb: f.verb,
        messageBytes: f.messageBytes,
        entry,
        tag: f.tag ?? e.tag,
      });
    }
  }
}

/** Start time with an optional seeded spread U[0, spread). */
function spread(startNs: number, spreadNs: number, rng: Rng): number {
  return spreadNs > 0 ? startNs + Math.floor(rng.next() * spreadNs) : startNs;
}

/** Rounds `intervalNs` apart; each sender opens `flowsPerSender` flows per round. */
function incast(gen: Gen, e: IncastWorkload, entry: number, what: string, rng: Rng): void {
  const receiver = gen.host(e.receiver, what);
  const senders = gen.hosts(e.senders, what);
  if (senders.length === 0) throw new WorkloadError(`${what}: no senders`);
  if (senders.includes(receiver)) throw new WorkloadError(`${what}: receiver ${receiver} is also a sender`);
  for (let r = 0; r < e.count; r++) {
    for (const s of senders) {
      for (let k = 0; k < e.flowsPerSender; k++) {
        gen.add({
          src: s,
          dst: receiver,
          sizeBytes: e.sizeBytes,
          startNs: spread(e.startNs + e.intervalNs * r, e.startSpreadNs, rng),
          verb: e.verb,
          messageBytes: e.messageBytes,
          entry,
          tag: e.tag,
        });
      }
    }
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

function permutation(gen: Gen, e: PermutationWorkload, entry: number, what: string, rng: Rng): void {
  const hosts = gen.hosts(e.hosts, what);
  const p = derangement(hosts.length, rng.fork('derangement'));
  const starts = rng.fork('start');
  hosts.forEach((src, i) => {
    for (let k = 0; k < e.flowsPerPair; k++) {
      gen.add({
        src,
        dst: hosts[p[i]],
        sizeBytes: e.sizeBytes,
        startNs: spread(e.startNs, e.startSpreadNs, starts),
        verb: e.verb,
        messageBytes: e.messageBytes,
        entry,
        tag: e.tag,
      });
    }
  });
}

/**
 * Per-host Poisson arrivals (traffic_gen.py): mean inter-arrival = mean flow size × 8 / (load ×
 * host link rate), exponential gaps −ln(1−U)·mean, destination uniform over the other hosts (or
 * over `receivers` other than the source, when given), arrivals in [startNs, stopNs). With
 * `sharedQp` the flows of one source-destination pair reuse one QP. Each source draws from its
 * own stream, so adding a host does not change the others' flows. `maxFlows` keeps the earliest
 * arrivals.
 */
function poisson(
  gen: Gen,
  topo: Topology,
  e: PoissonWorkload,
  entry: number,
  what: string,
  rng: Rng,
  cdf: Cdf,
): void {
  const hosts = gen.hosts(e.hosts, what);
  const receivers = e.receivers == null ? null : gen.hosts(e.receivers, what);
  if (receivers === null && hosts.length < 2) throw new WorkloadError(`${what}: needs at least 2 hosts`);
  if (receivers !== null && hosts.some((h) => receivers.every((r) => r === h)))
    throw new WorkloadError(`${what}: a sender has no receiver other than itself`);
  if (!(e.load > 0 && Number.isFinite(e.load))) throw new WorkloadError(`${what}: load must be > 0`);
  if (!(e.stopNs > e.startNs)) throw new WorkloadError(`${what}: stop must be after start`);
  const meanBytes = cdfMeanBytes(cdf);
  const pending: { startNs: number; src: number; dst: string; sizeBytes: number; seq: number }[] = [];
  hosts.forEach((src, si) => {
    const r = rng.fork(src);
    const rateBps = topo.byName.get(src)!.ports[0].rateBps;
    const meanGapNs = (meanBytes * 8e9) / (e.load * rateBps);
    let t = e.startNs;
    let seq = 0;
    for (;;) {
      t += -Math.log(1 - r.next()) * meanGapNs;
      if (t >= e.stopNs) break;
      let dst: string;
      if (receivers === null) {
        let d = r.int(hosts.length - 1);
        if (d >= si) d++;
        dst = hosts[d];
      } else {
        const others = receivers.filter((h) => h !== src);
        dst = others.length === 1 ? others[0] : others[r.int(others.length)];
      }
      pending.push({
        startNs: Math.floor(t),
        src: si,
        dst,
        sizeBytes: sampleFlowSize(cdf, r),
        seq: seq++,
      });
    }
  });
  pending.sort((a, b) => a.startNs - b.startNs || a.src - b.src || a.seq - b.seq);
  const n = e.maxFlows === null ? pending.length : Math.min(e.maxFlows, pending.length);
  for (let i = 0; i < n; i++) {
    const p = pending[i];
    gen.add({
      src: hosts[p.src],
      dst: p.dst,
      sizeBytes: p.sizeBytes,
      startNs: p.startNs,
      verb: e.verb,
      messageBytes: e.messageBytes,
      entry,
      tag: e.tag,
      ...(e.sharedQp === true ? { qpKey: `p${entry}:${hosts[p.src]}>${p.dst}` } : {}),
    });
  }
}
