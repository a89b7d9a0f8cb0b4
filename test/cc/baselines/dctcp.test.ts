/**
 * DCTCP (HPCC-simulator hardware form, docs/algorithms/dctcp.md) against hand-computed values:
 * g = 1/16, α0 = 1, R_AI = 615 Mb/s, line 100 Gb/s, T = 10 µs → W_init = 125 000 B.
 */
import { describe, expect, it } from 'vitest';
import { dctcpAlpha, dctcpCut } from '../../../src/cc/dctcp/machine.js';
import type { DctcpState } from '../../../src/cc/dctcp/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import { ack, expectClose, G, M, rig, tx } from './rig.js';

describe('dctcp alpha and cut', () => {
  it('α ← (1 − g)·α + g·min(1, marked/window)', () => {
    // 15/16·1 + 1/16·(2/8) = 0.9375 + 0.015625 = 0.953125
    expectClose(dctcpAlpha(1, 1 / 16, 2, 8), 0.953125);
    // more marks than packets saturate at F = 1: 15/16·0.5 + 1/16 = 0.53125
    expectClose(dctcpAlpha(0.5, 1 / 16, 20, 8), 0.53125);
    // no marks: pure decay 15/16·0.5
    expectClose(dctcpAlpha(0.5, 1 / 16, 0, 8), 0.46875);
  });

  it('cut R·(1 − α/2), not below MinRate', () => {
    // 100 G·(1 − 0.953125/2) = 52.34375 Gb/s
    expectClose(dctcpCut(100 * G, 0.953125, 1 * G), 52.34375 * G);
    expect(dctcpCut(1.5 * G, 1, 1 * G)).toBe(1 * G);
  });
});

describe('dctcp RP', () => {
  it('hand-computed sequence: one cut per window, α per window, AI after CWR', () => {
    const r = rig('dctcp', {});
    const s = r.state as DctcpState;
    expect(r.rate()).toBe(100 * G);
    expect(r.window()).toBe(125_000);
    for (let p = 0; p < 10; p++) r.ev(tx(p)); // snd_nxt 10
    // ACK 0: first window: batch = 10 + 1 = 11 packets; lastUpdateSeq = 10; at line rate
    r.ev(ack(0));
    expect(s.batchPackets).toBe(11);
    // ACK 1, ECN: cut with α = 1 → 50 G; CWR until an ACK passes snd_nxt = 10
    r.ev(ack(1, { ecn: true }));
    expect(r.rate()).toBe(50 * G);
    expect(r.window()).toBe(62_500);
    // ACK 2, ECN: inside CWR → no second cut (ecnCnt = 2)
    r.ev(ack(2, { ecn: true }));
    expect(r.rate()).toBe(50 * G);
    for (let p = 3; p < 10; p++) r.ev(ack(p));
    expect(r.rate()).toBe(50 * G);
    for (let p = 10; p < 20; p++) r.ev(tx(p)); // snd_nxt 20
    // ACK 10 (next 11 > 10): α = 15/16 + 1/16·2/11 = 0.94886364; batch = 20 − 11 + 1 = 10;
    // CWR ends (11 > 10); AI: 50 + 0.615 = 50.615 G
    r.ev(ack(10));
    expectClose(s.alpha, 0.9488636363636364);
    expect(s.batchPackets).toBe(10);
    expectClose(r.rate(), 50.615 * G);
    // ACK 11, ECN: 50.615 G·(1 − 0.94886364/2) = 26.60163352 Gb/s; W = 125 000·0.2660163 = 33 252.04 B
    r.ev(ack(11, { ecn: true }));
    expectClose(r.rate(), 26.601633522727276 * G);
    expectClose(r.window()!, 33_252.041903409096, 1e-9);
  });

  it('defaults are run.py dctcp', () => {
    expect(resolveParams('dctcp', {})).toMatchObject({
      g: 1 / 16,
      alpha0: 1,
      rateAiBps: 615 * M,
      minRateBps: 1e9,
      window: true,
    });
  });
});
