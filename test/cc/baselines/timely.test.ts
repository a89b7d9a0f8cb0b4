/**
 * TIMELY update rules against hand-computed values (docs/algorithms/timely.md). Defaults: α = 0.875,
 * β = 0.8, T_low = 50 µs, T_high = 500 µs, minRTT = 20 µs, δ = 100 Mb/s, HAI = 500 Mb/s after
 * N = 5 increases, MinRate 1 Gb/s, line rate 100 Gb/s.
 */
import { describe, expect, it } from 'vitest';
import { resolveParams } from '../../../src/cc/registry.js';
import { rttGradient, type TimelyConfig, timelyUpdate } from '../../../src/cc/timely/machine.js';
import type { TimelyState } from '../../../src/cc/timely/rp.js';
import { ack, expectClose, G, M, rig, tx } from './rig.js';

const cfg: TimelyConfig = {
  beta: 0.8,
  tLowNs: 50_000,
  tHighNs: 500_000,
  rateAiBps: 100 * M,
  rateHaiBps: 500 * M,
  haiThreshold: 5,
  haiMode: 'stage',
  minRateBps: 1 * G,
  lineRateBps: 100 * G,
};

describe('timely gradient', () => {
  it('EWMA of RTT differences normalised by minRTT', () => {
    // diff = (1 − 0.875)·0 + 0.875·(60 − 50 µs) = 8 750 ns; gradient = 8 750/20 000 = 0.4375
    const a = rttGradient(0, 60_000, 50_000, 0.875, 20_000);
    expectClose(a.rttDiffNs, 8750);
    expectClose(a.gradient, 0.4375);
    // diff = 0.125·8 750 + 0.875·(62 − 60 µs) = 1 093.75 + 1 750 = 2 843.75 ns → 0.1421875
    const b = rttGradient(a.rttDiffNs, 62_000, 60_000, 0.875, 20_000);
    expectClose(b.rttDiffNs, 2843.75);
    expectClose(b.gradient, 0.1421875);
  });
});

describe('timely rate update', () => {
  it('positive gradient between T_low and T_high: Rc·(1 − β·g)', () => {
    // 50 G·(1 − 0.8·0.4375) = 50·0.65 = 32.5 Gb/s, stage reset
    const s = timelyUpdate(50 * G, 3, 60_000, 0.4375, cfg);
    expect(s.branch).toBe('md');
    expect(s.stage).toBe(0);
    expectClose(s.rateBps, 32.5 * G);
  });

  it('RTT above T_high: Rc·(1 − β·(1 − T_high/rtt))', () => {
    // 50 G·(1 − 0.8·(1 − 500/600)) = 50·(1 − 0.13333) = 43.3333 Gb/s
    const s = timelyUpdate(50 * G, 2, 600_000, -1, cfg);
    expect(s.branch).toBe('high');
    expectClose(s.rateBps, 50 * (1 - 0.8 / 6) * G);
  });

  it('RTT below T_low or gradient ≤ 0: +δ, and +HAI from the N-th increase on', () => {
    expect(timelyUpdate(50 * G, 0, 30_000, 5, cfg)).toMatchObject({
      rateBps: 50.1 * G,
      stage: 1,
      branch: 'low',
    });
    expect(timelyUpdate(50 * G, 4, 60_000, -0.1, cfg)).toMatchObject({
      rateBps: 50.1 * G,
      stage: 5,
      branch: 'ai',
    });
    // stage 5 ≥ N: 50 + 0.5 = 50.5 Gb/s (HAI)
    expect(timelyUpdate(50 * G, 5, 60_000, 0, cfg)).toMatchObject({
      rateBps: 50.5 * G,
      stage: 6,
      branch: 'hai',
    });
    // the simulator counts T_low increases toward N too
    expect(timelyUpdate(50 * G, 5, 10_000, 0, cfg).rateBps).toBe(50.5 * G);
  });

  it('paper HAI: only consecutive gradient ≤ 0 updates count, T_low increases use δ', () => {
    const p: TimelyConfig = { ...cfg, haiMode: 'gradient' };
    expect(timelyUpdate(50 * G, 5, 10_000, 0, p)).toMatchObject({ rateBps: 50.1 * G, stage: 5 });
    expect(timelyUpdate(50 * G, 5, 60_000, -1, p)).toMatchObject({ rateBps: 50.5 * G, stage: 6 });
  });

  it('clamps: 1 − β·g < 0 → floor; increases stop at line rate', () => {
    // g = 2: 1 − 1.6 < 0 → max(0, ·) = 0 → MinRate 1 Gb/s
    expect(timelyUpdate(50 * G, 0, 60_000, 2, cfg).rateBps).toBe(1 * G);
    expect(timelyUpdate(99.95 * G, 0, 1_000, 0, cfg).rateBps).toBe(100 * G);
  });
});

describe('timely RP: one update per RTT from echoed timestamps', () => {
  it('hand-computed sequence', () => {
    const r = rig('timely');
    const s = r.state as TimelyState;
    for (let p = 0; p < 4; p++) r.ev(tx(p)); // snd_nxt 4
    // first qualifying ACK: only records prevRtt = 60 µs; lastUpdateSeq = 4
    r.ev(ack(0, { rttNs: 60_000 }));
    expect(r.rate()).toBe(100 * G);
    expect(s.lastUpdatePsn).toBe(4);
    // ACK 1 (next 2 ≤ 4): ignored, even with a big RTT
    r.ev(ack(1, { rttNs: 400_000 }));
    expect(s.prevRttNs).toBe(60_000);
    for (let p = 4; p < 8; p++) r.ev(tx(p)); // snd_nxt 8
    // ACK 4 (next 5 > 4): diff = 0.875·(64 − 60 µs) = 3 500 ns → g = 0.175 → 100 G·(1 − 0.14) = 86 G
    r.ev(ack(4, { rttNs: 64_000 }));
    expectClose(r.rate(), 86 * G);
    expectClose(s.rttDiffNs, 3500);
    // ACK 8 (next 9 > 8), rtt 40 µs < T_low: +δ = 86.1 G; diff = 0.125·3 500 + 0.875·(40 − 64 µs) = −20 562.5
    for (let p = 8; p < 10; p++) r.ev(tx(p));
    r.ev(ack(8, { rttNs: 40_000 }));
    expectClose(r.rate(), 86.1 * G);
    expectClose(s.rttDiffNs, -20_562.5);
    expect(s.stage).toBe(1);
  });

  it('HAI after five increases in a row (simulator counting)', () => {
    const r = rig('timely');
    let psn = 0;
    const update = (rtt: number) => {
      r.ev(tx(psn));
      r.ev(ack(psn, { rttNs: rtt }));
      psn++;
    };
    update(100_000); // prevRtt
    update(300_000); // diff 175 000 → g = 8.75 → floor 1 G
    expect(r.rate()).toBe(1 * G);
    // five δ steps: 1.1 … 1.5 G, then HAI 2.0, 2.5 G
    for (let i = 1; i <= 5; i++) {
      update(30_000);
      expectClose(r.rate(), (1 + 0.1 * i) * G);
    }
    update(30_000);
    expectClose(r.rate(), 2.0 * G);
    update(30_000);
    expectClose(r.rate(), 2.5 * G);
  });

  it('ACKs without a timestamp are ignored; the window preset sets W = W_init·R/B', () => {
    const r = rig('timely', { profile: 'hpcc-sim-vwin', baseRttNs: 10_000 });
    expect(r.window()).toBe(125_000);
    r.ev(tx(0));
    r.ev(ack(0, { rttNs: null }));
    expect((r.state as TimelyState).started).toBe(false);
    r.ev(ack(0, { rttNs: 100_000 }));
    r.ev(tx(1));
    r.ev(ack(1, { rttNs: 110_000 }));
    // diff 8 750 → g 0.4375 → 100 G·0.65 = 65 G; W = 125 000·0.65 = 81 250 B
    expectClose(r.rate(), 65 * G);
    expectClose(r.window()!, 81_250);
  });

  it('defaults and profiles', () => {
    expect(resolveParams('timely', {})).toMatchObject({
      alpha: 0.875,
      beta: 0.8,
      tLowNs: 50_000,
      tHighNs: 500_000,
      minRttNs: 20_000,
      rateAiBps: 100e6,
      rateHaiBps: 500e6,
      minRateBps: 1e9,
      window: false,
    });
    expect(resolveParams('timely', { tlow: '20us' }).tLowNs).toBe(20_000);
    expect(resolveParams('timely', {}, 'paper')).toMatchObject({ rateAiBps: 10e6, haiMode: 'gradient' });
  });
});
