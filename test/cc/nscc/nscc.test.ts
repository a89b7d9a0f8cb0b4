/**
 * NSCC against the UET brief (../shared/papers/uet.md) and the reference simulator's functions
 * (uet-htsim uec.cpp), with hand-computed values. The rig: 100 Gbit/s, 4096-byte MTU, a 14 µs
 * network RTT (the reference's k = 4 fat tree: 14.02 µs), trimming on, so
 *   target = 0.75 × 14 µs = 10.5 µs, a = (14 µs · 100G) / (12 µs · 100G) = 7/6, b = 10.5/12 = 0.875,
 *   α = 4 · 4096 · a · b / 10 500 ns, fi = 5 · 4096 · a, η = 0.15 · 4096 · a, fi_scale = 0.25 · a,
 *   maxwnd = 1.5 × 175 000 B = 262 500 B, quick-adapt threshold 42 µs, adjustment every 8 MTU.
 */
import { describe, expect, it } from 'vitest';
import { nsccConstants } from '../../../src/cc/nscc/machine.js';
import { type NsccParams, nsccParams } from '../../../src/cc/nscc/params.js';
import { type NsccState, nsccRp } from '../../../src/cc/nscc/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { ackEvent, driveRp, flowInfo, nackEvent } from '../../../src/cc/testing/index.js';
import type { RpEvent } from '../../../src/cc/types.js';
import { expectClose } from '../baselines/rig.js';

const MTU = 4096;
const BASE = 14_000;
const TARGET = 10_500;
const A = 7 / 6;
const FI = 5 * MTU * A;
const ALPHA = (4 * MTU * A * 0.875) / TARGET;
const ETA = 0.15 * MTU * A;
const MAXWND = 262_500;

function nscc(over: Record<string, unknown> = {}, flow: Record<string, unknown> = {}) {
  const params = resolveParams('nscc', { networkRtt: '14us', ...over }) as NsccParams;
  const d = driveRp(nsccRp, params, flowInfo({ mtuBytes: MTU, baseRttNs: BASE, ...flow }));
  return { ...d, s: d.s as NsccState };
}

const ack = (delayNs: number, ecn = false, bytes = MTU): RpEvent =>
  ackEvent(0, { rttNs: BASE + delayNs, ecn, ackedBytes: bytes });

const trimNack = (bytes: number, lastHop: boolean): RpEvent => ({
  ...(nackEvent(0) as Extract<RpEvent, { type: 'nack' }>),
  subtype: 'trim',
  nackedBytes: bytes,
  lastHop,
});

describe('NSCC constants (initNsccParams)', () => {
  const p = (o: Record<string, unknown> = {}): NsccParams => nsccParams.parse(o);

  it('scale by BDP and target delay from the 100 Gbit/s, 12 µs reference network', () => {
    const k = nsccConstants(p({ networkRttNs: 14_000 }), 100e9, MTU, 9_999);
    expect(k.networkRttNs).toBe(14_000);
    expectClose(k.targetNs, TARGET);
    expectClose(k.a, A);
    expectClose(k.b, 0.875);
    expectClose(k.alpha, ALPHA);
    expectClose(k.fi, FI);
    expectClose(k.eta, ETA);
    expectClose(k.fiScale, 0.25 * A);
    expectClose(k.qaThresholdNs, 4 * TARGET);
    expect(k.adjustPeriodNs).toBe(14_000);
    expect(k.adjustBytes).toBe(8 * MTU);
    expect(k.minWindowBytes).toBe(MTU);
  });

  it('a grows with the rate, a and b with the RTT; α keeps a·b/target', () => {
    const k1 = nsccConstants(p({ networkRttNs: 12_000 }), 100e9, MTU, 0);
    const k4 = nsccConstants(p({ networkRttNs: 12_000 }), 400e9, MTU, 0);
    expectClose(k1.a, 1);
    expectClose(k4.a, 4);
    expectClose(k4.fi / k1.fi, 4);
    expectClose(k4.eta / k1.eta, 4);
    const k2 = nsccConstants(p({ networkRttNs: 24_000 }), 100e9, MTU, 0);
    expectClose(k2.a, 2);
    expectClose(k2.b, 2 * k1.b);
    // α = 4·MSS·a·b/target: a ×2, b ×2, target ×2 → α ×2.
    expectClose(k2.alpha / k1.alpha, 2);
  });

  it('target: 0.75 × network RTT with trimming, 1 × without, or as set; 0 = the path RTT', () => {
    expectClose(nsccConstants(p({ networkRttNs: 14_000, trimming: false }), 100e9, MTU, 0).targetNs, 14_000);
    expect(nsccConstants(p({ networkRttNs: 14_000, targetQdelayNs: 6_000 }), 100e9, MTU, 0).targetNs).toBe(
      6_000,
    );
    expectClose(nsccConstants(p(), 100e9, MTU, 8_000).targetNs, 6_000);
  });
});

describe('NSCC window', () => {
  it('starts at maxwnd = 1.5 × BDP of the network RTT, or at the configured window', () => {
    const r = nscc();
    expectClose(r.s.cwnd, MAXWND);
    expect(r.window()).toBe(MAXWND);
    expect(nscc({ cwnd: 50 * MTU }).window()).toBe(50 * MTU);
  });

  it('fair increase (no ECN, delay ≥ target): fi per acked byte, applied as inc/cwnd after 8 MTU', () => {
    const r = nscc({ cwnd: 100_000 });
    r.at(1_000);
    for (let i = 0; i < 8; i++) r.ev(ack(12_000));
    expect(r.s.cwnd).toBe(100_000); // 8 MTU: not more than the threshold yet
    r.ev(ack(12_000));
    expectClose(r.s.cwnd, 100_000 + (9 * FI * MTU) / 100_000);
    expect(r.window()).toBe(Math.floor(100_000 + (9 * FI * MTU) / 100_000));
  });

  it('proportional increase (no ECN, delay < target): α × acked × (target − delay)', () => {
    const r = nscc({ cwnd: 100_000 });
    r.at(1_000);
    for (let i = 0; i < 9; i++) r.ev(ack(5_000));
    expectClose(r.s.cwnd, 100_000 + (9 * ALPHA * MTU * (TARGET - 5_000)) / 100_000);
  });

  it('η once per network RTT when the accumulated increase is applied', () => {
    const r = nscc({ cwnd: 100_000 });
    r.at(20_000); // more than one network RTT since the start
    r.ev(ack(5_000));
    expectClose(r.s.cwnd, 100_000 + (ALPHA * MTU * (TARGET - 5_000)) / 100_000 + ETA);
    const w = r.s.cwnd;
    r.at(21_000);
    for (let i = 0; i < 9; i++) r.ev(ack(5_000));
    // bytes threshold reached inside the period: no η
    expectClose(r.s.cwnd, w + (9 * ALPHA * MTU * (TARGET - 5_000)) / w);
  });

  it('fast increase: after a whole window of delay < 1 µs, fi_scale per acked byte at once', () => {
    const r = nscc({ cwnd: 8 * MTU });
    r.at(1_000);
    // 8 ACKs = one window: proportional increase accumulates (not yet applied: 8 MTU is not more
    // than the threshold); the 9th finds more than a window below 1 µs and goes fast
    for (let i = 0; i < 8; i++) r.ev(ack(500));
    expect(r.s.cwnd).toBe(8 * MTU);
    expect(r.s.fastIncreasing).toBe(false);
    r.ev(ack(500));
    expect(r.s.fastIncreasing).toBe(true);
    const fast = 8 * MTU + 0.25 * A * MTU;
    expectClose(r.s.cwnd, fast + (8 * ALPHA * MTU * (TARGET - 500)) / fast);
    const w = r.s.cwnd;
    r.ev(ack(500));
    expectClose(r.s.cwnd, w + 0.25 * A * MTU);
    // one sample at or above 1 µs ends it
    r.ev(ack(1_000));
    expect(r.s.fastIncreasing).toBe(false);
    expect(r.s.fastBytes).toBe(0);
  });

  it('ECN with delay below target: no window change (the path, not the window, is penalised)', () => {
    const r = nscc({ cwnd: 100_000 });
    r.at(1_000);
    for (let i = 0; i < 20; i++) r.ev(ack(2_000, true));
    expect(r.s.cwnd).toBe(100_000);
    expect(r.s.inc).toBe(0);
  });

  it('ECN with delay ≥ target: multiplicative decrease by the averaged delay, at most once per base RTT', () => {
    const r = nscc({ cwnd: 200_000 });
    r.at(20_000);
    r.s.avgDelayNs = 20_000;
    r.ev(ack(20_000, true)); // the sample keeps the average at 20 µs
    // 1 − 0.8 · (20 − 10.5)/20 = 0.62; more than a network RTT since the start: + η
    const once = 200_000 * 0.62 + ETA;
    expectClose(r.s.cwnd, once);
    r.at(20_000 + BASE);
    r.ev(ack(20_000, true)); // not more than one base RTT later: no second cut (and no η)
    expectClose(r.s.cwnd, once);
    r.at(20_000 + BASE + 1);
    r.ev(ack(20_000, true));
    expectClose(r.s.cwnd, once * 0.62 + ETA);
  });

  it('the decrease is bounded by half and needs the averaged delay above target', () => {
    const r = nscc({ cwnd: 200_000 });
    r.at(20_000);
    r.s.avgDelayNs = 200_000;
    r.ev(ack(200_000, true));
    expectClose(r.s.cwnd, 100_000 + ETA);
    const q = nscc({ cwnd: 200_000 });
    q.at(20_000);
    q.ev(ack(30_000, true)); // one sample: the average is still far below target
    expectClose(q.s.cwnd, 200_000 + ETA);
  });

  it('a high delay without ECN enters the average as 0.25 × base RTT', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ack(30_000));
    expectClose(r.s.avgDelayNs, 0.0125 * 0.25 * BASE);
    r.ev(ack(30_000, true));
    expectClose(r.s.avgDelayNs, 0.0125 * 30_000 + 0.9875 * 0.0125 * 0.25 * BASE);
  });

  it('base RTT follows the smallest sample and maxwnd with it', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ackEvent(0, { rttNs: 10_000, ackedBytes: MTU }));
    expect(r.s.baseRttNs).toBe(10_000);
    expectClose(r.s.maxWnd, 1.5 * 125_000);
    expectClose(r.s.cwnd, 1.5 * 125_000);
  });
});

describe('NSCC quick adapt', () => {
  it('a delay above 4 × target with little achieved in the last window: cwnd = achieved', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ack(0)); // opens the first window: ends at 1 000 + base + target
    expect(r.s.qaEndNs).toBe(1_000 + BASE + TARGET);
    r.ev(ack(0));
    r.at(1_000 + BASE + TARGET + 1);
    r.setInflight(20 * MTU);
    r.ev(ack(50_000, true));
    // achieved: the 2nd ACK and this one (the 1st belonged to the previous window)
    expect(r.s.cwnd).toBe(2 * MTU);
    expect(r.window()).toBe(2 * MTU);
    expect(r.counts.get('nscc.quickAdapt')).toBe(1);
    expect(r.s.bytesToIgnore).toBe(20 * MTU);
    // the next in-flight worth of ECN-marked feedback is ignored: no decrease, no increase
    r.at(1_000 + 2 * (BASE + TARGET));
    r.s.avgDelayNs = 50_000;
    for (let i = 0; i < 19; i++) r.ev(ack(50_000, true));
    expect(r.s.cwnd).toBe(2 * MTU);
  });

  it('does not fire when the window achieved at least maxwnd / 8', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ack(0));
    for (let i = 0; i < 9; i++) r.ev(ack(0)); // 36 864 B > 262 500 / 8 = 32 812
    r.at(1_000 + BASE + TARGET + 1);
    r.ev(ack(50_000, true));
    expect(r.counts.get('nscc.quickAdapt')).toBeUndefined();
    expect(r.s.cwnd).toBeGreaterThan(MAXWND / 2);
  });

  it('checks at most once per window of base RTT + target', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ack(0));
    r.at(2_000);
    r.ev(ack(50_000, true)); // inside the first window: no check
    expect(r.s.cwnd).toBe(MAXWND);
  });
});

describe('NSCC NACKs (trimmed packets)', () => {
  it('shrink the window by the NACKed bytes and feed a network-RTT delay sample', () => {
    const r = nscc({ cwnd: 100_000 });
    r.at(1_000);
    r.ev(trimNack(MTU, false));
    expect(r.s.cwnd).toBe(100_000 - MTU);
    expectClose(r.s.avgDelayNs, 0.0125 * BASE);
    expect(r.s.triggerQa).toBe(true);
  });

  it('with receiver credits (RCCC) a last-hop trim leaves the window alone, other trims do not', () => {
    const r = nscc({ cwnd: 100_000 }, { receiverCredits: true });
    r.at(1_000);
    r.ev(trimNack(MTU, true));
    expect(r.s.cwnd).toBe(100_000);
    r.ev(trimNack(MTU, false));
    expect(r.s.cwnd).toBe(100_000 - MTU);
    const q = nscc({ cwnd: 100_000 });
    q.at(1_000);
    q.ev(trimNack(MTU, true));
    expect(q.s.cwnd).toBe(100_000 - MTU);
  });

  it('a NACK makes the next window end run quick adapt even at low delay', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ack(0));
    r.ev(trimNack(MTU, false));
    r.at(1_000 + BASE + TARGET + 1);
    r.ev(ack(0));
    expect(r.counts.get('nscc.quickAdapt')).toBe(1);
    expect(r.s.cwnd).toBe(MTU); // achieved: one ACK in this window
    expect(r.s.triggerQa).toBe(false);
  });

  it('a NACK inside the ignore span does not shrink the window', () => {
    const r = nscc();
    r.at(1_000);
    r.ev(ack(0));
    r.at(1_000 + BASE + TARGET + 1);
    r.setInflight(10 * MTU);
    r.ev(ack(50_000, true)); // quick adapt → 1 MTU, ignore the next 10 MTU of marked feedback
    const w = r.s.cwnd;
    r.ev(trimNack(MTU, false));
    expect(r.s.cwnd).toBe(w);
  });

  it('a NACK of a packet already resent or acknowledged (0 bytes) changes nothing', () => {
    const r = nscc({ cwnd: 100_000 });
    r.at(1_000);
    r.ev(trimNack(0, false));
    expect(r.s.cwnd).toBe(100_000);
    expect(r.s.avgDelayNs).toBe(0);
    expect(r.s.triggerQa).toBe(false);
  });

  it('a timeout takes one packet off the window, not below one MTU', () => {
    const r = nscc({ cwnd: 3 * MTU });
    r.ev({ type: 'timeout' });
    expect(r.s.cwnd).toBe(2 * MTU);
    r.ev({ type: 'timeout' });
    r.ev({ type: 'timeout' });
    expect(r.s.cwnd).toBe(MTU);
  });
});
