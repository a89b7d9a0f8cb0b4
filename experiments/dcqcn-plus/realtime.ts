/**
 * Check A7 (docs/algorithms/dcqcn-plus.md; "DCQCN+: Taming Large-scale Incast Congestion in RDMA
 * over Ethernet Networks", §V; the spec's check A7, its cheaper N = 128 variant): the VT-10G incast as real OS
 * processes over UDP (`--runtime local`, scenarios/papers/dcqcn-plus/rt-incast-100m.yaml), once
 * per algorithm.
 *
 * Window counters come from the run's probe bins (src/probe): the switch node bins its own port
 * bytes, queue and PFC frames on its emulated clock, so the window [0.2, 0.3) s is exact in a
 * lockstep run.
 */
import { localRun } from '../observed-run.js';
import type { ReproCheck, ReproContext } from '../types.js';
import { fmtKB, paperScenario } from './measure.js';

const MS = 1e6;
const FROM_NS = 200 * MS;
const TO_NS = 300 * MS;
const BIN_NS = 10 * MS;
const SWITCH = 's1';
const BOTTLENECK_PORT = 8;

export async function rtRun(alg: string, ctx: ReproContext) {
  const scenario = {
    ...paperScenario('rt-incast-100m.yaml', [`defaults.nic.cc=${alg}`]),
    probes: { binNs: BIN_NS, ports: 'all' as const, flows: false },
  };
  const out = await localRun(scenario, ctx, `${alg}-rt`);
  const p = out.results.probes;
  if (p === undefined || p.bins * BIN_NS < TO_NS) throw new Error(`the run ended before ${TO_NS / MS} ms`);
  const [a, b] = [FROM_NS / BIN_NS, TO_NS / BIN_NS];
  const sum = (xs: number[]) => xs.slice(a, b).reduce((x, y) => x + y, 0);
  const ports = p.ports.filter((x) => x.node === SWITCH);
  const bottleneck = ports.find((x) => x.port === BOTTLENECK_PORT)!;
  const dt = TO_NS - FROM_NS;
  return {
    alg,
    meanQueueBytes: (sum(bottleneck.queueMeanBytes) * BIN_NS) / dt,
    xoff: ports.reduce((x, y) => x + sum(y.pfcXoffTx), 0),
    pauseFrames: ports.reduce((x, y) => x + sum(y.pfcPauseTx), 0),
    throughput: (sum(bottleneck.txBytes) * 8e9) / (scenario.defaults.link.rateBps * dt),
    // Lag first: it says why the emulation was not faithful; missing reports follow from it.
    keepUpWarnings: [
      ...out.results.warnings.filter((w) => /keep up/.test(w)),
      ...out.results.warnings.filter((w) => /no report/.test(w)),
    ],
    wallMs: out.wallMs,
  };
}

function describe(m: Awaited<ReturnType<typeof rtRun>>): string {
  const name = m.alg === 'dcqcn' ? 'DCQCN' : 'DCQCN+';
  const lag =
    m.keepUpWarnings.length > 0
      ? ` [${m.keepUpWarnings.length} keep-up warnings: ${m.keepUpWarnings[0]}]`
      : '';
  return `${name}: mean ${fmtKB(m.meanQueueBytes)}, ${m.xoff} XOFF (${m.pauseFrames} pause frames), throughput ${m.throughput.toFixed(3)}, wall ${(m.wallMs / 1000).toFixed(0)} s${lag}`;
}

export const realTimeCheck: ReproCheck = {
  id: 'A7',
  title: 'Real time: 128 flows, 100 Mbit/s real links (local runtime)',
  paper:
    'same physics as A1/A2 (DCQCN pinned at the PFC cap, DCQCN+ drained), scaled by s = R_l/10 Gbps (rates × s, times ÷ s)',
  expected:
    'in [0.2, 0.3) s emulated (the spec: [20, 30) s real at s = 100): DCQCN mean queue ≥ 3.5 MB and ≥ 50 XOFF; DCQCN+ mean ≤ 300 KB, 0 XOFF, throughput ≥ 0.70',
  async run(ctx) {
    const base = await rtRun('dcqcn', ctx);
    const plus = await rtRun('dcqcn-plus', ctx);
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    return {
      measured: `${describe(base)}; ${describe(plus)}`,
      pass:
        base.meanQueueBytes >= 3.5e6 &&
        base.xoff >= 50 &&
        plus.meanQueueBytes <= 300e3 &&
        plus.xoff === 0 &&
        plus.throughput >= 0.7,
      values: {
        dcqcn_meanQueueKB: Math.round(base.meanQueueBytes / 1e3),
        dcqcn_xoff: base.xoff,
        dcqcn_throughput: r3(base.throughput),
        dcqcn_keepUpWarnings: base.keepUpWarnings.length,
        plus_meanQueueKB: Math.round(plus.meanQueueBytes / 1e3),
        plus_xoff: plus.xoff,
        plus_throughput: r3(plus.throughput),
        plus_keepUpWarnings: plus.keepUpWarnings.length,
      },
    };
  },
};
