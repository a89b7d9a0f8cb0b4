/**
 * results.json `collectives` (docs/results.md "collectives"): per collective run (job, iteration,
 * op) its start, end, completion time, algbw / busbw (nccl-tests) and the analytic ideal
 * (./collective-ideal.ts); per job the mean and p99 completion time of its iterations; the
 * slowest rank's sends in each job's slowest iteration; and the utilisation of every
 * switch-to-switch link, from the flows and ports of the run.
 */
import type { PlannedFlow, RunPlan } from '../runtime/app/plan.js';
import { busBandwidthFactor } from '../workload/collective/ops.js';
import { mean, percentile } from './aggregate.js';
import { collectiveIdeal } from './collective-ideal.js';
import type { FlowResult, PortResult } from './results.js';

export interface CollectiveOpResult {
  job: string;
  iteration: number;
  /** Workload entry of the collective (a job's entries run in order). */
  entry: number;
  op: string;
  algorithm: string;
  ranks: number;
  sizeBytes: number;
  /** First post of any rank; last acknowledgement of any rank (null: unfinished). */
  startNs: number;
  endNs: number | null;
  cctNs: number | null;
  algbwBps: number | null;
  busbwBps: number | null;
  idealNs: number;
  /** cctNs / idealNs, 6 decimals. */
  ratio: number | null;
}

export interface CollectiveJobResult {
  job: string;
  /** Collectives per iteration (the job's entries). */
  ops: number;
  iterations: number;
  completedIterations: number;
  /** Over the completed iterations: an iteration from its first post to its last acknowledgement. */
  meanCctNs: number | null;
  p99CctNs: number | null;
  /** Mean busbw of the job's completed collectives. */
  busbwBps: number | null;
  /** Ideal iteration: its collectives' ideals plus the gaps between them. */
  idealNs: number;
  /** meanCctNs / idealNs. */
  ratio: number | null;
}

/** [entry, step, peer, startNs, endNs | null, sizeBytes] of one message the rank sent. */
export type RankSend = [number, number, string, number, number | null, number];

export interface SlowestRankResult {
  job: string;
  /** The job's slowest iteration, and its rank whose last send was acknowledged last. */
  iteration: number;
  host: string;
  rank: number;
  sends: RankSend[];
}

export interface FabricLinkResult {
  node: string;
  port: number;
  peer: string;
  rateBps: number;
  txBytes: number;
  /** txBytes over what the link could carry in the run's duration. */
  utilisation: number;
}

export interface CollectivesResult {
  ops: CollectiveOpResult[];
  jobs: CollectiveJobResult[];
  slowest: SlowestRankResult[];
  fabricLinks: FabricLinkResult[];
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
const bps = (bytes: number, ns: number) => Math.round((bytes * 8e9) / ns);

export function collectiveResults(
  plan: RunPlan,
  flows: readonly FlowResult[],
  ports: readonly PortResult[],
  durationNs: number,
): CollectivesResult {
  const instances = plan.workload.collectives;
  const ops: CollectiveOpResult[] = instances.map((c) => {
    const fs = flows.slice(c.firstFlow, c.firstFlow + c.steps.length);
    const planned: PlannedFlow[] = plan.flows.slice(c.firstFlow, c.firstFlow + c.steps.length);
    const startNs = Math.min(...fs.map((f) => f.startNs));
    const done = fs.every((f) => f.endNs !== null);
    const endNs = done ? Math.max(...fs.map((f) => f.endNs!)) : null;
    const cctNs = endNs === null ? null : endNs - startNs;
    const { idealNs } = collectiveIdeal(c, planned);
    const algbw = cctNs === null || cctNs <= 0 ? null : bps(c.sizeBytes, cctNs);
    return {
      job: c.job,
      iteration: c.iteration,
      entry: c.entry,
      op: c.op,
      algorithm: c.algorithm,
      ranks: c.ranks.length,
      sizeBytes: c.sizeBytes,
      startNs,
      endNs,
      cctNs,
      algbwBps: algbw,
      busbwBps: algbw === null ? null : Math.round(algbw * busBandwidthFactor(c.op, c.ranks.length)),
      idealNs,
      ratio: cctNs === null ? null : r6(cctNs / idealNs),
    };
  });
  const names = [...new Set(instances.map((c) => c.job))];
  const jobs = names.map((job) => jobResult(plan, job, ops));
  const slowest = names.map((job) => slowestRank(plan, job, ops, flows));
  return { ops, jobs, slowest, fabricLinks: fabricLinks(plan, ports, durationNs) };
}

/** A job's iterations: [start, end | null] each, and its ops per iteration. */
function iterationsOf(job: string, ops: readonly CollectiveOpResult[]): CollectiveOpResult[][] {
  const its: CollectiveOpResult[][] = [];
  for (const o of ops) if (o.job === job) (its[o.iteration] ??= []).push(o);
  return its;
}

function jobResult(plan: RunPlan, job: string, ops: readonly CollectiveOpResult[]): CollectiveJobResult {
  const its = iterationsOf(job, ops);
  const ccts: number[] = [];
  for (const it of its) {
    if (it.some((o) => o.endNs === null)) continue;
    ccts.push(Math.max(...it.map((o) => o.endNs!)) - Math.min(...it.map((o) => o.startNs)));
  }
  const first = its[0];
  const gaps = first
    .slice(1)
    .reduce((a, o) => a + (plan.workload.collectives.find((c) => c.entry === o.entry)?.gapNs ?? 0), 0);
  const idealNs = Math.round((mean(its.map((it) => it.reduce((a, o) => a + o.idealNs, 0))) ?? 0) + gaps);
  const meanCct = mean(ccts);
  const busbw = mean(ops.filter((o) => o.job === job && o.busbwBps !== null).map((o) => o.busbwBps!));
  return {
    job,
    ops: first.length,
    iterations: its.length,
    completedIterations: ccts.length,
    meanCctNs: meanCct === null ? null : Math.round(meanCct),
    p99CctNs: percentile(ccts, 0.99),
    busbwBps: busbw === null ? null : Math.round(busbw),
    idealNs,
    ratio: meanCct === null ? null : r6(meanCct / idealNs),
  };
}

function slowestRank(
  plan: RunPlan,
  job: string,
  ops: readonly CollectiveOpResult[],
  flows: readonly FlowResult[],
): SlowestRankResult {
  const its = iterationsOf(job, ops);
  const cct = (it: CollectiveOpResult[]) =>
    it.some((o) => o.endNs === null)
      ? Number.POSITIVE_INFINITY
      : Math.max(...it.map((o) => o.endNs!)) - Math.min(...it.map((o) => o.startNs));
  let worst = 0;
  its.forEach((it, i) => {
    if (cct(it) > cct(its[worst])) worst = i;
  });
  const instances = plan.workload.collectives.filter((c) => c.job === job && c.iteration === worst);
  // The rank whose last send was acknowledged last (an unfinished send counts as never).
  const lastAck = new Map<string, number>();
  for (const c of instances)
    for (let i = 0; i < c.steps.length; i++) {
      const f = flows[c.firstFlow + i];
      const end = f.endNs ?? Number.POSITIVE_INFINITY;
      if (end >= (lastAck.get(f.src) ?? Number.NEGATIVE_INFINITY)) lastAck.set(f.src, end);
    }
  let host = instances[0].ranks[0];
  for (const [h, t] of lastAck) if (t > lastAck.get(host)!) host = h;
  const sends: RankSend[] = [];
  for (const c of instances)
    for (let i = 0; i < c.steps.length; i++) {
      const f = flows[c.firstFlow + i];
      if (f.src === host) sends.push([c.entry, c.steps[i], f.dst, f.startNs, f.endNs, f.sizeBytes]);
    }
  return { job, iteration: worst, host, rank: instances[0].ranks.indexOf(host), sends };
}

/** Every switch port whose link leads to another switch (leaf-spine uplinks and downlinks). */
function fabricLinks(plan: RunPlan, ports: readonly PortResult[], durationNs: number): FabricLinkResult[] {
  const sent = new Map(ports.map((x) => [`${x.node}:${x.port}`, x.txBytes]));
  const out: FabricLinkResult[] = [];
  for (const s of plan.topo.switches)
    for (const p of s.ports) {
      if (plan.topo.byName.get(p.peerNode)?.kind !== 'switch') continue;
      const tx = sent.get(`${s.name}:${p.index}`) ?? 0;
      out.push({
        node: s.name,
        port: p.index,
        peer: p.peerNode,
        rateBps: p.rateBps,
        txBytes: tx,
        utilisation: durationNs > 0 ? r6((tx * 8e9) / (p.rateBps * durationNs)) : 0,
      });
    }
  return out;
}
