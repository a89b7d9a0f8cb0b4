/**
 * One cell of the rate sweep (docs/algorithms/rates.md): the incast of scenario.ts for one
 * algorithm at one line rate, in virtual time, measured at the bottleneck (s1 → h5):
 *
 * - goodput: the senders' bytes ÷ the time from the first start to the last completion, as a
 *   fraction of the bottleneck's payload rate (line rate × MTU ÷ the 1062-byte standard RoCEv2
 *   frame of a full MTU, FCS included; telemetry an algorithm adds counts against it);
 * - steady state, from STEADY_FROM_NS to the first flow's completion (all four flows active):
 *   the bottleneck's utilisation (bytes on the wire ÷ line rate) and the time-weighted p99 of its
 *   queue, also in BDPs (line rate × the path's base RTT, the HPCC convention).
 */
import { chainTracers, type Tracer, tracer } from '../../src/probe/probe.js';
import { planFromSetup } from '../../src/runtime/app/plan.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { ROCE_FIXED_BYTES } from '../../src/wire/size.js';
import { observedRun } from '../observed-run.js';
import type { ReproContext } from '../types.js';
import { BOTTLENECK, RECEIVER, rateSweepScenario, SWEEP_MTU_BYTES } from './scenario.js';

/** Steady state starts here: past start-up at every rate (≥ 50 base RTTs even at 10 Gbit/s). */
export const STEADY_FROM_NS = 500_000;

export interface RateCell {
  cc: string;
  rateGbps: number;
  /**
   * Bytes delivered ÷ (last completion − first start), over the bottleneck's payload rate; a run
   * whose flows did not all finish within the scenario's duration counts to its end.
   */
  goodput: number;
  completed: number;
  flows: number;
  /** Bottleneck utilisation over the steady window; null when the window is empty. */
  steadyUtilisation: number | null;
  /** Time-weighted p99 of the bottleneck queue over the steady window, bytes. */
  queueP99Bytes: number | null;
  bdpBytes: number;
  maxQueueBytes: number;
  pfcPauses: number;
  drops: number;
  steadyFromNs: number;
  steadyToNs: number;
  wallMs: number;
}

/** Time-weighted distribution of a piecewise-constant value inside [fromNs, toNs). */
export class TimeWeighted {
  private readonly weightNs = new Map<number, number>();
  private lastNs: number;
  private value = 0;

  constructor(
    private readonly fromNs: number,
    private readonly toNs: number,
  ) {
    this.lastNs = fromNs;
  }

  /** The value changes to `value` at `nowNs` (calls in time order). */
  set(nowNs: number, value: number): void {
    this.advance(nowNs);
    this.value = value;
  }

  private advance(nowNs: number): void {
    const t = Math.min(Math.max(nowNs, this.fromNs), this.toNs);
    if (t > this.lastNs) {
      this.weightNs.set(this.value, (this.weightNs.get(this.value) ?? 0) + (t - this.lastNs));
      this.lastNs = t;
    }
  }

  /** The smallest value held at least a fraction `q` of the window; null for an empty window. */
  quantile(q: number): number | null {
    this.advance(this.toNs);
    const total = this.toNs - this.fromNs;
    if (!(total > 0)) return null;
    let acc = 0;
    for (const [v, w] of [...this.weightNs].sort((a, b) => a[0] - b[0])) {
      acc += w;
      if (acc >= q * total) return v;
    }
    return this.value;
  }
}

export interface CellOptions {
  /** `--set`-style changes of the scenario (checks of the suite use them, the sweep does not). */
  overrides?: readonly string[];
  /** Observers (or fault injections) after the cell's own, e.g. one that rewrites stamped INT. */
  trace?: Tracer;
}

/** One rate-sweep cell in virtual time. */
export function measureRateCell(
  cc: string,
  rateGbps: number,
  ctx: ReproContext,
  o: CellOptions = {},
): RateCell {
  const steadyFromNs = STEADY_FROM_NS;
  const overrides = o.overrides ?? [];
  const scenario = rateSweepScenario(cc, rateGbps, overrides);
  const setup = setupRun(scenario, { seed: ctx.seed });
  const plan = planFromSetup(setup);
  const rateBps = rateGbps * 1e9;
  // First pass over the plan: the steady window ends at the first completion, which is known only
  // after the run; record every queue change and every bottleneck frame, cut the window after.
  const queue: Array<[number, number]> = [];
  const tx: Array<[number, number]> = [];
  const t = tracer({
    queue: (sw, nowNs, port, bytes) => {
      if (sw === BOTTLENECK.node && port === BOTTLENECK.port) queue.push([nowNs, bytes]);
    },
    switchTx: (sw, nowNs, port, pkt) => {
      if (sw === BOTTLENECK.node && port === BOTTLENECK.port) tx.push([nowNs, pkt.sizeBytes]);
    },
  });
  const { out } = observedRun(scenario, {
    ...ctx,
    trace: o.trace === undefined ? t : chainTracers([t, o.trace]),
  });
  const r = out.results;
  const flows = r.flows;
  const done = flows.filter((f) => f.endNs !== null);
  // Bytes the receiver got in order; a run that did not finish is measured to its end.
  const bytes = r.hosts.find((h) => h.node === RECEIVER)?.rxBytes ?? 0;
  const firstStart = Math.min(...flows.map((f) => f.startNs));
  const ends = done.map((f) => f.endNs as number);
  const lastEnd = done.length === flows.length ? Math.max(...ends) : r.durationNs;
  const firstEnd = done.length > 0 ? Math.min(...ends) : r.durationNs;
  const payloadRateBps = (rateBps * SWEEP_MTU_BYTES) / (SWEEP_MTU_BYTES + ROCE_FIXED_BYTES);
  const goodput = (bytes * 8e9) / (lastEnd - firstStart) / payloadRateBps;
  const toNs = firstEnd;
  const steady = toNs > steadyFromNs;
  const dist = new TimeWeighted(steadyFromNs, toNs);
  for (const [when, q] of queue) dist.set(when, q);
  const steadyBytes = tx
    .filter(([when]) => when >= steadyFromNs && when < toNs)
    .reduce((s, x) => s + x[1], 0);
  const path = plan.flows[0].qp.path;
  const port = r.ports.find((p) => p.node === BOTTLENECK.node && p.port === BOTTLENECK.port);
  return {
    cc,
    rateGbps,
    goodput,
    completed: done.length,
    flows: flows.length,
    steadyUtilisation: steady ? (steadyBytes * 8e9) / (rateBps * (toNs - steadyFromNs)) : null,
    queueP99Bytes: steady ? dist.quantile(0.99) : null,
    bdpBytes: (rateBps * path.hpccBaseRttNs) / 8e9,
    maxQueueBytes: port?.maxQueueBytes ?? 0,
    pfcPauses: r.summary.pfcPauseTx,
    drops: r.summary.drops,
    steadyFromNs,
    steadyToNs: toNs,
    wallMs: out.wallMs,
  };
}
