/**
 * F3 and F4 (docs/algorithms/dolce-rc.md "Realistic workloads: the cold-start arm"): what Dolce-RC
 * does on workloads where every flow is a fresh QP.
 *
 * A fresh QP's bandit has learned nothing: its first CNP selects arm 0 (Alg. 1's forced slot
 * t = 0) and every cut until its first qualified CNP, ≥ Q_MIN = 250 µs later, uses arm 0; the
 * four arms are tried once each before the UCB index is consulted, ≥ 1 ms after the first CNP.
 * A 1 MB flow lasts 40 µs at 200 Gbit/s. So on such workloads Dolce-RC runs DCQCN's machine with
 * arm 0's constant (α, β) — S1's gentlest, (1/16, 0.95) [ours] — in place of DCQCN's α dynamics.
 * F3 replays H-CF's 30 % run with arm 0 as the only arm and with S1's order reversed; F4 runs the
 * shipped WebSearch scenario against both DCQCN profiles and the same two arm variants.
 */
import { join } from 'node:path';
import { loadScenario } from '../../src/config/load.js';
import { packageRoot } from '../../src/package-root.js';
import { memo } from '../memo.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { headlineRun } from './headline.js';
import { dolceScenario } from './probe.js';
import { coldStartText, cutText, measureWorkload, type WorkloadRun } from './workload-run.js';

/** Arm 0 of S1 as the only arm (K = 1: the bandit has nothing to choose). */
export const ARM0_ONLY = ['cc.dolce-rc.arms=0.0625:0.95'];
/** S1 in reverse order: a fresh QP starts with (1/2, 1.1), a DCQCN-sized first cut. */
export const S1_REVERSED = ['cc.dolce-rc.arms=0.5:1.1,0.25:1.05,0.125:1,0.0625:0.95'];

/** The paper's DCQCN baseline (ns3-rdma [22]) as --set overrides, from the shipped E2 scenario. */
export function ns3RdmaDcqcn(): string[] {
  const c = dolceScenario('e2-incast.yaml').cc.dcqcn;
  const params = Object.entries(c?.params ?? {}).map(([k, v]) => `cc.dcqcn.${k}=${String(v)}`);
  return [`cc.dcqcn.profile=${c?.profile ?? 'paper'}`, ...params];
}

const us = (x: number) => x.toFixed(1);
const mb = (b: number) => (b / 1e6).toFixed(2);

function row(name: string, w: WorkloadRun): string {
  return `${name}: mean FCT ${us(w.meanFctUs)} µs, p99 ${us(w.p99FctUs)} µs, < 1 MB ${us(w.shortMeanFctUs)} µs, ≥ 1 MB ${us(w.longMeanFctUs)} µs, slowdown p99 ${w.slowdownP99?.toFixed(1)}, max queue ${mb(w.maxQueueBytes)} MB, PFC ${w.pfcPauses}, ${cutText(w)}`;
}

export const F3: ReproCheck = {
  id: 'F3',
  title: 'Finding: on H-CF the bandit hardly runs; the gain is the arm a fresh QP starts with',
  paper:
    'Dolce-RC "learns" (α, β) per connection from long-term online data (§III-A, §IV); a single set of α and β per connection, for all its flows (footnote 1)',
  expected:
    "record, on H-CF's 30 % flows: the share of Dolce-RC's cuts made before the QP's first bandit update, and Dolce-RC with arm 0 as its only arm and with S1's order reversed beside Dolce-RC and DCQCN",
  tier: 'paper',
  run(ctx) {
    const d = headlineRun('dolce-rc', 'cf', 0.3, ctx);
    const b = headlineRun('dcqcn', 'cf', 0.3, ctx);
    const a0 = headlineRun('dolce-rc', 'cf', 0.3, ctx, ARM0_ONLY, 'arm0');
    const rev = headlineRun('dolce-rc', 'cf', 0.3, ctx, S1_REVERSED, 'reversed');
    return {
      measured: `${row('Dolce-RC (S1)', d)}; ${row('arm 0 only', a0)}; ${row('S1 reversed', rev)}; ${row('DCQCN [22]', b)}; Dolce-RC (S1): ${coldStartText(d)}; ${d.flowsPerPair.toFixed(2)} flows per host pair`,
      pass: 'finding',
      values: {
        dolceMeanUs: d.meanFctUs,
        arm0MeanUs: a0.meanFctUs,
        reversedMeanUs: rev.meanFctUs,
        dcqcnMeanUs: b.meanFctUs,
        coldCutShare: d.cuts > 0 ? d.coldCuts / d.cuts : 0,
        wallS: Math.round((a0.wallMs + rev.wallMs) / 1000),
      },
    };
  },
};

/** The shipped WebSearch leaf-spine (scenarios/websearch-leafspine.yaml), with `overrides`. */
const WEBSEARCH = join(packageRoot(), 'scenarios', 'websearch-leafspine.yaml');
const wsRuns = new Map<string, WorkloadRun>();
const websearchRun = (dir: string, overrides: string[], ctx: ReproContext) =>
  memo(wsRuns, `${dir}|${ctx.seed ?? ''}`, () =>
    measureWorkload(loadScenario(WEBSEARCH, overrides), ctx, dir),
  );

export const F4: ReproCheck = {
  id: 'F4',
  title:
    'Finding: WebSearch on the shipped leaf-spine (rocelab compare websearch-leafspine --cc dolce-rc,dcqcn)',
  paper: 'lower mean FCT than DCQCN [22] on realistic data-centre workloads (§V-C)',
  expected:
    "record: Dolce-RC against the scenario's DCQCN (the default `hpcc-sim` profile) and against the paper's DCQCN [22]; Dolce-RC with arm 0 only and with S1 reversed; where Dolce-RC's cuts came from",
  tier: 'paper',
  run(ctx) {
    const d = websearchRun('dolce-rc', ['defaults.nic.cc=dolce-rc'], ctx);
    const h = websearchRun('dcqcn-hpcc-sim', ['defaults.nic.cc=dcqcn'], ctx);
    const b = websearchRun('dcqcn-ns3rdma', ['defaults.nic.cc=dcqcn', ...ns3RdmaDcqcn()], ctx);
    const a0 = websearchRun('dolce-rc-arm0', ['defaults.nic.cc=dolce-rc', ...ARM0_ONLY], ctx);
    const rev = websearchRun('dolce-rc-reversed', ['defaults.nic.cc=dolce-rc', ...S1_REVERSED], ctx);
    const gbps = (w: WorkloadRun) => `${(w.goodputBps / 1e9).toFixed(0)} Gbit/s`;
    return {
      measured: [
        `${row('Dolce-RC (S1)', d)}, goodput ${gbps(d)}`,
        `${row('DCQCN hpcc-sim (the scenario’s)', h)}, goodput ${gbps(h)}`,
        `${row('DCQCN [22] (the paper’s)', b)}, goodput ${gbps(b)}`,
        `${row('Dolce-RC arm 0 only', a0)}, goodput ${gbps(a0)}`,
        `${row('Dolce-RC S1 reversed', rev)}, goodput ${gbps(rev)}`,
        `Dolce-RC (S1): ${coldStartText(d)}; ${d.flowsPerPair.toFixed(2)} flows per host pair`,
      ].join('; '),
      pass: 'finding',
      values: {
        dolceMeanUs: d.meanFctUs,
        hpccSimMeanUs: h.meanFctUs,
        ns3rdmaMeanUs: b.meanFctUs,
        arm0MeanUs: a0.meanFctUs,
        reversedMeanUs: rev.meanFctUs,
        dolceQueueBytes: d.maxQueueBytes,
        arm0QueueBytes: a0.maxQueueBytes,
        reversedQueueBytes: rev.maxQueueBytes,
        coldCutShare: d.cuts > 0 ? d.coldCuts / d.cuts : 0,
      },
    };
  },
};
