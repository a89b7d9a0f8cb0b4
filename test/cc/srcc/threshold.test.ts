/** SRCC's switch arithmetic against worked examples of Eq. 6 (Profile A: C·d = 50 000 B). */
import { describe, expect, it } from 'vitest';
import { flowId16 } from '../../../src/cc/srcc/flow-id.js';
import {
  bytesInFlight,
  clampThresholdBytes,
  cnmIntervalNs,
  encodeTargetKbps,
  eq5ThresholdBytes,
  eq6ThresholdBytes,
  hopsFromSource,
  targetRateBps,
  toInt32,
} from '../../../src/cc/srcc/threshold.js';
import { srccFlowId } from '../../../src/wire/cnm.js';

const C = 100e9;
const D = 4000;

describe('Eq. 6 and its clamp', () => {
  const cd = bytesInFlight(C, D);
  it('C·d at 100 Gb/s and 4 µs is 50 000 B', () => expect(cd).toBe(50_000));
  it.each([
    // case, Q_PFC, M, N, m, Eq. 6, clamped
    ['remote ToR, 2 flows', 2_000_000, 1, 3, 2, 1_850_000, 1_850_000],
    ['remote ToR, 8 flows', 2_000_000, 1, 3, 8, 950_000, 950_000],
    ['remote ToR, 14 flows', 2_000_000, 1, 3, 14, 50_000, 50_000],
    ['remote ToR, 15 flows', 2_000_000, 1, 3, 15, -100_000, 2_000],
    ['spine, 8 flows, 2 egress', 2_000_000, 2, 2, 8, 300_000, 300_000],
    ['acceptance S-1', 100_000, 2, 1, 8, -300_000, 2_000],
    ['acceptance AC4', 400_000, 2, 1, 2, 150_000, 150_000],
  ])('%s', (_name, qPfc, M, N, m, raw, eff) => {
    const r = eq6ThresholdBytes(qPfc, M, N, cd, m, 1);
    expect(r).toBe(raw);
    expect(clampThresholdBytes(r, 2000, qPfc, M)).toBe(eff);
  });

  it('never above Q_PFC/M, and κ = 2 doubles the feedback term', () => {
    // One flow: (m − 1) = 0, the raw value is the ceiling Q_PFC/M itself.
    expect(clampThresholdBytes(eq6ThresholdBytes(300_000, 3, 2, cd, 1, 1), 2000, 300_000, 3)).toBe(100_000);
    // 400 000/2 − 2·1·50 000·1 = 100 000
    expect(eq6ThresholdBytes(400_000, 2, 1, cd, 2, 2)).toBe(100_000);
  });

  it('Eq. 5 with a measured arrival rate: only the excess over C counts', () => {
    // Λ = 1.5·C: excess 50 Gb/s for 4 µs = 25 000 B per hop; 400 000/2 − 25 000 = 175 000.
    expect(eq5ThresholdBytes(400_000, 2, 1, D, 1.5 * C, C, 1)).toBe(175_000);
    expect(eq5ThresholdBytes(400_000, 2, 3, D, 0.5 * C, C, 1)).toBe(200_000);
  });
});

describe('hop count, target rate, CNM interval', () => {
  it('N_TTL = TTL_INIT − TTL + 1 counts the host link (P13)', () => {
    expect(hopsFromSource(64, 64)).toBe(1);
    expect(hopsFromSource(63, 64)).toBe(2);
    expect(hopsFromSource(62, 64)).toBe(3);
    expect(hopsFromSource(70, 64)).toBe(1);
  });
  it('target = C/m, on the wire in kbit/s', () => {
    expect(targetRateBps(C, 8)).toBe(12.5e9);
    expect(encodeTargetKbps(targetRateBps(C, 2))).toBe(50_000_000);
    expect(encodeTargetKbps(targetRateBps(C, 3))).toBe(33_333_333);
    expect(targetRateBps(C, 0)).toBe(C);
  });
  it('τ_cnm = 2·N·d: 8 µs at the first hop, 24 µs three hops away', () => {
    expect(cnmIntervalNs(2, 1, D)).toBe(8000);
    expect(cnmIntervalNs(2, 3, D)).toBe(24_000);
  });
  it('qCthRaw saturates into int32', () => {
    expect(toInt32(-300_000)).toBe(-300_000);
    expect(toInt32(Number.POSITIVE_INFINITY)).toBe(0x7fffffff);
    expect(toInt32(-1e12)).toBe(-0x80000000);
  });
});

describe('flow id (CRC-16/ARC over the 5-tuple)', () => {
  it('matches the known vector and the wire codec', () => {
    // 10.0.0.1, 10.0.0.2, 17, 49152, 4791 → 0x58BA
    expect(flowId16(0x0a000001, 0x0a000002, 49152)).toBe(0x58ba);
    for (const [s, d, p] of [
      [0xc6120001, 0xc6120009, 0xc123],
      [1, 2, 3],
      [0xffffffff, 0, 0xffff],
    ])
      expect(flowId16(s, d, p)).toBe(srccFlowId(s, d, p, 4791));
  });
});
