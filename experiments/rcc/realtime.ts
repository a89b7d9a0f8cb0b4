/**
 * Checks 2 and 3 of docs/algorithms/rcc.md in the real-time local runtime: one OS process per
 * node over UDP on 127.0.0.0/8, emulated time dilated 50× (scenarios rt-join-leave.yaml,
 * rt-incast.yaml: a small emulated testbed of 100 Mbit/s links and T_base ≈ 5.2 ms). The firmware
 * is the same; what can be observed differs: per-flow rates come from the senders' pacing-rate
 * series (RCC paces at the assigned window, so it is the fair share the receiver handed out),
 * goodput and fairness from completion times, the queue from the switch's series and counters,
 * and the mode of every flow from its receiver QP's RCC state, binned by the receiver on its
 * emulated clock (probe bins, docs/results.md "probes"). Tolerances are the real-time brackets of
 * docs/algorithms/rcc.md where it gives them.
 */
import type { RunOutput } from '../../src/runtime/run.js';
import { jainIndex } from '../../src/stats/aggregate.js';
import { seriesPoints } from '../../src/stats/results.js';
import { localRun } from '../observed-run.js';
import { keepUpNote } from '../run-health.js';
import type { ReproCheck, ReproContext, ReproOutcome } from '../types.js';
import { inT, type PhaseEvent, pathScale, phasesOf, processorSharingEnds } from './measure.js';
import { rccScenario } from './probe.js';

/** Receiver QP variables that tell RCC's mode (the algorithm's qpInspect). */
const MODE_VARS = [
  'rccInPid',
  'rccPidMessages',
  'rccPidEntryNs',
  'rccLastMsgPidEntryNs',
  'rccClass',
  'rccLastMsgClass',
];

/**
 * RCC mode of every flow's receiver QP over the run's bins: bins with a reading (the old /metrics
 * polls), the QPs seen in PID and as last-hop, and the PID entry time (emulated ns) of each flow.
 */
function modesOf(out: RunOutput) {
  const seen = {
    polls: 0,
    pidQps: new Set<number>(),
    lastHopQps: new Set<number>(),
    pidEntryNs: new Map<number, number>(),
  };
  const p = out.results.probes;
  if (p === undefined) return seen;
  for (const f of p.flows) {
    const st = f.receiverState ?? {};
    const at = (name: string, i: number) => st[name]?.[i] ?? null;
    for (let i = 0; i < p.bins; i++) {
      if (MODE_VARS.every((v) => at(v, i) === null)) continue;
      seen.polls++;
      if ((at('rccInPid', i) ?? 0) > 0 || (at('rccPidMessages', i) ?? 0) > 0) seen.pidQps.add(f.id);
      for (const c of [at('rccClass', i), at('rccLastMsgClass', i)]) {
        if (c === 2) seen.pidQps.add(f.id);
        if (c === 1) seen.lastHopQps.add(f.id);
      }
      for (const e of [at('rccPidEntryNs', i), at('rccLastMsgPidEntryNs', i)])
        if (e !== null && e >= 0 && !seen.pidEntryNs.has(f.id)) seen.pidEntryNs.set(f.id, e);
    }
  }
  return seen;
}

async function realRun(ctx: ReproContext, file: string, receiver: string, tag: string) {
  const scenario = rccScenario(file);
  const first = scenario.workload[0];
  const src = first.kind === 'flows' ? first.flows[0].src : 'h1';
  const sc = pathScale(scenario, src, receiver);
  const probes = { binNs: Math.round(sc.tNs / 4), ports: [], flows: true, qpState: MODE_VARS };
  const out = await localRun({ ...scenario, probes }, ctx, tag);
  return { out, modes: modesOf(out), sc };
}

/** Sender pacing rate of each flow at time t (the series point at or before t). */
function rateAt(out: RunOutput, flow: number, tNs: number): number {
  const pts = out.results.series.rate[String(flow)] ?? [];
  let v = Number.NaN;
  for (const [t, r] of seriesPoints(pts)) {
    if (t > tNs) break;
    v = r;
  }
  return v;
}

function pidEntries(m: ReturnType<typeof modesOf>, tNs: number): string {
  if (m.pidEntryNs.size === 0) return '';
  return ` (entered at ${[...m.pidEntryNs.values()]
    .sort((a, b) => a - b)
    .map((x) => inT(x, tNs))
    .join(', ')})`;
}

const rtCheck2: ReproCheck = {
  id: 'RT2',
  title: 'Real time: last-hop join/leave (local runtime, 100 Mbit/s, timeScale 50)',
  paper: 'as check 2 (Fig. 6)',
  expected:
    'after each join/leave every active flow paced at C/N ± 10 % [real-time bracket] within 3T; no flow enters PID; completion times within ±10 % of processor sharing at C·eff',
  async run(ctx): Promise<ReproOutcome> {
    const { out, modes, sc } = await realRun(ctx, 'rt-join-leave.yaml', 'h5', 'rt2');
    const T = sc.tNs;
    const flows = out.results.flows;
    // Events as the receiver's window assignment sees them: starts and completions.
    const ev: PhaseEvent[] = [
      ...flows.map((f) => ({ t: f.startNs, event: 'join' as const, flow: f.id })),
      ...flows
        .filter((f) => f.endNs !== null)
        .map((f) => ({ t: f.endNs!, event: 'leave' as const, flow: f.id })),
    ];
    let worstNs = 0;
    const settled: string[] = [];
    for (const ph of phasesOf(ev, out.results.durationNs)) {
      if (ph.toNs - ph.fromNs < 5 * T) continue;
      const target = sc.lineRateBps / ph.active.length;
      let at = Number.NaN;
      for (let t = ph.fromNs; t < ph.toNs - T; t += T / 4) {
        const ok = ph.active.every((i) => Math.abs(rateAt(out, i, t) - target) <= 0.1 * target);
        if (!ok) at = Number.NaN;
        else if (Number.isNaN(at)) at = t;
      }
      const s = at - ph.fromNs;
      settled.push(`${ph.event[0]}${ph.flow + 1}:${Number.isNaN(s) ? '∞' : inT(s, T)}`);
      worstNs = Math.max(worstNs, Number.isNaN(s) ? Number.POSITIVE_INFINITY : s);
    }
    const predicted = processorSharingEnds(
      flows.map((f) => ({ startNs: f.startNs, bytes: f.sizeBytes })),
      (sc.lineRateBps * sc.eff) / 8e9,
    );
    const errs = flows.map((f, i) =>
      f.endNs === null
        ? Number.POSITIVE_INFINITY
        : Math.abs(f.endNs - predicted[i]) / (predicted[i] - f.startNs),
    );
    const worstErr = Math.max(...errs);
    const a = worstNs <= 3 * T;
    const c = modes.polls > 0 && modes.pidQps.size === 0;
    const e = worstErr <= 0.1;
    return {
      measured:
        `(a) pacing at C/N ±10 %: ${settled.join(' ')} ${a ? '✓' : '✗'}; (c) ${modes.pidQps.size} QPs in PID${pidEntries(modes, T)} over ${modes.polls} bins ${c ? '✓' : '✗'}; ` +
        `(e) ends ${flows.map((f) => ((f.endNs ?? Number.NaN) / 1e6).toFixed(1)).join('/')} ms vs ${predicted.map((x) => (x / 1e6).toFixed(1)).join('/')} (worst ${(100 * worstErr).toFixed(1)} %) ${e ? '✓' : '✗'}; ` +
        `wall ${(out.wallMs / 1000).toFixed(0)} s${keepUpNote(out)}`,
      pass: a && c && e,
      values: {
        settleWorstNs: worstNs,
        pidQps: modes.pidQps.size,
        polls: modes.polls,
        fctErrWorst: worstErr,
        wallMs: out.wallMs,
      },
    };
  },
};

/** Real-time bracket of the steady-state bottleneck queue, frames (check 1, docs/algorithms/rcc.md: [≤ 4 MTU]). */
const RT_QUEUE_MTU = 4;

const rtCheck3: ReproCheck = {
  id: 'RT3',
  title: 'Real time: 8-to-1 incast from idle (local runtime, 100 Mbit/s, timeScale 50)',
  paper: 'as check 3',
  expected:
    '(a) no PID, flows seen as last-hop; (b) senders paced at C/N ± 1 MTU/T once all are seen; (c) peak ≤ 7·BDP + 8·MTU, ≤ 2 MTU [4 MTU: the real-time bracket of the steady-state queue, check 1] by 12T; (d) goodput ≥ 0.9·C·eff [real-time bracket], Jain ≥ 0.99 (from completion times)',
  async run(ctx): Promise<ReproOutcome> {
    const { out, modes, sc } = await realRun(ctx, 'rt-incast.yaml', 'h9', 'rt3');
    const T = sc.tNs;
    const n = out.results.flows.length;
    const flows = out.results.flows;
    const start = Math.min(...flows.map((f) => f.startNs));
    const end = Math.max(...flows.map((f) => f.endNs ?? out.results.durationNs));
    // (b): from 2T on (every flow's first packet has reached the receiver and its ACK is back).
    const target = sc.lineRateBps / n;
    const tol = (sc.frameBytes * 8e9) / T;
    let off = 0;
    let seen = 0;
    for (let i = 0; i < n; i++)
      for (const [t, r] of seriesPoints(out.results.series.rate[String(i)] ?? [])) {
        if (t < start + 2 * T || (flows[i].endNs !== null && t > flows[i].endNs! - T)) continue;
        seen++;
        if (Math.abs(r - target) > tol) off++;
      }
    const port = out.results.ports.find((p) => p.node === 's1' && p.port === 8);
    const peak = port?.maxQueueBytes ?? Number.NaN;
    const q = seriesPoints(out.results.series.queue['s1:8'] ?? []);
    let peakAt = 0;
    let peakSample = -1;
    for (const [t, b] of q)
      if (b > peakSample) {
        peakSample = b;
        peakAt = t;
      }
    // At this testbed's BDP a flow's window is 7.5 frames, and the one-frame overshoot of byte
    // windows (docs/algorithms/rcc.md, finding 9) leaves 3-4 frames standing: virtual time of this very scenario
    // sits at 4 MTU from 8.3T on and never at 2. The spec's bracket for the queue in steady state
    // is [≤ 4 MTU] (check 1), so real time gets that bound here too.
    const drained = q.find(([t, b]) => t > peakAt && b <= RT_QUEUE_MTU * sc.frameBytes)?.[0] ?? Number.NaN;
    const bytes = flows.reduce((x, f) => x + f.sizeBytes, 0);
    const goodput = (bytes * 8e9) / (end - start);
    const rates = flows.map((f) => (f.fctNs === null ? 0 : f.sizeBytes / f.fctNs));
    const jain = jainIndex(rates) ?? Number.NaN;
    const a = modes.polls > 0 && modes.pidQps.size === 0;
    const b = seen > 0 && off === 0;
    const c = peak <= (n - 1) * sc.bdpBytes + n * sc.frameBytes && drained - start <= (n - 1 + 5) * T;
    const d = goodput >= 0.9 * sc.lineRateBps * sc.eff && jain >= 0.99;
    return {
      measured:
        `(a) ${modes.pidQps.size} QPs in PID${pidEntries(modes, T)}, ${modes.lastHopQps.size} seen as last-hop (${modes.polls} bins) ${a ? '✓' : '✗'}; ` +
        `(b) ${off}/${seen} rate samples off C/N ${b ? '✓' : '✗'}; (c) peak ${(peak / sc.bdpBytes).toFixed(2)} BDP, ≤ ${RT_QUEUE_MTU} MTU at ${inT(drained - start, T)} ${c ? '✓' : '✗'}; ` +
        `(d) ${(goodput / 1e6).toFixed(1)} Mb/s = ${((100 * goodput) / (sc.lineRateBps * sc.eff)).toFixed(1)} % C·eff, Jain ${jain.toFixed(4)} ${d ? '✓' : '✗'}; ` +
        `wall ${(out.wallMs / 1000).toFixed(0)} s${keepUpNote(out)}`,
      pass: a && b && c && d,
      values: {
        pidQps: modes.pidQps.size,
        offRateSamples: off,
        peakBytes: peak,
        drainNs: drained - start,
        goodputBps: goodput,
        jain,
        wallMs: out.wallMs,
      },
    };
  },
};

export const realtimeChecks: ReproCheck[] = [rtCheck2, rtCheck3];
