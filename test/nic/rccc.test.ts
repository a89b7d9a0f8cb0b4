/**
 * RCCC (nic/rccc) against the UET brief (../shared/papers/uet.md "RCCC") and the reference
 * simulator's UecPullPacer / UecSink::pull / UecSrc credit / OversubscribedCC, on a hand clock.
 * 100 Gbit/s, 4096-byte MSS: a pull grants 4 × 4096 B = 64 quanta of 256 B and takes
 * 64 · 256 · 8 / 100 Gbit/s / 0.99 = 1 323.96 ns, so credit flows at 99 % of the line rate.
 */
import { describe, expect, it } from 'vitest';
import { OversubscriptionControl } from '../../nic/rccc/oversubscription.js';
import { PullPacer, RcccSink } from '../../nic/rccc/pull-pacer.js';
import { RcccCredit } from '../../nic/rccc/sender-credit.js';
import { creditPerPullQuanta, minRelativeRate, RCCC_DEFAULTS } from '../../nic/rccc/settings.js';
import { HandTimers } from '../../src/cc/testing/index.js';
import { createRng } from '../../src/env/rng.js';

const MSS = 4096;
const PULL_Q = 64;
const PULL_NS = (PULL_Q * 256 * 8) / 100 / 0.99;
const MAXWND = 262_500;

function pacer() {
  const timers = new HandTimers<string>();
  const pulls: { t: number; qpn: number; pull: number; slow: boolean }[] = [];
  const p = new PullPacer(
    {
      lineRateBps: 100e9,
      pullRate: RCCC_DEFAULTS.pullRate,
      creditPerPullQuanta: creditPerPullQuanta(RCCC_DEFAULTS, MSS),
    },
    {
      now: () => timers.nowNs,
      setTimer: (at) => timers.set('pull', at, () => p.onTimer()),
      sendPull: (sink, pull, slow) => pulls.push({ t: timers.nowNs, qpn: sink.qpn, pull, slow }),
    },
  );
  return { p, timers, pulls };
}

describe('RCCC pull pacer', () => {
  it('grants 4 MTU per pull, round-robin over active senders, at 99 % of the line rate', () => {
    const { p, timers, pulls } = pacer();
    expect(creditPerPullQuanta(RCCC_DEFAULTS, MSS)).toBe(PULL_Q);
    const sinks = [1, 2, 3].map((q) => new RcccSink(q, MAXWND));
    for (const s of sinks) p.onPullTarget(s, 10 * PULL_Q);
    timers.advance(6 * PULL_NS - 1);
    const first = pulls.slice(0, 6);
    expect(first.map((x) => x.qpn)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(first.map((x) => x.pull)).toEqual([64, 64, 64, 128, 128, 128]);
    expect(first.every((x) => !x.slow)).toBe(true);
    for (const [i, x] of first.entries()) expect(x.t).toBeCloseTo(i * PULL_NS, 6);
    // credit rate: 64 quanta · 256 B · 8 per PULL_NS = 99 Gbit/s
    expect((PULL_Q * 256 * 8) / PULL_NS).toBeCloseTo(99, 9);
  });

  it('never grants beyond the target; then slow pulls up to one maxwnd of credit, and stops', () => {
    const { p, timers, pulls } = pacer();
    const s = new RcccSink(7, MAXWND);
    p.onPullTarget(s, 100); // 1 full pull + 36 quanta
    timers.advance(1e6);
    const fast = pulls.filter((x) => !x.slow);
    expect(fast.map((x) => x.pull)).toEqual([64, 100]);
    // the short pull paces for its own 36 quanta
    const slow = pulls.filter((x) => x.slow);
    expect(slow[0].t - fast[1].t).toBeCloseTo((36 * PULL_NS) / 64, 6);
    // slow pulls: +64 each while the credit beyond the target is below floor(262 500 / 256) = 1025
    expect(slow.map((x) => x.pull - 100)).toEqual(Array.from({ length: 17 }, (_, i) => 64 * (i + 1)));
    expect(s.slowCredit()).toBe(17 * 64); // 1088 ≥ 1025: removed
    expect(s.inPull || s.inSlowPull).toBe(false);
    expect(p.queued()).toEqual({ active: 0, idle: 0 });
    const n = pulls.length;
    timers.advance(2e6);
    expect(pulls.length).toBe(n); // the pacer went quiet
  });

  it('a new target of an idle sender makes it active again; a stale target is ignored', () => {
    const { p, timers, pulls } = pacer();
    const s = new RcccSink(1, MAXWND);
    p.onPullTarget(s, 64);
    timers.advance(PULL_NS / 2);
    expect(s.inSlowPull).toBe(true);
    p.onPullTarget(s, 32); // behind what was granted: nothing
    expect(s.highestPullTarget).toBe(64);
    p.onPullTarget(s, 64 + 5 * 64);
    expect(s.inPull).toBe(true);
    timers.advance(10 * PULL_NS);
    expect(pulls.filter((x) => !x.slow).map((x) => x.pull)).toEqual([64, 128, 192, 256, 320, 384]);
  });

  it('a trimmed packet puts its sender in the queue even with no new target', () => {
    const { p, timers, pulls } = pacer();
    const s = new RcccSink(3, MAXWND);
    p.onRetransmitNeeded(s);
    expect(s.inPull).toBe(true);
    timers.advance(0);
    // nothing was asked for: a zero grant, then the sender moves to slow pulls
    expect(pulls[0]).toMatchObject({ qpn: 3, pull: 0, slow: false });
    timers.advance((4 * PULL_NS) / 64);
    expect(pulls[1]).toMatchObject({ qpn: 3, pull: 64, slow: true });
  });

  it('the relative rate stretches the gaps', () => {
    const { p, timers, pulls } = pacer();
    p.setRelativeRate(0.5);
    const s = new RcccSink(1, MAXWND);
    p.onPullTarget(s, 3 * PULL_Q);
    timers.advance(10 * PULL_NS);
    expect(pulls[1].t - pulls[0].t).toBeCloseTo(2 * PULL_NS, 6);
  });
});

describe('RCCC sender credit', () => {
  it('speculative start: one maxwnd of credit; the first answer forfeits what is left', () => {
    const c = new RcccCredit(MAXWND);
    c.start();
    expect(c.canSend()).toBe(true);
    for (let i = 0; i < 10; i++) c.spend(4150);
    expect(c.creditBytes).toBe(MAXWND - 41_500);
    c.stopSpeculating();
    expect(c.creditBytes).toBe(0);
    expect(c.forfeitedBytes).toBe(MAXWND - 41_500);
    expect(c.canSend()).toBe(false);
    c.onPull(64);
    expect(c.creditBytes).toBe(64 * 256);
    c.onPull(32); // reordered
    expect(c.creditBytes).toBe(64 * 256);
  });

  it('credit may go negative by the last packet and is capped at maxwnd', () => {
    const c = new RcccCredit(50_000);
    c.start();
    c.stopSpeculating();
    c.onPull(10);
    c.spend(4150);
    expect(c.creditBytes).toBe(2560 - 4150);
    expect(c.canSend()).toBe(false);
    c.onPull(10_000);
    expect(c.creditBytes).toBe(50_000);
  });

  it('pull target: min(backlog + rtx, cwnd + MTU, maxwnd) − credit, shared by active sources', () => {
    const c = new RcccCredit(MAXWND);
    c.start();
    c.stopSpeculating();
    c.onPull(100);
    const base = { mtuBytes: 4150, activeSources: 1 };
    // backlog-bound: 40 000 − 25 600 = 14 400 → +25 600 (pull 100) = 40 000 B → 157 quanta
    expect(c.pullTarget({ ...base, backlogBytes: 40_000, rtxBacklogBytes: 0, cwndBytes: null })).toBe(157);
    // cwnd-bound: 20 000 + 4 150 − 25 600 < 0 → the target is behind the pulls: 94 quanta
    expect(c.pullTarget({ ...base, backlogBytes: 1e6, rtxBacklogBytes: 0, cwndBytes: 20_000 })).toBe(
      Math.ceil((20_000 + 4150 - 25_600 + 25_600) / 256),
    );
    // maxwnd-bound, shared by 4 sources: (262 500 − 25 600)/4 + 25 600
    expect(
      c.pullTarget({ ...base, activeSources: 4, backlogBytes: 1e7, rtxBacklogBytes: 1e6, cwndBytes: null }),
    ).toBe(Math.ceil(((MAXWND - 25_600) / 4 + 25_600) / 256));
  });

  it('while speculating a sender with a backlog always asks for at least one MTU', () => {
    const c = new RcccCredit(MAXWND);
    c.start();
    expect(
      c.pullTarget({
        backlogBytes: 8_300,
        rtxBacklogBytes: 0,
        cwndBytes: null,
        mtuBytes: 4150,
        activeSources: 1,
      }),
    ).toBe(Math.ceil(4150 / 256));
  });
});

describe('RCCC oversubscription control', () => {
  function control(ratio: number) {
    const timers = new HandTimers<string>();
    const rates: number[] = [];
    const c = new OversubscriptionControl(
      { baseRttNs: 10_000, minRate: minRelativeRate(ratio), ...RCCC_DEFAULTS },
      {
        now: () => timers.nowNs,
        rng: createRng(1),
        setTimer: (at) => timers.set('os', at, () => c.onTimer()),
        setRate: (r) => rates.push(r),
      },
    );
    c.start();
    return { c, timers, rates };
  }

  it('fires every 0.75–1.25 × 1.5 base RTTs', () => {
    const { timers, rates } = control(4);
    timers.advance(1e6);
    expect(rates.length).toBeGreaterThanOrEqual(Math.floor(1e6 / 18_750));
    expect(rates.length).toBeLessThanOrEqual(Math.ceil(1e6 / 11_250));
  });

  it('g ← ½ g + ½ ECN fraction; above 0.3: rate ·= 1 − ½ (g − 0.3); bounded by 0.9/ratio', () => {
    const { c, timers, rates } = control(4);
    const interval = () => {
      for (let i = 0; i < 10; i++) {
        c.onPacket();
        c.onEcn();
      }
      timers.fireNext();
    };
    interval(); // g = 0.5 → 1 − 0.1
    expect(c.g).toBeCloseTo(0.5, 12);
    expect(rates[0]).toBeCloseTo(0.9, 12);
    interval(); // g = 0.75 → ·(1 − 0.225)
    expect(rates[1]).toBeCloseTo(0.9 * 0.775, 12);
    for (let i = 0; i < 40; i++) interval();
    expect(rates.at(-1)).toBeCloseTo(0.225, 12); // 0.9 / 4
  });

  it('adds ai, doubling while no ECN is seen; trims before the last hop take their share', () => {
    const { c, timers, rates } = control(8);
    for (let i = 0; i < 10; i++) {
      c.onPacket();
      c.onTrimmed(false);
    }
    for (let i = 0; i < 30; i++) c.onPacket();
    timers.fireNext(); // 10 of 40 trimmed on the way: −0.25
    expect(rates[0]).toBeCloseTo(0.75, 12);
    for (let i = 0; i < 3; i++) {
      c.onPacket();
      timers.fireNext();
    }
    expect(rates.slice(1)).toEqual([0.76, 0.78, 0.82].map((r) => expect.closeTo(r, 12)));
    c.onPacket();
    c.onTrimmed(true); // a last-hop trim: the pull rate already covers the last hop
    timers.fireNext();
    expect(rates[4]).toBeCloseTo(0.9, 12);
  });
});
