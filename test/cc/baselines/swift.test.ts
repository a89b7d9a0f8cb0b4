/**
 * Swift update rules against hand-computed values (docs/algorithms/swift.md). Flow scaling with
 * fs_range = 20 µs, fs_min_cwnd = 0.1, fs_max_cwnd = 100:
 *   α_fs = 20 000/(1/√0.1 − 1/√100) = 20 000/3.0622777 = 6 531.0864 ns, β_fs = −α_fs/10 = −653.1086 ns.
 */
import { describe, expect, it } from 'vitest';
import { resolveParams } from '../../../src/cc/registry.js';
import {
  clampCwnd,
  flowScalingNs,
  pacingRateBps,
  swiftOnAck,
  targetDelayNs,
} from '../../../src/cc/swift/machine.js';
import { swiftNp } from '../../../src/cc/swift/np.js';
import { HOPS_FIELD, type SwiftState } from '../../../src/cc/swift/rp.js';
import { driveNp } from '../../../src/cc/testing/index.js';
import { createRng } from '../../../src/env/rng.js';
import { ack, expectClose, G, M, nack, rig, tx } from './rig.js';

const fs = { fsRangeNs: 20_000, fsMinCwnd: 0.1, fsMaxCwnd: 100 };

describe('swift target delay', () => {
  it('flow scaling α/√w + β clamped to [0, fs_range]', () => {
    expectClose(flowScalingNs(0.1, fs), 20_000, 1e-12);
    expectClose(flowScalingNs(100, fs), 0, 1e-9);
    // w = 1: 6 531.0864 − 653.1086 = 5 877.9778 ns
    expectClose(flowScalingNs(1, fs), 5877.9777660691525);
    // w = 25: 6 531.0864/5 − 653.1086 = 653.1086 ns
    expectClose(flowScalingNs(25, fs), 653.1086406743503);
    expect(flowScalingNs(0.01, fs)).toBe(20_000);
    expect(flowScalingNs(1000, fs)).toBe(0);
  });

  it('hop scaling adds h per hop; flow scaling adds fs(cwnd)', () => {
    // 4 000 + 3·2 000 + 653.1086 = 10 653.1086 ns
    expectClose(targetDelayNs(4000, 3, 2000, 25, fs), 10_653.10864067435);
    expect(targetDelayNs(4000, 3, 2000, 25, fs) - targetDelayNs(4000, 1, 2000, 25, fs)).toBeCloseTo(4000, 9);
  });
});

describe('swift window update', () => {
  it('additive increase: ai/cwnd per acked packet above one packet, ai per packet below', () => {
    expect(swiftOnAck(10, 8000, 10_653, 1, 1, 0.8, 0.5, true)).toEqual({ cwnd: 10.1, decreased: false });
    expect(swiftOnAck(0.5, 8000, 10_653, 1, 1, 0.8, 0.5, true)).toEqual({ cwnd: 1.5, decreased: false });
  });

  it('multiplicative decrease 1 − β·(delay − target)/delay, bounded by max_mdf, once per RTT', () => {
    // delay 20 µs, target 10 µs: 1 − 0.8·0.5 = 0.6 → 6
    expectClose(swiftOnAck(10, 20_000, 10_000, 1, 1, 0.8, 0.5, true).cwnd, 6);
    // delay 100 µs: 1 − 0.8·0.9 = 0.28 < 1 − max_mdf = 0.5 → bound: 5
    expectClose(swiftOnAck(10, 100_000, 10_000, 1, 1, 0.8, 0.5, true).cwnd, 5);
    // can_decrease false: unchanged
    expect(swiftOnAck(10, 100_000, 10_000, 1, 1, 0.8, 0.5, false)).toEqual({ cwnd: 10, decreased: false });
    expect(clampCwnd(0.0001, 0.001, 100)).toBe(0.001);
  });

  it('pacing below one packet: one packet every rtt/cwnd', () => {
    // 0.25·1 066 B·8/8 µs = 266.5 Mb/s → gap 1 066·8/266.5 Mb/s = 32 µs = 8 µs/0.25
    const r = pacingRateBps(0.25, 8000, 1066);
    expectClose(r, 266.5 * M);
    expectClose((1066 * 8 * 1e9) / r, 32_000);
  });
});

describe('swift RP', () => {
  // line 100 G, MTU 1000, base RTT 8 µs → max_cwnd = BDP = 100 packets; path hops 1
  const flow = { baseRttNs: 8000, hops: 1 };

  it('starts at max_cwnd as a window, no pacing', () => {
    const r = rig('swift', {}, flow);
    expect((r.state as SwiftState).cwnd).toBe(100);
    expect(r.window()).toBe(100_000);
    expect(r.rate()).toBe(100 * G);
  });

  it('decreases at most once per RTT and follows the echoed hop count', () => {
    const r = rig('swift', {}, flow);
    const s = r.state as SwiftState;
    r.at(100_000);
    // hops 3 from the TTL echo: target = 4 000 + 6 000 + fs(100) = 10 000 ns; delay 20 µs:
    // 100·(1 − 0.8·(20 − 10)/20) = 60 packets
    r.ev(ack(0, { rttNs: 20_000, fields: { [HOPS_FIELD]: 3 } }));
    expect(s.hops).toBe(3);
    expectClose(s.cwnd, 60);
    expect(r.window()).toBeCloseTo(60_000, 6);
    // 10 µs later (< rtt 20 µs): no second decrease
    r.at(110_000);
    r.ev(ack(1, { rttNs: 20_000 }));
    expectClose(s.cwnd, 60);
    // 20 µs after the decrease: target = 10 000 + fs(60) = 10 000 + 6 531.0864/√60 − 653.1086 = 10 190.0479;
    // factor = 1 − 0.8·(20 000 − 10 190.0479)/20 000 = 0.6076019 → 36.456 packets
    r.at(120_000);
    r.ev(ack(2, { rttNs: 20_000 }));
    const target = 10_000 + 6531.086406743503 / Math.sqrt(60) - 653.1086406743503;
    expectClose(s.lastTargetNs, target, 1e-12);
    expectClose(s.cwnd, 60 * (1 - (0.8 * (20_000 - target)) / 20_000));
  });

  it('below one packet: window of one packet and pacing at cwnd·packet/srtt', () => {
    const r = rig('swift', { initCwndPackets: 1 }, flow);
    const s = r.state as SwiftState;
    r.ev(tx(0, 1000, 1066));
    r.at(50_000);
    // delay 100 µs ≫ target: max_mdf → cwnd 0.5; srtt = 8 000 + 0.125·(100 000 − 8 000) = 19 500 ns
    // rate = 0.5·1 066·8/19.5 µs = 218.6667 Mb/s (one packet every 39 µs)
    r.ev(ack(0, { rttNs: 100_000 }));
    expect(s.cwnd).toBe(0.5);
    expect(r.window()).toBe(1000);
    expectClose(r.rate(), 218_666_666.66666666);
    // AI below one packet: +ai per acked packet → 1.5 packets: a window again, line rate
    r.at(60_000);
    r.ev(ack(1, { rttNs: 5_000 }));
    expect(s.cwnd).toBe(1.5);
    expect(r.window()).toBe(1500);
    expect(r.rate()).toBe(100 * G);
  });

  it('loss: NAK → ×(1 − max_mdf) once per RTT; RETX_RESET_THRESHOLD timeouts → min_cwnd', () => {
    const r = rig('swift', {}, flow);
    const s = r.state as SwiftState;
    r.at(1_000_000);
    r.ev(nack(5));
    expect(s.cwnd).toBe(50);
    r.ev(nack(5)); // same instant: no second decrease
    expect(s.cwnd).toBe(50);
    for (let i = 1; i <= 4; i++) {
      r.at(1_000_000 + i * 100_000);
      r.ev({ type: 'timeout' });
      expect(s.cwnd).toBe(50 * 0.5 ** i);
    }
    r.at(2_000_000);
    r.ev({ type: 'timeout' });
    expect(s.cwnd).toBe(0.001);
  });

  it('NP echoes initial TTL − TTL as the hop count', () => {
    const params = resolveParams('swift', {}) as never;
    const d = driveNp(swiftNp, params, { rng: createRng(1) });
    d.data(1, (pkt) => {
      pkt.ttl = 61;
    });
    const a = d.decorateAck(1);
    expect(d.cnps).toEqual([]);
    expect(a.ext?.fields?.[HOPS_FIELD]).toBe(3);
  });

  it('defaults', () => {
    expect(resolveParams('swift', {})).toMatchObject({
      ai: 1,
      beta: 0.8,
      maxMdf: 0.5,
      fsMinCwnd: 0.1,
      fsMaxCwnd: 100,
      fsRangeNs: 20_000,
      baseTargetNs: 4000,
      hopScalingNs: 2000,
    });
  });
});
