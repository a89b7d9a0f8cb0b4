/**
 * AC10 (docs/algorithms/srcc.md "Reproduction", paper tier, directional): SRCC + DCQCN vs DCQCN on a 4 × 2 × 8 leaf-spine
 * with Poisson traffic at load 0.8 and the burst overlay of the paper's §V-B.2 (reading B of P19). Reported:
 * XOFF frames, the ratio of HoL-blocked flows and the AFCT; the gate is the direction only.
 *
 * "HoL-blocked" (Figs. 5(b), 6(b) leave it undefined; ours): a completed flow whose data met a PFC pause
 * while active, either at its source NIC (paused by the ToR) or at a switch hop (one of its
 * frames joined an egress queue paused by the next hop). Unlike the spec's definition we do not exclude hops where
 * the flow itself was congested, so this is an upper bound of the victims.
 */
import { join } from 'node:path';
import { tracer } from '../../src/probe/probe.js';
import { planQpns } from '../../src/runtime/app/plan.js';
import { scenarioTopology } from '../../src/runtime/scenario-setup.js';
import type { FlowResult } from '../../src/stats/results.js';
import { FrameKind } from '../../src/wire/packet.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { observedRun } from '../observed-run.js';
import type { ReproCheck, ReproOutcome } from '../types.js';
import { srccScenario } from './probe.js';

const FILE = 'ac10-websearch-burst.yaml';

function runArm(cc: 'srcc' | 'dcqcn', outDir: string, seed: number | undefined, overrides: string[]) {
  // Frames (dstIp:destQp) that joined a paused egress queue at some switch.
  const blockedKeys = new Set<string>();
  const probeCp: SwitchCpFactory = (io) => ({
    name: 'hol-probe',
    onIngress(pkt, _inPort, outPort) {
      if (pkt.kind === FrameKind.Data && outPort >= 0 && io.egressPaused(outPort, pkt.prio))
        blockedKeys.add(`${pkt.dstIp >>> 0}:${pkt.destQp}`);
      return undefined;
    },
  });
  // PFC pauses seen by each host NIC: [from, to) intervals of its data priority.
  const pauses = new Map<string, [number, number][]>();
  const open = new Map<string, number>();
  const close = (node: string, endNs: number) => {
    const l = pauses.get(node) ?? [];
    l.push([open.get(node)!, endNs]);
    pauses.set(node, l);
    open.delete(node);
  };
  const scenario = srccScenario(FILE, [`defaults.nic.cc=${cc}`, ...overrides]);
  const { out } = observedRun(scenario, {
    outDir: join(outDir, cc),
    seed,
    cpAfter: [probeCp],
    trace: tracer({
      nicRx: (node, t, pkt) => {
        if (pkt.kind !== FrameKind.Pfc || pkt.pfc === null) return;
        const q = pkt.pfc.quanta[3] ?? 0;
        if (((pkt.pfc.classEnable >>> 3) & 1) === 0) return;
        if (q > 0 && !open.has(node)) open.set(node, t);
        else if (q === 0 && open.has(node)) close(node, t);
      },
    }),
  });
  const r = out.results;
  for (const node of [...open.keys()]) close(node, r.durationNs);
  const topo = scenarioTopology(scenario);
  // Flow ↔ (receiver IP, receiver QPN), numbered by the runtime's planner; every flow here has
  // its own QP.
  const qpns = planQpns(r.flows.map((f) => ({ src: f.src, dst: f.dst, qpKey: `f${f.id}` })));
  const keyOf = new Map<number, string>();
  r.flows.forEach((f, i) => {
    keyOf.set(f.id, `${topo.byName.get(f.dst)!.ip >>> 0}:${qpns[i].dst}`);
  });
  const done = r.flows.filter((f): f is FlowResult & { endNs: number; fctNs: number } => f.endNs !== null);
  const blocked = done.filter((f) => {
    if (blockedKeys.has(keyOf.get(f.id)!)) return true;
    return (pauses.get(f.src) ?? []).some(([a, b]) => a < f.endNs && b > f.startNs);
  });
  return {
    out,
    xoff: r.summary.pfcPauseTx,
    holRatio: done.length > 0 ? blocked.length / done.length : Number.NaN,
    afctNs: done.reduce((a, f) => a + f.fctNs, 0) / Math.max(1, done.length),
    completed: done.length,
    total: r.flows.length,
  };
}

/** Mean FCT over the flows both arms completed (the fair AFCT comparison). */
function commonAfct(a: ReturnType<typeof runArm>, b: ReturnType<typeof runArm>): [number, number, number] {
  const fa = new Map(a.out.results.flows.filter((f) => f.fctNs !== null).map((f) => [f.id, f.fctNs!]));
  let sa = 0;
  let sb = 0;
  let n = 0;
  for (const f of b.out.results.flows) {
    const x = fa.get(f.id);
    if (x === undefined || f.fctNs === null) continue;
    sa += x;
    sb += f.fctNs;
    n++;
  }
  return [sa / Math.max(1, n), sb / Math.max(1, n), n];
}

export function ac10(outDir: string, seed: number | undefined, overrides: string[] = []): ReproOutcome {
  const s = runArm('srcc', outDir, seed, overrides);
  const b = runArm('dcqcn', outDir, seed, overrides);
  const [afctS, afctB, common] = commonAfct(s, b);
  const fewerXoff = b.xoff > 0 ? 1 - s.xoff / b.xoff : 0;
  const afctCut = 1 - afctS / afctB;
  const pass = s.xoff < b.xoff && s.holRatio < b.holRatio && afctS < afctB;
  const cnms = s.out.results.ports.reduce((a, p) => a + p.cnmTx, 0);
  const us = (ns: number) => `${(ns / 1000).toFixed(1)} µs`;
  return {
    measured:
      `XOFF ${s.xoff} vs ${b.xoff} (${(fewerXoff * 100).toFixed(0)}% fewer); HoL-blocked ${(s.holRatio * 100).toFixed(1)}% vs ${(b.holRatio * 100).toFixed(1)}%; ` +
      `AFCT over ${common} flows done in both ${us(afctS)} vs ${us(afctB)} (${(afctCut * 100).toFixed(0)}% lower); ` +
      `completed ${s.completed}/${s.total} vs ${b.completed}/${b.total}; ${cnms} CNMs; wall ${(s.out.wallMs / 1000).toFixed(0)} s + ${(b.out.wallMs / 1000).toFixed(0)} s`,
    pass,
    values: {
      xoffSrcc: s.xoff,
      xoffDcqcn: b.xoff,
      xoffReduction: fewerXoff,
      holSrcc: s.holRatio,
      holDcqcn: b.holRatio,
      afctSrccNs: afctS,
      afctDcqcnNs: afctB,
      afctReduction: afctCut,
      commonFlows: common,
      cnms,
      wallMsSrcc: s.out.wallMs,
      wallMsDcqcn: b.out.wallMs,
    },
  };
}

export const ac10Check: ReproCheck = {
  id: 'AC10',
  title: 'Directional, small-scale workload (4 leaf × 2 spine × 8 hosts, load 0.8 + bursts, 50 ms)',
  paper:
    'PAUSE rate −84…91% vs baselines (NS-3 web search), AFCT −61% vs DCQCN (testbed web server); fewer HoL-blocked flows (Figs. 5-6)',
  expected:
    'SRCC + DCQCN vs DCQCN: fewer XOFF frames (target ≥ 50% fewer), lower HoL-blocked ratio, lower AFCT; direction gated, magnitudes reported',
  run: (ctx) => ac10(ctx.outDir, ctx.seed),
};
