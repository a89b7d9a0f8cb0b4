/**
 * One realistic-workload run of the Dolce-RC checks (docs/algorithms/dolce-rc.md "Headline" and
 * "WebSearch"): FCT statistics of the completed flows, and for Dolce-RC where its cuts came from.
 *
 * The RP names each cut `cnp:arm<k>`, or `cnp:q:arm<k>` at a qualified CNP (the bandit's update,
 * Alg. 2), so the NIC's rate-change trace tells, per QP, how many cuts it took before its bandit
 * had learned anything: every cut before the QP's first qualified CNP uses arm 0, the arm the
 * first CNP selects (Alg. 1's forced slot t = 0). Observing the NICs does not change the run
 * (experiments/observed-run.ts).
 */
import { join } from 'node:path';
import type { Scenario } from '../../src/config/scenario.js';
import { mean, quantileNearestRank } from '../../src/stats/aggregate.js';
import { observedRun } from '../observed-run.js';
import type { ReproContext } from '../types.js';

/** Flows below this size are "short" (the paper's split of both workloads: 1 MB = 10^6 B). */
export const SHORT_FLOW_BYTES = 1_000_000;

export interface WorkloadRun {
  flows: number;
  completed: number;
  /** Mean and 99th-percentile FCT (nearest rank) over completed flows, µs. */
  meanFctUs: number;
  p99FctUs: number;
  /** Mean FCT of completed flows < 1 MB and ≥ 1 MB, µs. */
  shortMeanFctUs: number;
  longMeanFctUs: number;
  /** Slowdown percentiles, results.json `summary`. */
  slowdownP50: number | null;
  slowdownP99: number | null;
  /** When the last flow completed (the run stops there), ms. */
  lastDoneMs: number;
  maxQueueBytes: number;
  pfcPauses: number;
  drops: number;
  goodputBps: number;
  /** Flows ÷ distinct source→destination pairs: how many flows a per-connection state would see. */
  flowsPerPair: number;
  /** CNP cuts, and their mean depth (rate after ÷ rate before). */
  cuts: number;
  meanCutFactor: number;
  /** Dolce-RC only (0 otherwise): cuts before the QP's first bandit update. */
  coldCuts: number;
  /** QPs that took a cut; for Dolce-RC those whose bandit updated at least once / 4 times. */
  qpsCut: number;
  qpsUpdated: number;
  qpsPastForced: number;
  /** Cuts per arm index. */
  armCuts: number[];
  wallMs: number;
}

/**
 * Per-QP tally of the CNP cuts in a rate-change trace: how deep they were (any algorithm: the
 * rate after ÷ the rate before, a QP starting at line rate) and, for Dolce-RC, which arm made
 * them and whether the QP's bandit had updated yet.
 */
export class CutTally {
  cuts = 0;
  /** Σ (rate after ÷ rate before) over the cuts. */
  factorSum = 0;
  coldCuts = 0;
  readonly armCuts: number[] = [];
  private readonly rateByQp = new Map<string, number>();
  private readonly qualifiedByQp = new Map<string, number>();

  constructor(private readonly lineRateBps: number) {}

  onChange(qp: string, why: string, rateBps: number): void {
    const before = this.rateByQp.get(qp) ?? this.lineRateBps;
    this.rateByQp.set(qp, rateBps);
    if (!why.startsWith('cnp')) return;
    this.cuts++;
    this.factorSum += rateBps / before;
    const m = /^cnp(:q)?:arm(\d+)$/.exec(why);
    const q = (this.qualifiedByQp.get(qp) ?? 0) + (m?.[1] === undefined ? 0 : 1);
    this.qualifiedByQp.set(qp, q);
    if (m === null) return;
    if (q === 0) this.coldCuts++;
    const arm = Number(m[2]);
    while (this.armCuts.length <= arm) this.armCuts.push(0);
    this.armCuts[arm]++;
  }

  qps(): { cut: number; updated: number; pastForced: number } {
    const q = [...this.qualifiedByQp.values()];
    return {
      cut: q.length,
      updated: q.filter((n) => n >= 1).length,
      pastForced: q.filter((n) => n >= 4).length,
    };
  }
}

/** Run `scenario` (a Poisson workload) into `ctx`'s folder `dir` and measure it. */
export function measureWorkload(scenario: Scenario, ctx: ReproContext, dir: string): WorkloadRun {
  const tally = new CutTally(scenario.defaults.link.rateBps);
  const { out } = observedRun(scenario, {
    outDir: join(ctx.outDir, dir),
    seed: ctx.seed,
    nicObserver: (host) => ({
      onRateChange: (c) => tally.onChange(`${host}:${c.qpn}`, c.why, c.rateBps),
    }),
  });
  const r = out.results;
  const done = r.flows.filter((f) => f.fctNs !== null);
  const fctUs = done.map((f) => (f.fctNs as number) / 1e3);
  const fctOf = (short: boolean) =>
    done.filter((f) => f.sizeBytes < SHORT_FLOW_BYTES === short).map((f) => (f.fctNs as number) / 1e3);
  const pairs = new Set(r.flows.map((f) => `${f.src}>${f.dst}`));
  const qps = tally.qps();
  return {
    flows: r.flows.length,
    completed: done.length,
    meanFctUs: mean(fctUs) ?? Number.NaN,
    p99FctUs: quantileNearestRank(fctUs, 0.99),
    shortMeanFctUs: mean(fctOf(true)) ?? Number.NaN,
    longMeanFctUs: mean(fctOf(false)) ?? Number.NaN,
    slowdownP50: r.summary.slowdownP50,
    slowdownP99: r.summary.slowdownP99,
    lastDoneMs: r.durationNs / 1e6,
    maxQueueBytes: r.summary.maxQueueBytes,
    pfcPauses: r.summary.pfcPauseTx,
    drops: r.summary.drops,
    goodputBps: r.summary.goodputBps,
    flowsPerPair: r.flows.length / Math.max(1, pairs.size),
    cuts: tally.cuts,
    meanCutFactor: tally.cuts > 0 ? tally.factorSum / tally.cuts : 1,
    coldCuts: tally.coldCuts,
    qpsCut: qps.cut,
    qpsUpdated: qps.updated,
    qpsPastForced: qps.pastForced,
    armCuts: tally.armCuts,
    wallMs: out.wallMs,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`;

/** "n cuts on m QPs, mean rate after ÷ before f". */
export function cutText(w: WorkloadRun): string {
  return `${w.cuts} cuts on ${w.qpsCut} QPs, mean rate after ÷ before ${w.meanCutFactor.toFixed(3)}`;
}

/** "k of n cuts (p %) before the QP's first bandit update; QPs cut n, updated m, past the forced round l". */
export function coldStartText(w: WorkloadRun): string {
  if (w.cuts === 0) return 'no cuts';
  return `${w.coldCuts} of ${w.cuts} cuts (${pct(w.coldCuts / w.cuts)}) before the QP's first bandit update, cuts per arm ${w.armCuts.join('/')}; of ${w.qpsCut} QPs cut, ${w.qpsUpdated} saw an update, ${w.qpsPastForced} got past the 4 forced slots`;
}
