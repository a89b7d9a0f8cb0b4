/**
 * Multipath transport checks (issue 34; docs/multipath.md "Acceptance"): spraying against
 * per-flow ECMP on the UEC reference simulator's k = 4 fat tree, recovery from a slow
 * aggregation–core link, and what reordering costs DCQCN over selective repeat and over
 * go-back-N. Every run is a scenario of scenarios/multipath/ on the virtual runtime with
 * `--set`-style overrides (experiments/multipath/runs.ts); tail checks judge the mean over a few
 * seeds. `rocelab reproduce multipath` prints them; test/runtime/multipath-repro asserts them.
 */
import { registerReproSuite } from '../registry.js';
import type { ReproCheck, ReproSuite } from '../types.js';
import { nsccSlowLink, nsccSpray } from './nscc.js';
import { incast, pct, perm, SEEDS, SLOW_LINK_KEEP, seedsOf, slowRatios, spread, tails, x } from './runs.js';

const LOSSLESS = ['defaults.switch.pfc=true', 'defaults.switch.trim=false'];
const policy = (p: string, extra: readonly string[] = []) => [`defaults.nic.paths.policy=${p}`, ...extra];

const obliviousTail: ReproCheck = {
  id: 'M1a',
  title: 'oblivious spraying: tail FCT of a 2 MB permutation on a k = 4 fat tree (DCQCN over rocev2-sr)',
  paper: 'uet-htsim: spraying reaches near-ideal permutation FCTs on a full-bisection fat tree',
  expected: `tail FCT ≤ 1.15 × ideal (mean of ${SEEDS} seeds) once the entropies outnumber a flow's packets (1024); 64 and 128 reported: oblivious's tail is the busiest link's hashed share`,
  run(ctx) {
    const [e64, e128, e1024] = [64, 128, 1024].map((n) =>
      tails(ctx, policy('oblivious', [`defaults.nic.paths.count=${n}`])),
    );
    return {
      measured: `1024 entropies ${x(e1024)}; 128 ${x(e128)}; 64 ${x(e64)} ideal`,
      pass: e1024.complete && e1024.mean <= 1.15,
      values: { tail1024: e1024.mean, tail128: e128.mean, tail64: e64.mean, max1024: e1024.max },
    };
  },
};

const repsTail: ReproCheck = {
  id: 'M1b',
  title: 'REPS spraying, one ACK per packet: tail FCT of the same permutation (DCQCN over rocev2-sr)',
  paper: 'REPS: recycling the entropies whose ACKs came back unmarked balances the paths',
  expected: `tail FCT ≤ 1.15 × ideal (mean of ${SEEDS} seeds); ACKs every 16 KB reported (REPS then recycles one entropy in four)`,
  run(ctx) {
    const reps = tails(ctx, policy('reps'));
    const coalesced = tails(ctx, policy('reps', ['defaults.nic.sackBytes=16KB']));
    return {
      measured: `${x(reps)} ideal; with ACKs every 16 KB ${x(coalesced)}`,
      pass: reps.complete && reps.mean <= 1.15,
      values: { tail: reps.mean, tailMax: reps.max, tail16KB: coalesced.mean },
    };
  },
};

const ecmpWorse: ReproCheck = {
  id: 'M1c',
  title: 'per-flow ECMP on the same permutation',
  paper: 'hash collisions of whole flows leave links shared and others idle',
  expected: 'tail FCT measurably worse than spraying (≥ 1.2 × the better of oblivious and REPS)',
  run(ctx) {
    const e = tails(ctx, policy('ecmp'));
    const best = Math.min(
      tails(ctx, policy('oblivious', ['defaults.nic.paths.count=1024'])).mean,
      tails(ctx, policy('reps')).mean,
    );
    return {
      measured: `ecmp ${x(e)} ideal vs ${best.toFixed(3)}× sprayed`,
      pass: e.complete && e.mean >= 1.2 * best,
      values: { ecmpTail: e.mean, sprayedTail: best },
    };
  },
};

const slowLink = (p: 'reps' | 'bitmap' | 'oblivious'): ReproCheck => ({
  id: p === 'reps' ? 'M2a' : p === 'bitmap' ? 'M2b' : 'M2c',
  title: `${p}: one aggregation–core link (s9–s17) at 25 % from the start (DCQCN over rocev2-sr, PFC)`,
  paper:
    'REPS / uet-htsim: adaptive spraying steers around a degraded link (reference: 1.23× on its failed-link case)',
  expected:
    p === 'oblivious'
      ? 'reported (oblivious keeps spraying onto the slow link)'
      : `tail FCT ≤ 1.25 × the tail without the slow link (mean of ${SEEDS} seeds); with the link's byte thresholds kept at 100G's reported`,
  run(ctx) {
    const scaled = slowRatios(ctx, policy(p));
    const kept = slowRatios(ctx, policy(p), SLOW_LINK_KEEP);
    return {
      measured: `${x(scaled)} the tail without it (thresholds scaled to 25 G); ${x(kept)} (kept)`,
      pass: p === 'oblivious' ? 'finding' : scaled.complete && scaled.mean <= 1.25,
      values: { ratio: scaled.mean, ratioMax: scaled.max, ratioKept: kept.mean },
    };
  },
});

const srRetransmits: ReproCheck = {
  id: 'M3',
  title: 'DCQCN over rocev2-sr + REPS: what reordering costs',
  paper: 'IRN: selective repeat takes reordering for what it is',
  expected: `retransmitted bytes ≤ 1 % of data sent (every one of ${SEEDS} seeds; ACKs every 16 KB too)`,
  run(ctx) {
    const share = (extra: string[]) =>
      spread(
        seedsOf(ctx).map((s) => {
          const m = perm(ctx, policy('reps', extra), s);
          return pct(m.retransmittedBytes, m.sentBytes);
        }),
      );
    const one = share([]);
    const coalesced = share(['defaults.nic.sackBytes=16KB']);
    const f = (s: ReturnType<typeof spread>) => `${s.mean.toFixed(3)} % (max ${s.max.toFixed(3)} %)`;
    return {
      measured: `${f(one)} resent; with ACKs every 16 KB ${f(coalesced)}`,
      pass: one.max <= 1 && coalesced.max <= 1,
      values: {
        retransmittedPct: one.mean,
        retransmittedPctMax: one.max,
        retransmittedPct16KB: coalesced.max,
      },
    };
  },
};

const gbnStorm: ReproCheck = {
  id: 'M4',
  title: 'DCQCN over rocev2-gbn + oblivious spraying: the go-back-N storm',
  paper: 'IRN §2: go-back-N turns every reordering into a rewind',
  expected: 'reported beside M3 (go-back-N resends a large share of what it sends)',
  run(ctx) {
    const seed = ctx.seed ?? 1;
    const g = perm(ctx, policy('oblivious', ['defaults.nic.transport=rocev2-gbn']), seed);
    const s = perm(ctx, policy('reps'), seed);
    const p = pct(g.retransmittedBytes, g.sentBytes);
    return {
      measured: `go-back-N: ${p.toFixed(1)} % resent (${g.retransmits} packets), tail ${g.tail.toFixed(3)}× ideal; selective repeat + REPS: ${pct(s.retransmittedBytes, s.sentBytes).toFixed(3)} %, tail ${s.tail.toFixed(3)}× (seed ${seed})`,
      pass: 'finding',
      values: { gbnRetransmittedPct: p, gbnTail: g.tail, srTail: s.tail },
    };
  },
};

const sumHosts = (
  r: ReturnType<typeof incast>,
  f: (m: NonNullable<ReturnType<typeof incast>['hosts'][number]['multipath']>) => number,
) => r.hosts.reduce((a, h) => a + (h.multipath === undefined ? 0 : f(h.multipath)), 0);

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
    const pauses = p.ports.reduce((a, q) => a + q.pfcPauseTx, 0);
    const pausedNs = p.ports.reduce((a, q) => a + q.pausedNs, 0);
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

export const multipathSuite: ReproSuite = {
  algorithm: 'multipath',
  spec: 'docs/multipath.md',
  checks: [
    obliviousTail,
    repsTail,
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
