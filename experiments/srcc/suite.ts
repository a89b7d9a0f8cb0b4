/**
 * SRCC's reproduction suite: the acceptance checks AC1-AC10 (docs/algorithms/srcc.md "Reproduction"; and AC1/AC2 again in
 * the real-time local runtime), measured on the scenarios of scenarios/papers/srcc. Numbers
 * quoted as "calibration" come from the spec's packet-level calibration run and are shown for
 * comparison; the gates are the spec's criteria with its tolerances.
 */
import { join } from 'node:path';
import { resolveParams } from '../../src/cc/registry.js';
import type { SrccCnmEvent, SrccCp, SrccDecision } from '../../src/cc/srcc/cp.js';
import type { SrccParams } from '../../src/cc/srcc/params.js';
import type { Scenario } from '../../src/config/scenario.js';
import { scenarioTopology } from '../../src/runtime/scenario-setup.js';
import { mean } from '../../src/stats/aggregate.js';
import type { Topology } from '../../src/topology/model.js';
import { hostPath } from '../../src/topology/path.js';
import { CnmFlag } from '../../src/wire/cnm.js';
import { FrameKind } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { memo } from '../memo.js';
import { lastHopOf } from '../ports.js';
import { paperTier, registerReproSuite } from '../registry.js';
import { inDir, type ReproCheck, type ReproOutcome, type ReproSuite } from '../types.js';
import { type Probe, probedRun, srccScenario, windowShares } from './probe.js';
import { BENCH_BASE_RTT_NS, BENCH_LINE_BPS, reactionBench } from './reaction-bench.js';
import { realtimeChecks } from './realtime.js';
import { ac10Check } from './workload.js';

const S1 = 's1-hol.yaml';
const CNM_BYTES = emulatedSizeBytes(Object.assign(createPacket(), { kind: FrameKind.Cnm }));

const us = (ns: number, digits = 2) => `${(ns / 1000).toFixed(digits)} µs`;
const gbps = (bps: number, digits = 1) => `${(bps / 1e9).toFixed(digits)} Gb/s`;

/** The link of `host` (rate and delay). */
const linkOf = (topo: Topology, host: string) => topo.byName.get(host)!.ports[0];

/** S-1 runs shared by several checks (rocelab reproduce and the test file each run them once). */
const s1Runs = new Map<string, ReturnType<typeof measureS1>>();

/** S-1, SRCC or BASE arm, with the first and last congested decision of every `switch:egress`. */
const s1Run = (arm: 'srcc' | 'dcqcn', outDir: string, seed?: number, extra: string[] = []) =>
  memo(s1Runs, `${arm}|${seed ?? ''}|${extra.join(';')}`, () => measureS1(arm, outDir, seed, extra));

function measureS1(arm: 'srcc' | 'dcqcn', outDir: string, seed: number | undefined, extra: string[]) {
  const congested = new Map<string, { firstNs: number; lastNs: number }>();
  const probe = probedRun(srccScenario(S1, [`defaults.nic.cc=${arm}`, ...extra]), {
    outDir: join(outDir, `s1-${arm}`),
    seed,
    onDecision: (d) => {
      if (!d.congested) return;
      const k = `${d.switchName}:${d.outPort}`;
      const s = congested.get(k);
      if (s === undefined) congested.set(k, { firstNs: d.nowNs, lastNs: d.nowNs });
      else s.lastNs = d.nowNs;
    },
  });
  return { probe, congested };
}

function pfcTx(p: Probe, sw: string, port: number): number {
  return p.out.results.ports.find((x) => x.node === sw && x.port === port)?.pfcPauseTx ?? 0;
}

/** Start of serialisation of the data frame a CNM names (QP by destination IP + QPN, and PSN). */
function sendTimeOf(p: Probe, node: string, c: SrccCnmEvent['body'], beforeNs: number): number | null {
  let t: number | null = null;
  for (const d of p.departures) {
    if (d.startNs > beforeNs) break;
    if (d.node === node && d.dstIp === c.flowDstIp && d.destQp === c.destQpn && d.psn === c.triggerPsn)
      t = d.startNs;
  }
  return t;
}

/** Unloaded RTT of an MTU data frame and its ACK from `src` to `dst` (src/topology/path.ts). */
function pathOf(p: Probe, src: string, dst: string) {
  return hostPath(p.topo, p.routes, src, dst, p.mtuBytes);
}

function baseRttNs(p: Probe, src = 'h1', dst = 'h9'): number {
  return pathOf(p, src, dst).baseRttNs;
}

/** The resolved srcc parameters of a scenario (its cc.srcc section). */
function srccParamsOf(s: Scenario): SrccParams {
  const sec = s.cc.srcc;
  return resolveParams('srcc', sec?.params ?? {}, sec?.profile ?? undefined) as SrccParams;
}

const ac1: ReproCheck = {
  id: 'AC1',
  title: 'Sub-RTT feedback (S-1, first CNM latency at H1)',
  paper: 'sender→hotspot→sender loop ≈ 2·N·d instead of ≥ 1 RTT (§I, §III-A)',
  expected: '2d + ser(data frame) + ser(74 B CNM) ≈ 8.09 µs ≈ 0.50 × baseRTT, ±80 ns (calibration 8.085 µs)',
  run(ctx): ReproOutcome {
    const { probe } = s1Run('srcc', ctx.outDir, ctx.seed);
    const first = probe.cnmRx.find((c) => c.node === 'h1');
    if (first === undefined) return { measured: 'no CNM reached H1', pass: false };
    const sent = sendTimeOf(probe, 'h1', first.body, first.timeNs);
    if (sent === null) return { measured: 'trigger PSN not found among H1 departures', pass: false };
    const latencyNs = first.timeNs - sent;
    const { rateBps, delayNs } = linkOf(probe.topo, 'h1');
    const frame = probe.departures.find((d) => d.node === 'h1')!.sizeBytes;
    const expectedNs = 2 * delayNs + ((frame + CNM_BYTES) * 8e9) / rateBps;
    const rtt = baseRttNs(probe);
    const rpNs = first.qp?.cnmLatencyFirstNs ?? Number.NaN;
    const toleranceNs = (1000 * 8e9) / rateBps;
    return {
      measured: `${us(latencyNs, 3)} = ${(latencyNs / rtt).toFixed(3)} × baseRTT ${us(rtt)} (expected ${us(expectedNs, 3)}; NIC's own PSN echo ${us(rpNs, 3)})`,
      pass: Math.abs(latencyNs - expectedNs) <= toleranceNs && Math.abs(rpNs - latencyNs) <= 1,
      values: { latencyNs, expectedNs, baseRttNs: rtt, ratio: latencyNs / rtt, rpLatencyNs: rpNs },
    };
  },
};

const ac2: ReproCheck = {
  id: 'AC2',
  title: 'PFC avoided on the victim-bearing port; victim protected (S-1)',
  paper: 'SRCC notifies only congested flows sharing an ingress with uncongested ones, before PFC (§III-B)',
  expected:
    'XOFF to H1: BASE ≥ 1, SRCC 0; f_v in baseRTT/4 windows over [100, 300] µs: BASE min ≤ 0.1·C, SRCC min ≥ 0.4·C (±0.05·C)',
  run(ctx): ReproOutcome {
    const srcc = s1Run('srcc', ctx.outDir, ctx.seed).probe;
    const base = s1Run('dcqcn', ctx.outDir, ctx.seed).probe;
    const { sw, port } = lastHopOf(srcc.topo, 'h1');
    const { rateBps } = linkOf(srcc.topo, 'h10');
    const win = baseRttNs(srcc) / 4;
    // f_v: H1's data arriving at R2 (h10).
    const share = (p: Probe) =>
      windowShares(
        p.deliveries.filter((d) => d.node === 'h10' && d.srcIp === p.hostIp.get('h1')),
        100_000,
        300_000,
        win,
        rateBps,
      );
    const sS = share(srcc);
    const sB = share(base);
    const xoffSrcc = pfcTx(srcc, sw, port);
    const xoffBase = pfcTx(base, sw, port);
    const pausedBaseNs = base.out.results.ports.find((p) => p.node === 'h1')!.pausedNs;
    const fvMinSrcc = Math.min(...sS);
    const fvMinBase = Math.min(...sB);
    const tailS = sS.slice(Math.floor(sS.length / 2));
    const fvLateSrcc = mean(tailS)!;
    return {
      measured:
        `XOFF→H1 BASE ${xoffBase} (H1 paused ${us(pausedBaseNs, 1)}), SRCC ${xoffSrcc}; ` +
        `f_v min BASE ${fvMinBase.toFixed(2)}·C, SRCC ${fvMinSrcc.toFixed(2)}·C (mean over [200, 300] µs ${fvLateSrcc.toFixed(2)}·C)`,
      pass: xoffBase >= 1 && xoffSrcc === 0 && fvMinBase <= 0.1 + 0.05 && fvMinSrcc >= 0.4 - 0.05,
      values: { xoffBase, xoffSrcc, pausedBaseNs, fvMinBase, fvMinSrcc, fvLateSrcc },
    };
  },
};

function countCnms(p: Probe) {
  const h1 = p.hostIp.get('h1')!;
  const r1 = p.hostIp.get('h9')!;
  const r2 = p.hostIp.get('h10')!;
  const c = { fc: 0, fv: 0, burst: 0, total: 0 };
  for (const e of p.cnmEvents) {
    if (e.type !== 'generated') continue;
    c.total++;
    if (e.body.flowSrcIp === h1 && e.body.flowDstIp === r1) c.fc++;
    else if (e.body.flowSrcIp === h1 && e.body.flowDstIp === r2) c.fv++;
    else c.burst++;
  }
  return c;
}

/** Last arrival of f_v at the switch: its last departure from H1 plus serialisation and d. */
function fvLastAtSwitchNs(p: Probe): number {
  const r2 = p.hostIp.get('h10')!;
  const { rateBps, delayNs } = linkOf(p.topo, 'h1');
  let last = Number.NEGATIVE_INFINITY;
  for (const d of p.departures)
    if (d.node === 'h1' && d.dstIp === r2) last = d.startNs + (d.sizeBytes * 8e9) / rateBps;
  return last + delayNs;
}

const ac3: ReproCheck = {
  id: 'AC3',
  title: 'Selective notification (Fig. 4 semantics), S-1 variants',
  paper: 'only congested flows sharing an ingress with uncongested ones are rate-adjusted (§III-B, Fig. 4)',
  expected:
    '(a) CNMs only to f_c (calibration 5); (b) f_v absent and (c) f_v gone > T before the burst: 0 CNMs; (d) f_v gone < T before: CNMs to f_c (calibration 4); literal victimMode: (a) also some B flows, (b) f_c',
  run(ctx): ReproOutcome {
    const tB = 100_000;
    const run = (name: string, overrides: string[]) =>
      probedRun(srccScenario(S1, ['duration=200us', ...overrides]), inDir(ctx, name));
    const fcOnly = 'workload[0].flows=[{src: h1, dst: h9, size: inf, tag: fc}]';
    const literal = 'cc.srcc.victimMode=literal';
    const a = run('a', []);
    const b = run('b', [fcOnly]);
    // f_v as a finite flow that H1 finishes about 60 µs / 20 µs before t_b (f_c and f_v share H1 round-robin).
    const c = run('c', ['workload[0].flows[1].size=212KB']);
    const d = run('d', ['workload[0].flows[1].size=470KB']);
    const la = run('literal-a', [literal]);
    const lb = run('literal-b', [fcOnly, literal]);
    const [na, nb, nc, nd, nla, nlb] = [a, b, c, d, la, lb].map(countCnms);
    const T = 3 * baseRttNs(a);
    const fvC = tB - fvLastAtSwitchNs(c);
    const fvD = tB - fvLastAtSwitchNs(d);
    const premise = fvC > T && fvD > 0 && fvD < T;
    const abc = na.fc > 0 && na.fv === 0 && na.burst === 0 && nb.total === 0 && nc.total === 0;
    const pass = premise && abc && nd.fc > 0 && nd.fv + nd.burst === 0 && nla.burst > 0 && nlb.fc > 0;
    return {
      measured:
        `(a) f_c ${na.fc}, f_v ${na.fv}, B ${na.burst}; (b) ${nb.total}; (c) ${nc.total} (f_v last at SW t_b − ${us(fvC, 1)}); ` +
        `(d) f_c ${nd.fc}, others ${nd.fv + nd.burst} (t_b − ${us(fvD, 1)}); T = ${us(T, 1)}; ` +
        `literal: (a) f_c ${nla.fc}, B ${nla.burst}; (b) f_c ${nlb.fc}`,
      pass,
      values: {
        aFc: na.fc,
        aFv: na.fv,
        aBurst: na.burst,
        bTotal: nb.total,
        cTotal: nc.total,
        dFc: nd.fc,
        dOthers: nd.fv + nd.burst,
        literalABurst: nla.burst,
        literalBFc: nlb.fc,
        fvGoneBeforeBurstCNs: fvC,
        fvGoneBeforeBurstDNs: fvD,
        victimWindowNs: T,
      },
    };
  },
};

const ac4: ReproCheck = {
  id: 'AC4',
  title: 'Threshold = Eq. 6 (m = 2, M = 2, N = 1, static Q_PFC 400 KB)',
  paper: 'Q_cth = Q_PFC/M − N_TTL·d·C·(m − 1) (Eq. 6)',
  expected:
    'Q_cth logged = 150 000 B; no CNM while Q_e ≤ Q_cth; first CNM with Q_e ∈ (150 000, 150 000 + 1 frame] at the first f_c arrival after the fluid crossing t_H2 + Q_cth/(C/2) ±0.1 µs (calibration 127.9 µs); targetRateKbps = 50 000 000',
  run(ctx): ReproOutcome {
    const qcth = new Set<number>();
    let violations = 0;
    let decisions = 0;
    const scenario = srccScenario('s1-threshold.yaml');
    const toR1 = lastHopOf(scenarioTopology(scenario), 'h2').port;
    const probe = probedRun(scenario, {
      ...ctx,
      onDecision: (d: SrccDecision) => {
        if (d.outPort !== toR1) return;
        if (d.flows === 2 && d.egressPorts === 2 && d.hops === 1) qcth.add(d.qCthBytes);
        decisions++;
        if (d.cnm === 'sent' && !(d.queueBytes > d.qCthBytes)) violations++;
      },
    });
    const { rateBps, delayNs } = linkOf(probe.topo, 'h1');
    const qPfc = 400_000;
    const expectedQcth = qPfc / 2 - ((rateBps * delayNs) / 8e9) * 1 * (2 - 1);
    const gen = probe.cnmEvents.filter((e) => e.type === 'generated');
    const first = gen[0];
    if (first === undefined) return { measured: 'no CNM generated', pass: false };
    const q = first.body.qLenBytes;
    const t = first.nowNs;
    // Fluid model: from H2's first frame at the switch the queue grows at C/2 (f_c C/2 + H2 C − C).
    const h2 = probe.departures.find((d) => d.node === 'h4');
    const dataFrame = h2?.sizeBytes ?? Number.NaN;
    const tH2 = (h2?.startNs ?? Number.NaN) + (dataFrame * 8e9) / rateBps + delayNs;
    const tFluid = tH2 + expectedQcth / (rateBps / 2 / 8e9);
    const fcGapNs = (dataFrame * 8e9) / (rateBps / 2);
    const logged = [...qcth];
    const logOk = logged.length === 1 && logged[0] === expectedQcth && violations === 0;
    const qOk = gen.every((e) => e.body.qLenBytes > expectedQcth) && q > expectedQcth;
    const tOk = q <= expectedQcth + dataFrame && t >= tFluid - 100 && t <= tFluid + fcGapNs + 100;
    const pass = logOk && qOk && tOk && first.body.targetRateKbps === 50_000_000;
    return {
      measured:
        `Q_cth logged ${logged.join(', ')} B (raw ${first.body.qCthRaw}); first CNM at ${us(t, 3)} (fluid crossing ${us(tFluid, 3)}) with Q_e ${q} B, ` +
        `target ${first.body.targetRateKbps} kbit/s; ${gen.length} CNMs, all with Q_e > Q_cth (${decisions} decisions checked)`,
      pass,
      values: {
        qCthLogged: logged[0] ?? null,
        expectedQcth,
        firstCnmNs: t,
        fluidCrossingNs: tFluid,
        firstCnmQueueBytes: q,
        targetRateKbps: first.body.targetRateKbps,
      },
    };
  },
};

const ac5: ReproCheck = {
  id: 'AC5',
  title: 'NIC reset semantics (min rule, pre-cut RT, hold, CNP hold, pacing, unknown flow)',
  paper: 'the sender resets the rate to the target; with several CNMs the minimal bottleneck target (§III-E)',
  expected:
    'RC 30 → 20 → 20 Gb/s (RT 100 then 30; the 40 Gb/s CNM only restarts the increase timer); 2nd QP ends at 20; 3rd QP: CNP at +0.5 baseRTT only updates α, at +2 baseRTT cuts; next departure ∈ [lastStart + frame/RC_new, +1 frame time]; unknown flow id: no change, counter + 1',
  run(): ReproOutcome {
    const G = 1e9;
    const fails: string[] = [];
    const expectEq = (what: string, got: number, want: number) => {
      if (Math.abs(got - want) > 1e-6 * Math.max(1, Math.abs(want))) fails.push(`${what} ${got} ≠ ${want}`);
    };
    // QP 1: 30, 20, 40 Gb/s, one CNM with a wrong flow id, one for an unknown QP.
    const a = reactionBench();
    const times = [10_000, 20_000, 30_000];
    a.cnm(times[0], 30 * G);
    a.cnm(times[1], 20 * G);
    a.cnm(times[2], 40 * G);
    a.cnm(35_000, 1 * G, 1);
    a.strayCnm(36_000);
    const snaps: Record<string, number>[] = [];
    for (const t of [...times, 35_000]) a.sched.setTimer(t, () => snaps.push(a.inspect()));
    a.sched.run(200_000);
    expectEq('RC after 30G', snaps[0].rcBps, 30 * G);
    expectEq('RT after 30G', snaps[0].rtBps, 100 * G);
    expectEq('RC after 20G', snaps[1].rcBps, 20 * G);
    expectEq('RT after 20G', snaps[1].rtBps, 30 * G);
    expectEq('RC after 40G', snaps[2].rcBps, 20 * G);
    expectEq('RT after 40G', snaps[2].rtBps, 30 * G);
    expectEq('RC after a wrong flow id', snaps[3].rcBps, 20 * G);
    expectEq('unknown-flow counter', a.nic.ccCounters().srccCnmUnknownFlow ?? 0, 1);
    expectEq('NIC malformed (CNM for no QP)', a.nic.counters().malformed, 1);
    // The 40 Gb/s CNM restarted the increase timer: the first increase comes one period after it.
    const firstIncrease = a.rates.find((r) => r.why.startsWith('timer'));
    expectEq('first increase time', firstIncrease?.timeNs ?? -1, times[2] + 55_000);
    expectEq('first increase rate (FR to RT 30)', firstIncrease?.rateBps ?? -1, 25 * G);
    // Pacing right after each applied CNM.
    for (const [i, t] of times.slice(0, 2).entries()) {
      const rc = [30 * G, 20 * G][i];
      const before = a.departures.filter((d) => d.startNs <= t).at(-1)!;
      const next = a.departures.find((d) => d.startNs > t)!;
      const earliest = before.startNs + (before.sizeBytes * 8e9) / rc;
      const slack = next.startNs - earliest;
      // Departure times are taken at whole-ns timer ticks: ±1 ns.
      if (slack < -1 || slack > (before.sizeBytes * 8e9) / BENCH_LINE_BPS + 1)
        fails.push(`departure after CNM ${i + 1} at +${slack.toFixed(1)} ns from lastStart + frame/RC`);
    }
    // QP 2: 20 then 30 Gb/s (two switches): the minimum wins.
    const b = reactionBench();
    b.cnm(10_000, 20 * G);
    b.cnm(12_000, 30 * G);
    b.sched.run(20_000);
    expectEq('2nd QP RC', b.inspect().rcBps, 20 * G);
    // QP 3: CNM, then CNPs at +0.5 and +2 base RTTs (alpha0 0.5 so the α update shows).
    const c = reactionBench({ alpha0: 0.5 });
    const t0 = 10_000;
    c.cnm(t0, 30 * G);
    c.cnp(t0 + BENCH_BASE_RTT_NS / 2);
    c.cnp(t0 + 2 * BENCH_BASE_RTT_NS);
    const s3: Record<string, number>[] = [];
    c.sched.setTimer(t0 + BENCH_BASE_RTT_NS / 2, () => s3.push(c.inspect()));
    c.sched.setTimer(t0 + 2 * BENCH_BASE_RTT_NS, () => s3.push(c.inspect()));
    c.sched.run(t0 + 3 * BENCH_BASE_RTT_NS);
    const g = 1 / 256;
    const alpha1 = (1 - g) * 0.5 + g;
    expectEq('3rd QP RC after held CNP', s3[0].rcBps, 30 * G);
    expectEq('3rd QP RT after held CNP', s3[0].rtBps, 100 * G);
    expectEq('3rd QP α after held CNP', s3[0].alpha, alpha1);
    expectEq('3rd QP RC after the late CNP', s3[1].rcBps, 30 * G * (1 - alpha1 / 2));
    expectEq('3rd QP RT after the late CNP', s3[1].rtBps, 30 * G);
    expectEq('3rd QP held CNPs', s3[1].cnpHeld, 1);
    return {
      measured:
        fails.length === 0
          ? `RC 30 → 20 → 20 Gb/s, RT 100 → 30 → 30; increase ${us((firstIncrease?.timeNs ?? 0) - times[2], 0)} after the 40 Gb/s CNM; ` +
            `min rule 20 Gb/s; held CNP: α ${alpha1.toFixed(5)}, RC kept; late CNP: RC ${gbps(s3[1].rcBps, 2)}; pacing within one frame; unknown id counted`
          : fails.join('; '),
      pass: fails.length === 0,
    };
  },
};

const FA_SRC = 'h1';
const FA_DST = 'h3';

const ac6: ReproCheck = {
  id: 'AC6',
  title: 'Hop-by-hop reverse routing and N_TTL (2-tier H_a–L1–Sp–L2–R)',
  paper: 'CNMs go hop by hop by MAC through every switch’s flow table (§III-D)',
  expected:
    'CP = L2 with nHops 3; relayed by Sp and L1 (hopsTraversed 2 at H_a), 100% to the right QP, 0 misrouted; latency 6d + 3·ser(MTU) + 3·ser(CNM) ≈ 24.26 µs ±0.5 µs and < 0.8 × baseRTT; N_TTL 1/2/3 at L1/Sp/L2; entry deleted at Sp: CNM dropped, cnmNoEntry + 1 (delivered with the IP fallback)',
  run(ctx): ReproOutcome {
    const hopsSeen = new Map<string, Set<number>>();
    const scenario = srccScenario('s6-two-tier.yaml');
    const topo = scenarioTopology(scenario);
    const faIp = topo.byName.get(FA_SRC)!.ip;
    const rIp = topo.byName.get(FA_DST)!.ip;
    const main = probedRun(scenario, {
      ...inDir(ctx, 'main'),
      onDecision: (d) => {
        if (d.srcIp !== faIp || d.dstIp !== rIp) return;
        let s = hopsSeen.get(d.switchName);
        if (s === undefined) hopsSeen.set(d.switchName, (s = new Set()));
        s.add(d.hops);
      },
    });
    const gen = main.cnmEvents.filter((e) => e.type === 'generated');
    const relayed = main.cnmEvents.filter((e) => e.type === 'relayed');
    const rx = main.cnmRx;
    const atHa = rx.filter((c) => c.node === FA_SRC);
    const misrouted =
      rx.length - atHa.length + atHa.filter((c) => c.qp === null || c.body.flowDstIp !== rIp).length;
    const noEntry = main.cnmEvents.filter((e) => e.type === 'noEntry').length;
    const cps = new Set(gen.map((e) => `${e.switchName}/${e.body.nHops}`));
    const relayers = new Set(relayed.map((e) => e.switchName));
    const first = atHa[0];
    let latencyNs = Number.NaN;
    let pathFormulaNs = Number.NaN;
    let rtt = Number.NaN;
    if (first !== undefined) {
      latencyNs = first.timeNs - (sendTimeOf(main, FA_SRC, first.body, first.timeNs) ?? Number.NaN);
      // Forward: H_a→L1→Sp→L2 (data frame); back: L2→Sp→L1→H_a (CNM), at each link's rate.
      const frame = main.departures.find((d) => d.node === FA_SRC)!.sizeBytes;
      // The CP is L2, the third switch-side link of H_a's path: 3 links forward, 3 back.
      const path = pathOf(main, FA_SRC, FA_DST);
      pathFormulaNs = path.links
        .slice(0, 3)
        .reduce((a, l) => a + 2 * l.delayNs + ((frame + CNM_BYTES) * 8e9) / l.rateBps, 0);
      rtt = path.baseRttNs;
    }
    // Fault injection: delete f_a's entry at the spine when its first CNM arrives there.
    const fault = (fallback: boolean) => {
      let armed = true;
      return probedRun(srccScenario('s6-two-tier.yaml', fallback ? ['cc.srcc.cnmIpFallback=true'] : []), {
        ...inDir(ctx, fallback ? 'fault-fallback' : 'fault'),
        wrapCp: (name, cp: SrccCp) =>
          name !== 's2'
            ? cp
            : {
                name: cp.name,
                onIngress(pkt, inPort, outPort) {
                  const c = pkt.cnm;
                  if (armed && pkt.kind === FrameKind.Cnm && c !== null) {
                    armed = false;
                    cp.forgetFlow(c.flowSrcIp, c.flowSrcPort, c.flowDstIp, c.destQpn);
                  }
                  return cp.onIngress(pkt, inPort, outPort);
                },
              },
      });
    };
    const f1 = fault(false);
    const f2 = fault(true);
    const noEntryAfterFault = f1.switches.get('s2')!.switchCounters().cp.srccCnmNoEntry ?? 0;
    const firstGenF1 = f1.cnmEvents.find((e) => e.type === 'generated')!;
    const droppedF1 = !f1.cnmRx.some((c) => c.body.cpTimestampNs === firstGenF1.body.cpTimestampNs);
    const firstGenF2 = f2.cnmEvents.find((e) => e.type === 'generated')!;
    const viaIp = f2.cnmRx.find((c) => c.body.cpTimestampNs === firstGenF2.body.cpTimestampNs);
    const fallbackOk =
      viaIp !== undefined && (viaIp.body.flags & CnmFlag.FallbackIpRouted) !== 0 && viaIp.node === FA_SRC;
    const hopsText = ['s1', 's2', 's3']
      .map((s) => `${s}:${[...(hopsSeen.get(s) ?? [])].join('/')}`)
      .join(' ');
    const hopsOk = hopsText === 's1:1 s2:2 s3:3';
    const routed = gen.length > 0 && [...cps].join() === 's3/3' && relayers.has('s2') && relayers.has('s1');
    const atHaOk =
      atHa.length === gen.length && atHa.every((c) => c.body.hopsTraversed === 2) && misrouted === 0;
    const timed = noEntry === 0 && Math.abs(latencyNs - 24_260) <= 500 && latencyNs < 0.8 * rtt;
    const pass = routed && atHaOk && timed && hopsOk && noEntryAfterFault === 1 && droppedF1 && fallbackOk;
    return {
      measured:
        `${gen.length} CNMs from ${[...cps].join(', ')} (switch/nHops), relayed by ${[...relayers].sort().join('+')}, ` +
        `${atHa.length} at H_a (hopsTraversed ${[...new Set(atHa.map((c) => c.body.hopsTraversed))].join('/')}), misrouted ${misrouted}; ` +
        `latency ${us(latencyNs, 3)} (path formula ${us(pathFormulaNs, 3)}) = ${(latencyNs / rtt).toFixed(3)} × baseRTT ${us(rtt)}; ` +
        `N_TTL ${hopsText}; fault: cnmNoEntry ${noEntryAfterFault}, CNM ${droppedF1 ? 'dropped' : 'delivered'}; with IP fallback ${fallbackOk ? 'delivered' : 'not delivered'}`,
      pass,
      values: { cnms: gen.length, misrouted, latencyNs, pathFormulaNs, baseRttNs: rtt, noEntryAfterFault },
    };
  },
};

function departureDigest(p: Probe): { n: number; hash: number } {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    h ^= x & 0xffffffff;
    h = Math.imul(h, 0x01000193) >>> 0;
    h ^= Math.floor(x / 2 ** 32);
    h = Math.imul(h, 0x01000193) >>> 0;
  };
  for (const d of p.departures) {
    mix(Math.round(d.startNs * 1000));
    mix(d.psn);
    mix(d.destQp);
    mix(d.dstIp);
  }
  return { n: p.departures.length, hash: h };
}

const ac7: ReproCheck = {
  id: 'AC7',
  title: 'No-op without congestion (S-1 without bursts, 10 ms)',
  paper: 'SRCC acts only when a queue exceeds Q_cth (§III-B)',
  expected: 'zero CNMs; every NIC departure and every switch queue trace bit-identical to SRCC disabled',
  run(ctx): ReproOutcome {
    const noBurst = [
      'duration=10ms',
      'workload=[{kind: flows, flows: [{src: h1, dst: h9, size: inf}, {src: h1, dst: h10, size: inf}]}]',
    ];
    const arm = (cc: string) =>
      probedRun(srccScenario(S1, [...noBurst, `defaults.nic.cc=${cc}`]), inDir(ctx, cc));
    const s = arm('srcc');
    const b = arm('dcqcn');
    const ds = departureDigest(s);
    const db = departureDigest(b);
    const sameDepartures =
      ds.n === db.n &&
      s.departures.every((d, i) => {
        const e = b.departures[i];
        return d.startNs === e.startNs && d.psn === e.psn && d.destQp === e.destQp && d.dstIp === e.dstIp;
      });
    const sameQueues =
      JSON.stringify(s.out.results.series.queue) === JSON.stringify(b.out.results.series.queue) &&
      JSON.stringify(s.out.results.ports) === JSON.stringify(b.out.results.ports);
    const cnms = s.out.results.ports.reduce((a, p) => a + p.cnmTx, 0) + s.cnmEvents.length;
    return {
      measured: `${cnms} CNMs; ${ds.n} departures, ${sameDepartures ? 'identical' : 'DIFFERENT'} (digest ${ds.hash.toString(16)} / ${db.hash.toString(16)}); switch queues and port counters ${sameQueues ? 'identical' : 'DIFFERENT'}`,
      pass: cnms === 0 && sameDepartures && sameQueues && ds.n > 0,
      values: { cnms, departures: ds.n, sameDepartures, sameQueues },
    };
  },
};

const ac8: ReproCheck = {
  id: 'AC8',
  title: 'CNM overhead bounded (S-1)',
  paper: 'CNMs are small control frames (QCN-like, §III-D)',
  expected:
    '≤ 1 CNM per (switch, flow) in any τ_cnm = 2·N·d window; CNM bytes on SW→H1 ≤ 1% of C over the congestion episode (calibration 5 × 74 B in ≈ 40 µs ≈ 0.07%)',
  run(ctx): ReproOutcome {
    const { probe, congested } = s1Run('srcc', ctx.outDir, ctx.seed);
    const { sw, port } = lastHopOf(probe.topo, 'h1');
    const r1 = lastHopOf(probe.topo, 'h9');
    const { rateBps, delayNs } = linkOf(probe.topo, 'h1');
    const byFlow = new Map<string, SrccCnmEvent[]>();
    for (const e of probe.cnmEvents) {
      if (e.type !== 'generated') continue;
      const k = `${e.switchName}|${e.body.flowSrcIp}|${e.body.flowSrcPort}|${e.body.flowDstIp}|${e.body.destQpn}`;
      const l = byFlow.get(k) ?? [];
      l.push(e);
      byFlow.set(k, l);
    }
    let minGapNs = Number.POSITIVE_INFINITY;
    let violations = 0;
    for (const l of byFlow.values())
      for (let i = 1; i < l.length; i++) {
        const gap = l[i].nowNs - l[i - 1].nowNs;
        minGapNs = Math.min(minGapNs, gap);
        if (gap < 2 * l[i].body.nHops * delayNs) violations++;
      }
    const cnmTx = probe.out.results.ports.find((p) => p.node === sw && p.port === port)!.cnmTx;
    const span = congested.get(`${r1.sw}:${r1.port}`);
    const episodeNs = span === undefined ? 0 : span.lastNs - span.firstNs;
    const share = episodeNs > 0 ? (cnmTx * CNM_BYTES * 8e9) / episodeNs / rateBps : Number.NaN;
    return {
      measured: `${cnmTx} CNMs (${cnmTx * CNM_BYTES} B) on SW→H1 over a ${us(episodeNs, 1)} episode = ${(share * 100).toFixed(3)}% of C; min gap per flow ${Number.isFinite(minGapNs) ? us(minGapNs, 2) : '—'}`,
      pass: cnmTx > 0 && violations === 0 && share <= 0.01,
      values: { cnmTx, episodeNs, share, minGapNs: Number.isFinite(minGapNs) ? minGapNs : null, violations },
    };
  },
};

/** f_c's trajectory after the CNMs: RT/RC snapshots per CNM and the first increases after the last one. */
function recovery(p: Probe) {
  const C = linkOf(p.topo, 'h1').rateBps;
  const r1 = p.hostIp.get('h9')!;
  const atH1 = p.cnmRx.filter((c) => c.node === 'h1' && c.body.flowDstIp === r1 && c.qp !== null);
  const qpn = atH1[0]?.qp?.qpn ?? -1;
  const lastNs = atH1.at(-1)?.timeNs ?? Number.NaN;
  const after = p.rateChanges.filter((r) => r.node === 'h1' && r.qpn === qpn && r.timeNs > lastNs);
  const back = after.find((r) => r.rateBps >= 0.45 * C);
  return { C, atH1, lastNs, firstAfter: after[0], backNs: back?.timeNs ?? Number.NaN };
}

const ac9: ReproCheck = {
  id: 'AC9',
  title: 'Hand-off to the end-to-end CC (recovery), standalone (ECN/CNP off)',
  paper: 'SRCC is compatible with the end-to-end CC for long-term congestion (§III-E)',
  expected:
    'RT = C after the first CNM; later CNMs (C/8 ≥ RC) change nothing; first increase sets RC = (C/8 + C)/2 = 0.5625·C; f_c ≥ 0.45·C within 1 increase period after the last CNM (±1 period); no extra XOFF to H1',
  run(ctx): ReproOutcome {
    const sa = s1Run('srcc', ctx.outDir, ctx.seed, ['defaults.switch.ecn=false']).probe;
    const period = srccParamsOf(srccScenario(S1)).rateIncreasePeriodNs;
    const r = recovery(sa);
    const { sw, port } = lastHopOf(sa.topo, 'h1');
    const xoff = pfcTx(sa, sw, port);
    const first = r.atH1[0]?.qp ?? undefined;
    const later = r.atH1.slice(1).map((c) => c.qp!);
    const firstOk = first !== undefined && first.rtBps === r.C && Math.abs(first.rcBps - r.C / 8) < 1;
    const laterOk = later.every((q) => q.rtBps === r.C && Math.abs(q.rcBps - r.C / 8) < 1);
    const inc = r.firstAfter;
    const incOk = inc !== undefined && Math.abs(inc.rateBps - 0.5625 * r.C) < 1;
    const backIn = r.backNs - r.lastNs;
    const backOk = backIn <= 2 * period;
    // Observation only: the same with DCQCN's ECN/CNP on (the S-1 SRCC arm).
    const on = s1Run('srcc', ctx.outDir, ctx.seed).probe;
    const ro = recovery(on);
    const xoffOn = pfcTx(on, sw, port);
    const held = on.nics.get('h1')!.ccCounters().srccCnpHeld ?? 0;
    return {
      measured:
        `${r.atH1.length} CNMs to f_c; after the first RC ${gbps(first?.rcBps ?? 0)} RT ${gbps(first?.rtBps ?? 0)}; later ones ${laterOk ? 'no change' : 'CHANGED'}; ` +
        `first increase ${us((inc?.timeNs ?? 0) - r.lastNs, 1)} after the last CNM to ${gbps(inc?.rateBps ?? 0, 2)}; ≥ 0.45·C after ${us(backIn, 1)}; XOFF→H1 ${xoff}. ` +
        `With ECN/CNP on (observation): ≥ 0.45·C after ${us(ro.backNs - ro.lastNs, 1)}, ${held} CNPs held, XOFF→H1 ${xoffOn}`,
      pass: r.atH1.length > 0 && firstOk && laterOk && incOk && backOk && xoff === 0,
      values: {
        cnms: r.atH1.length,
        backAfterLastCnmNs: backIn,
        xoff,
        ecnOnBackNs: ro.backNs - ro.lastNs,
        ecnOnCnpHeld: held,
        ecnOnXoff: xoffOn,
      },
    };
  },
};

export const srccSuite: ReproSuite = {
  algorithm: 'srcc',
  spec: 'docs/algorithms/srcc.md',
  checks: [ac1, ac2, ac3, ac4, ac5, ac6, ac7, ac8, ac9, ...paperTier(ac10Check, ...realtimeChecks)],
};

registerReproSuite(srccSuite);
