/**
 * Dolce-RC+ checks (docs/algorithms/dolce-rc.md "Reproduction"): AC6 (the reward of Eq. 5 and the message plumbing on an
 * idle path) and AC9 (the scaled §VI-B dynamic scenario against DCQCN). Arm choices, MCTs and
 * ECN counts are read from the message ACKs the senders receive (Fig. 7b), which is exactly
 * what the sender's bandit sees.
 */
import { armRatesBps, idealMctNs, messageReward } from '../../src/cc/dolce-rc-plus/reward.js';
import { F_ARM, F_CE, F_FIRST_TX, F_MSG, F_MSG_BYTES, F_PKTS } from '../../src/cc/dolce-rc-plus/rp.js';
import { tracer } from '../../src/probe/probe.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { hostPath } from '../../src/topology/path.js';
import { isMessageStart } from '../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { memo } from '../memo.js';
import { observedRun } from '../observed-run.js';
import { inDir, type ReproCheck, type ReproContext } from '../types.js';
import { dolceScenario, windowOf, withProbes } from './probe.js';

const G = 1e9;
const MS = 1e6;

/** The message fields a Dolce-RC+ ACK echoes (Fig. 7b); null for any other frame. */
function ackRecord(pkt: Packet, nowNs: number) {
  if (pkt.kind !== FrameKind.Ack) return null;
  const f = pkt.ext?.fields;
  if (f === undefined || f === null || f[F_MSG] === undefined) return null;
  return {
    tNs: nowNs,
    msgId: f[F_MSG],
    arm: f[F_ARM] ?? -1,
    firstTxNs: f[F_FIRST_TX] ?? 0,
    msgBytes: f[F_MSG_BYTES] ?? 0,
    ce: f[F_CE] ?? 0,
    pkts: f[F_PKTS] ?? 0,
  };
}

type AckRecord = NonNullable<ReturnType<typeof ackRecord>>;

export const AC6: ReproCheck = {
  id: 'AC6',
  title: 'Dolce-RC+ reward and plumbing (idle 200 Gbps path)',
  paper:
    'Eq. (5): X = ideal_MCT/actual_MCT · (1 − ECN ratio)^i; per-message ACK echoes iteration, arm, first departure (Fig. 7)',
  expected:
    '(a) 8 KB, 200 Gbps, baseRTT 6 µs, MCT 10 µs, ECN 0.25, arm 3: X = 0.266949 ± 1e-6; (b) 1200 × 8 KB messages: arm-7 share ≥ 0.60 and arms 6+7 ≥ 0.85 for messages 500-999, measured MCT within 1 % of the true one (spec ref rewards ≈ 0.132 … 1.000, shares 0.70 / 0.91)',
  run(ctx) {
    const xa = messageReward(idealMctNs(8192, 200 * G, 6000), 10_000, 1, 4, 3);
    const scenario = dolceScenario('e3-idle-messages.yaml');
    const setup = setupRun(scenario);
    const baseRttNs = hostPath(setup.topo, setup.routes, 'h1', 'h9', 1000).baseRttNs;
    const acks: AckRecord[] = [];
    const departures = new Map<number, number>();
    const completions: number[] = [];
    const lineRateBps = scenario.defaults.link.rateBps;
    observedRun(scenario, {
      ...inDir(ctx, 'idle'),
      trace: tracer({
        nicRx: (host, now, pkt) => {
          const a = host === 'h1' ? ackRecord(pkt, now) : null;
          if (a !== null) acks.push(a);
        },
        nicTx: (host, now, pkt) => {
          if (host !== 'h1' || pkt.kind !== FrameKind.Data || !isMessageStart(pkt.opcode)) return;
          const id = pkt.ext?.fields?.[F_MSG];
          // The NIC hands a frame over when its last bit is out: its first bit left size·8/C before.
          if (id !== undefined && !departures.has(id))
            departures.set(id, now - (pkt.sizeBytes * 8e9) / lineRateBps);
        },
      }),
      nicObserver: (host) => ({
        onMessageComplete: (c) => {
          if (host === 'h1' && c.role === 'sender') completions.push(c.completeNs);
        },
      }),
    });
    const window = acks.filter((a) => a.msgId >= 500 && a.msgId < 1000);
    const share = (arms: number[]) => window.filter((a) => arms.includes(a.arm)).length / window.length;
    let worstErr = 0;
    for (const a of acks) {
      const done = completions[a.msgId];
      const dep = departures.get(a.msgId);
      if (done === undefined || dep === undefined) continue;
      const trueMct = done - dep;
      worstErr = Math.max(worstErr, Math.abs(a.tNs - a.firstTxNs - trueMct) / trueMct);
    }
    const perArm = Array.from({ length: 8 }, () => ({ n: 0, x: 0 }));
    for (const a of acks) {
      const x = messageReward(
        idealMctNs(a.msgBytes, lineRateBps, baseRttNs),
        a.tNs - a.firstTxNs,
        a.ce,
        a.pkts,
        a.arm,
      );
      perArm[a.arm].n++;
      perArm[a.arm].x += x;
    }
    const meanX = perArm.map((p) => (p.n > 0 ? p.x / p.n : Number.NaN));
    const s7 = share([7]);
    const s67 = share([6, 7]);
    const many = acks.length >= 1000 && completions.length >= 1000;
    return {
      measured: `(a) X = ${xa.toFixed(6)}; (b) ${acks.length} messages, arm-7 share ${s7.toFixed(3)}, arms 6+7 ${s67.toFixed(3)} (msgs 500-999), mean reward per arm ${meanX.map((x) => x.toFixed(3)).join(' ')}, worst MCT error ${(worstErr * 100).toFixed(3)} % over ${completions.length} messages`,
      pass: Math.abs(xa - 0.266949) <= 1e-6 && many && s7 >= 0.6 && s67 >= 0.85 && worstErr <= 0.01,
      values: { rewardA: xa, messages: acks.length, share7: s7, share67: s67, worstMctError: worstErr },
    };
  },
};

const SHORT_SENDERS = ['h4', 'h5', 'h6', 'h7', 'h8'];

/** E3 dynamic scenario, one algorithm; DCQCN gives every short flow its own QP (line-rate start). */
function measureDynamic(alg: 'dolce-rc-plus' | 'dcqcn', ctx: ReproContext) {
  const overrides = [`defaults.nic.cc=${alg}`];
  if (alg === 'dcqcn') for (let i = 1; i <= 5; i++) overrides.push(`workload[${i}].sharedQp=false`);
  // Message ACKs per short-flow sender (Dolce-RC+ only).
  const shortAcks = new Map<string, AckRecord[]>(SHORT_SENDERS.map((h) => [h, []]));
  const scenario = dolceScenario('e3-dynamic.yaml', overrides);
  const { out } = observedRun(withProbes(scenario, MS, { node: 's1', port: 8 }), {
    ...inDir(ctx, alg),
    trace: tracer({
      nicRx: (host, now, pkt) => {
        const list = shortAcks.get(host);
        const a = ackRecord(pkt, now);
        if (list !== undefined && a !== null) list.push(a);
      },
    }),
  });
  const r = out.results;
  return {
    alg,
    /** Completion of the last flow, ns (Infinity when some flow did not finish). */
    allDoneNs: r.flows.reduce((m, f) => Math.max(m, f.endNs ?? Number.POSITIVE_INFINITY), 0),
    durationNs: r.durationNs,
    utilisation: windowOf(r, [], 2 * MS, 15 * MS, scenario.defaults.link.rateBps).utilisation,
    /** [start, end] of the three long flows (end = run end when unfinished). */
    longActive: r.flows.slice(0, 3).map((f) => [f.startNs, f.endNs ?? r.durationNs] as [number, number]),
    shortAcks,
    wallMs: out.wallMs,
  };
}

type DynamicRun = ReturnType<typeof measureDynamic>;
const dynamicRuns = new Map<string, DynamicRun>();
const dynamicRun = (alg: 'dolce-rc-plus' | 'dcqcn', ctx: ReproContext) =>
  memo(dynamicRuns, `${alg}|${ctx.seed ?? ''}`, () => measureDynamic(alg, ctx));

export const AC9: ReproCheck = {
  id: 'AC9',
  title: 'Dolce-RC+ dynamic scenario vs DCQCN (scaled §VI-B)',
  paper:
    'Fig. 8: DCQCN sends short flows at high rates and hurts the long flows; Dolce-RC+ suppresses them, raises aggregate throughput and finishes all flows earlier (qualitative)',
  expected:
    "(a) each short-flow QP's mean chosen rate while long flows are active, after 1000 ACKs, ≤ C/2 (a QP with < 2000 ACKs: its second half); (b) all flows done ≤ 1.05 × DCQCN; (c) bottleneck utilisation in [2, 15] ms ≥ DCQCN − 0.05",
  run(ctx) {
    const plus = dynamicRun('dolce-rc-plus', ctx);
    const base = dynamicRun('dcqcn', ctx);
    const capacityBps = 200 * G;
    const rates = armRatesBps(8, capacityBps);
    const active = (t: number) => plus.longActive.some(([a, b]) => t >= a && t < b);
    const perQp: string[] = [];
    const values: Record<string, number | string | boolean | null> = {};
    let ratesOk = true;
    for (const h of SHORT_SENDERS) {
      const acks = plus.shortAcks.get(h) ?? [];
      const warm = Math.min(1000, Math.floor(acks.length / 2));
      const chosen = acks.slice(warm).filter((a) => active(a.firstTxNs));
      const mean = chosen.reduce((s, a) => s + rates[a.arm], 0) / Math.max(1, chosen.length);
      if (!(chosen.length > 0 && mean <= capacityBps / 2)) ratesOk = false;
      values[`${h}_acks`] = acks.length;
      values[`${h}_meanRateGbps`] = mean / G;
      perQp.push(`${h} ${(mean / G).toFixed(0)} Gbps (${chosen.length} of ${acks.length} msgs)`);
    }
    const fmtDone = (r: DynamicRun) =>
      Number.isFinite(r.allDoneNs)
        ? `${(r.allDoneNs / MS).toFixed(2)} ms`
        : `> ${(r.durationNs / MS).toFixed(0)} ms (unfinished)`;
    const doneOk = plus.allDoneNs <= 1.05 * base.allDoneNs;
    const utilOk = plus.utilisation >= base.utilisation - 0.05;
    Object.assign(values, {
      plusAllDoneMs: Number.isFinite(plus.allDoneNs) ? plus.allDoneNs / MS : null,
      dcqcnAllDoneMs: Number.isFinite(base.allDoneNs) ? base.allDoneNs / MS : null,
      plusUtilisation: plus.utilisation,
      dcqcnUtilisation: base.utilisation,
      plusWallMs: Math.round(plus.wallMs),
      dcqcnWallMs: Math.round(base.wallMs),
    });
    return {
      measured: `(a) short-QP mean rates while long flows active: ${perQp.join(', ')}; DCQCN short flows start at 200 Gbps; (b) all done: Dolce-RC+ ${fmtDone(plus)}, DCQCN ${fmtDone(base)}; (c) utilisation [2,15] ms: Dolce-RC+ ${plus.utilisation.toFixed(3)}, DCQCN ${base.utilisation.toFixed(3)}; wall ${(plus.wallMs / 1000).toFixed(1)} + ${(base.wallMs / 1000).toFixed(1)} s`,
      pass: ratesOk && doneOk && utilOk,
      values,
    };
  },
};
