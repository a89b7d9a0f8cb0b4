/**
 * Multipath transport checks (issue 34; docs/multipath.md "Acceptance"): spraying against
 * per-flow ECMP on the UEC reference simulator's k = 4 fat tree, recovery from a slow
 * aggregation–core link, and what reordering costs DCQCN over selective repeat and over
 * go-back-N. Every run is scenarios/multipath/permutation-k4.yaml on the virtual runtime with
 * `--set`-style overrides. `rocelab reproduce multipath` prints them; test/runtime/multipath-repro
 * asserts them.
 */
import { join } from 'node:path';
import { loadScenario } from '../../src/config/load.js';
import { packageRoot } from '../../src/package-root.js';
import { runScenario } from '../../src/runtime/run.js';
import type { Results } from '../../src/stats/results.js';
import { memo } from '../memo.js';
import { registerReproSuite } from '../registry.js';
import type { ReproCheck, ReproContext, ReproSuite } from '../types.js';

const SCENARIO = join(packageRoot(), 'scenarios', 'multipath', 'permutation-k4.yaml');
const INCAST = join(packageRoot(), 'scenarios', 'multipath', 'incast32-trim.yaml');
const LOSSLESS = ['defaults.switch.pfc=true', 'defaults.switch.trim=false'];
/** The reference simulator's own set-up: NSCC over UET's delivery on a lossy, trimming fabric. */
const UET_FABRIC = [
  'defaults.switch.pfc={priorities: [4]}',
  'defaults.switch.trim=true',
  'defaults.nic.cc=nscc',
];
/** Aggregation switch 0 of pod 0 and the first core of a k = 4 fat tree (docs/topologies.md numbering). */
const SLOW_LINK = ['links=[{a: s9, b: s17, rate: 25Gbps}]'];

interface Measure {
  /** Largest FCT / ideal FCT of the permutation (the tail of 16 flows). */
  tail: number;
  tailFctNs: number;
  completed: number;
  flows: number;
  sentBytes: number;
  retransmittedBytes: number;
  retransmits: number;
}

function measure(r: Results): Measure {
  const done = r.flows.filter((f) => f.fctNs !== null);
  let sent = 0;
  let resent = 0;
  for (const h of r.hosts) {
    sent += h.multipath?.dataBytesTx ?? 0;
    resent += h.multipath?.retransmittedBytes ?? 0;
  }
  return {
    tail: Math.max(...done.map((f) => f.slowdown ?? Number.POSITIVE_INFINITY)),
    tailFctNs: Math.max(...done.map((f) => f.fctNs!)),
    completed: done.length,
    flows: r.flows.length,
    sentBytes: sent,
    retransmittedBytes: resent,
    retransmits: r.hosts.reduce((a, h) => a + h.retransmits, 0),
  };
}

const runs = new Map<string, Measure>();

/** The permutation under `policy` and `transport`, plus extra overrides; once per process. */
function perm(ctx: ReproContext, policy: string, transport = 'rocev2-sr', extra: string[] = []): Measure {
  const key = [policy, transport, ...extra].join('|');
  return memo(runs, `${key}|${ctx.seed ?? ''}`, () => {
    const scenario = loadScenario(SCENARIO, [
      `defaults.nic.paths.policy=${policy}`,
      `defaults.nic.transport=${transport}`,
      ...extra,
    ]);
    const out = runScenario({
      scenario,
      outDir: join(ctx.outDir, key.replace(/[^a-z0-9-]+/gi, '_')),
      seed: ctx.seed,
      print: null,
    });
    return measure(out.results);
  });
}

const x = (v: number) => `${v.toFixed(3)}×`;
const pct = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 0);

const sprayTail = (policy: 'oblivious' | 'reps'): ReproCheck => ({
  id: policy === 'oblivious' ? 'M1a' : 'M1b',
  title: `${policy} spraying: tail FCT of a 2 MB permutation on a k = 4 fat tree`,
  paper: 'uet-htsim: spraying reaches near-ideal permutation FCTs on a full-bisection fat tree',
  expected: 'tail FCT ≤ 1.15 × ideal (DCQCN over rocev2-sr)',
  run(ctx) {
    const m = perm(ctx, policy);
    return {
      measured: `tail ${x(m.tail)} ideal, ${m.completed}/${m.flows} flows`,
      pass: m.completed === m.flows && m.tail <= 1.15,
      values: { tail: m.tail, tailFctNs: m.tailFctNs },
    };
  },
});

const ecmpWorse: ReproCheck = {
  id: 'M1c',
  title: 'per-flow ECMP on the same permutation',
  paper: 'hash collisions of whole flows leave links shared and others idle',
  expected: 'tail FCT measurably worse than spraying (≥ 1.2 × the better of oblivious and reps)',
  run(ctx) {
    const e = perm(ctx, 'ecmp');
    const best = Math.min(perm(ctx, 'oblivious').tail, perm(ctx, 'reps').tail);
    return {
      measured: `ecmp tail ${x(e.tail)} ideal vs ${x(best)} sprayed`,
      pass: e.completed === e.flows && e.tail >= 1.2 * best,
      values: { ecmpTail: e.tail, sprayedTail: best },
    };
  },
};

const slowLink = (policy: 'reps' | 'bitmap' | 'oblivious'): ReproCheck => ({
  id: policy === 'reps' ? 'M2a' : policy === 'bitmap' ? 'M2b' : 'M2c',
  title: `${policy}: one aggregation–core link at 25 % from the start`,
  paper:
    'REPS / uet-htsim: adaptive spraying steers around a degraded link (reference: 1.23× on its failed-link case)',
  expected:
    policy === 'oblivious'
      ? 'reported (oblivious keeps spraying onto the slow link)'
      : 'tail FCT ≤ 1.25 × the tail without the slow link',
  run(ctx) {
    const base = perm(ctx, policy);
    const slow = perm(ctx, policy, 'rocev2-sr', SLOW_LINK);
    const ratio = slow.tailFctNs / base.tailFctNs;
    return {
      measured: `tail ${x(slow.tail)} ideal with the slow link, ${x(base.tail)} without: ${ratio.toFixed(3)}×`,
      pass: policy === 'oblivious' ? 'finding' : slow.completed === slow.flows && ratio <= 1.25,
      values: { tailSlow: slow.tail, tailBase: base.tail, ratio },
    };
  },
});

const srRetransmits: ReproCheck = {
  id: 'M3',
  title: 'DCQCN over rocev2-sr + reps: what reordering costs',
  paper: 'IRN: selective repeat takes reordering for what it is',
  expected: 'retransmitted bytes ≤ 1 % of data sent',
  run(ctx) {
    const m = perm(ctx, 'reps');
    const p = pct(m.retransmittedBytes, m.sentBytes);
    return {
      measured: `${p.toFixed(3)} % of ${(m.sentBytes / 1e6).toFixed(1)} MB resent (${m.retransmits} packets)`,
      pass: m.completed === m.flows && p <= 1,
      values: { retransmittedPct: p, retransmits: m.retransmits },
    };
  },
};

const gbnStorm: ReproCheck = {
  id: 'M4',
  title: 'DCQCN over rocev2-gbn + oblivious spraying: the go-back-N storm',
  paper: 'IRN §2: go-back-N turns every reordering into a rewind',
  expected: 'reported beside M3 (go-back-N resends a large share of what it sends)',
  run(ctx) {
    const g = perm(ctx, 'oblivious', 'rocev2-gbn');
    const s = perm(ctx, 'reps');
    const p = pct(g.retransmittedBytes, g.sentBytes);
    return {
      measured: `go-back-N: ${p.toFixed(1)} % resent (${g.retransmits} packets), tail ${x(g.tail)} ideal; selective repeat: ${pct(s.retransmittedBytes, s.sentBytes).toFixed(3)} %, tail ${x(s.tail)}`,
      pass: 'finding',
      values: { gbnRetransmittedPct: p, gbnTail: g.tail, srTail: s.tail },
    };
  },
};

const incastRuns = new Map<string, Results>();
const incast = (ctx: ReproContext, extra: string[]) =>
  memo(incastRuns, `${extra.join(';')}|${ctx.seed ?? ''}`, () => {
    const scenario = loadScenario(INCAST, extra);
    const dir = extra.length === 0 ? 'incast-trim' : 'incast-pfc';
    return runScenario({ scenario, outDir: join(ctx.outDir, dir), seed: ctx.seed, print: null }).results;
  });

const sumHosts = (r: Results, f: (m: NonNullable<Results['hosts'][number]['multipath']>) => number) =>
  r.hosts.reduce((a, h) => a + (h.multipath === undefined ? 0 : f(h.multipath)), 0);

const trimIncast: ReproCheck = {
  id: 'M5',
  title: '32-to-1 incast on a lossy, trimming priority (DCQCN over rocev2-sr)',
  paper: 'UET: a trimmed packet is NACKed at once and resent; nothing is lost for good',
  expected:
    'every flow completes with all its bytes; trimmed packets received = NACKs sent = NACKs received ≤ resends; header-queue overflows counted',
  run(ctx) {
    const r = incast(ctx, []);
    const s = r.summary;
    const trims = s.trims ?? 0;
    const trimmedRx = sumHosts(r, (m) => m.trimmedRx);
    const nackTx = sumHosts(r, (m) => m.nackTx);
    const nackRx = sumHosts(r, (m) => m.nackRx);
    const resent = r.hosts.reduce((a, h) => a + h.retransmits, 0);
    const headerDrops = s.headerDrops ?? 0;
    const allBytes = r.flows.every((f) => f.fctNs !== null);
    const pauses = r.ports.reduce((a, p) => a + p.pfcPauseTx, 0);
    return {
      measured: `${s.flowsCompleted}/${s.flowsTotal} flows, ${trims} trims, ${trimmedRx} trimmed received, ${nackTx}/${nackRx} NACKs sent/received, ${resent} resends, ${headerDrops} headers dropped, ${pauses} PFC pauses, goodput ${(s.goodputBps / 1e9).toFixed(1)} Gbit/s`,
      pass:
        allBytes &&
        trims > 0 &&
        trimmedRx === trims - headerDrops &&
        nackTx === trimmedRx &&
        nackRx === nackTx &&
        resent >= nackRx &&
        pauses === 0,
      values: { trims, trimmedRx, nackTx, nackRx, resent, headerDrops, goodputBps: s.goodputBps },
    };
  },
};

const pfcIncast: ReproCheck = {
  id: 'M6',
  title: 'the same incast on a lossless fabric (PFC, no trimming)',
  paper: 'trimming avoids the pauses (and their head-of-line blocking) PFC needs',
  expected: 'reported beside M5: the pauses PFC sends',
  run(ctx) {
    const p = incast(ctx, LOSSLESS);
    const t = incast(ctx, []);
    const pauses = p.ports.reduce((a, x) => a + x.pfcPauseTx, 0);
    const pausedNs = p.ports.reduce((a, x) => a + x.pausedNs, 0);
    return {
      measured: `PFC: ${pauses} pause frames, ${(pausedNs / 1e3).toFixed(0)} µs paused (Σ ports), goodput ${(p.summary.goodputBps / 1e9).toFixed(1)} Gbit/s, p99 slowdown ${p.summary.slowdownP99?.toFixed(1)}; trimming: 0 pauses, goodput ${(t.summary.goodputBps / 1e9).toFixed(1)} Gbit/s, p99 ${t.summary.slowdownP99?.toFixed(1)}`,
      pass: 'finding',
      values: {
        pfcPauses: pauses,
        pausedNs,
        pfcGoodputBps: p.summary.goodputBps,
        trimGoodputBps: t.summary.goodputBps,
      },
    };
  },
};

const nsccSpray: ReproCheck = {
  id: 'M7a',
  title: 'the reference set-up: NSCC over uet on a trimming fabric, the same permutation',
  paper: 'uet-htsim: REPS and bitmap spraying bring a permutation near ideal',
  expected: 'reps and bitmap: tail FCT ≤ 1.15 × ideal; oblivious and ecmp reported',
  run(ctx) {
    const t = (policy: string) => perm(ctx, policy, 'uet', UET_FABRIC);
    const [reps, bitmap, obl, ecmp] = [t('reps'), t('bitmap'), t('oblivious'), t('ecmp')];
    return {
      measured: `reps ${x(reps.tail)}, bitmap ${x(bitmap.tail)}, oblivious ${x(obl.tail)}, ecmp ${x(ecmp.tail)} ideal`,
      pass:
        reps.completed === reps.flows &&
        bitmap.completed === bitmap.flows &&
        Math.max(reps.tail, bitmap.tail) <= 1.15,
      values: { reps: reps.tail, bitmap: bitmap.tail, oblivious: obl.tail, ecmp: ecmp.tail },
    };
  },
};

const nsccSlowLink: ReproCheck = {
  id: 'M7b',
  title: 'the reference set-up with s9–s17 at 25 % from the start',
  paper: 'uet-htsim: 1.23× on its failed-link case',
  expected: 'reported: tail FCT with the slow link ÷ without, per policy',
  run(ctx) {
    const ratio = (policy: string) =>
      perm(ctx, policy, 'uet', [...UET_FABRIC, ...SLOW_LINK]).tailFctNs /
      perm(ctx, policy, 'uet', UET_FABRIC).tailFctNs;
    const [reps, bitmap, obl] = [ratio('reps'), ratio('bitmap'), ratio('oblivious')];
    return {
      measured: `reps ${reps.toFixed(3)}×, bitmap ${bitmap.toFixed(3)}×, oblivious ${obl.toFixed(3)}× the tail without the slow link`,
      pass: 'finding',
      values: { reps, bitmap, oblivious: obl },
    };
  },
};

export const multipathSuite: ReproSuite = {
  algorithm: 'multipath',
  spec: 'docs/multipath.md',
  checks: [
    sprayTail('oblivious'),
    sprayTail('reps'),
    ecmpWorse,
    slowLink('reps'),
    slowLink('bitmap'),
    slowLink('oblivious'),
    srRetransmits,
    gbnStorm,
    trimIncast,
    pfcIncast,
    nsccSpray,
    nsccSlowLink,
  ],
};

registerReproSuite(multipathSuite);
