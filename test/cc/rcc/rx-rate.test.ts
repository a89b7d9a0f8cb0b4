import { describe, expect, it } from 'vitest';
import { RxRateEstimator } from '../../../src/cc/rcc/rx-rate.js';

// 100 Gbit/s = 12.5 B/ns; η = 0.95 → full at 11.875 B/ns. T_s = 1000 ns: B_R ≥ 11 875 B.
const FULL = 0.95 * 12.5;

/** Packets of `bytes` every `gapNs` from `t0` (arrival times), n of them. */
function feed(e: RxRateEstimator, t0: number, gapNs: number, n: number, bytes = 1000): number {
  let t = t0;
  for (let i = 0; i < n; i++) {
    e.onBytes(t, bytes);
    t += gapNs;
  }
  return t - gapNs;
}

describe('RCC RX-rate estimator (B_R test)', () => {
  it('literal: bytes in (now − T_s, now] against η·C·T_s', () => {
    const e = new RxRateEstimator(1000, FULL, 'literal');
    // Line rate: 1000 B every 80 ns. After 12 packets (880 ns) the window holds 12 000 B ≥ 11 875.
    let t = feed(e, 0, 80, 11);
    expect(e.trailingBytes(t)).toBe(11_000);
    expect(e.lastHopFull(t)).toBe(false);
    t = feed(e, t + 80, 80, 1);
    expect(e.lastHopFull(t)).toBe(true);
    // Arrivals at 0, 80, …, 880: the window (40, 1040] holds the 11 from 80 to 880 → 11 000 B.
    expect(e.trailingBytes(1040)).toBe(11_000);
    expect(e.lastHopFull(1040)).toBe(false);
    // Half rate (1000 B / 160 ns = 6.25 B/ns) never fills it.
    const h = new RxRateEstimator(1000, FULL, 'literal');
    const th = feed(h, 0, 160, 50);
    expect(h.lastHopFull(th)).toBe(false);
  });

  it('busy: a burst onto an idle receiver is seen from its second packet (P5)', () => {
    const e = new RxRateEstimator(1000, FULL, 'busy');
    e.onBytes(0, 1000);
    expect(e.lastHopFull(0)).toBe(false); // one packet: no rate yet
    e.onBytes(80, 1000);
    // 1000 B after the first packet over 80 ns = 12.5 B/ns ≥ 11.875
    expect(e.lastHopFull(80)).toBe(true);
    const l = new RxRateEstimator(1000, FULL, 'literal');
    feed(l, 0, 80, 2);
    expect(l.lastHopFull(80)).toBe(false);
  });

  it('busy: a new busy period starts after an idle gap longer than T_s', () => {
    const e = new RxRateEstimator(1000, FULL, 'busy');
    feed(e, 0, 80, 20);
    // idle for 5 µs, then half rate: 1000 B per 160 ns = 6.25 B/ns < 11.875
    feed(e, 7000, 160, 3);
    expect(e.lastHopFull(7320)).toBe(false);
  });

  it('recent: a last-hop queue forming inside a busy period is seen from the congested packets', () => {
    const e = new RxRateEstimator(1000, FULL, 'recent');
    // Half rate for 10 µs, then back to back.
    let t = feed(e, 0, 160, 62);
    t = feed(e, t + 80, 80, 4);
    // The trailing window holds 6 packets at 160 ns and 4 at 80 ns ≈ 8000-9000 B < 11 875.
    expect(e.trailingBytes(t)).toBeLessThan(11_875);
    // The last 3 + 1 arrivals: 3000 B over 240 ns = 12.5 B/ns.
    expect(e.lastHopFull(t, 3)).toBe(true);
    const b = new RxRateEstimator(1000, FULL, 'busy');
    let tb = feed(b, 0, 160, 62);
    tb = feed(b, tb + 80, 80, 4);
    expect(b.lastHopFull(tb, 3)).toBe(false);
  });

  it('recent: a batch handled at one instant (a real-time host that stalled) counts as full', () => {
    const e = new RxRateEstimator(1000, FULL, 'recent');
    const t = feed(e, 0, 160, 20);
    // 500 ns after the last one (t = 3040, same busy period) 4 packets at one instant: the
    // window (2540, 3540] holds 4 + 4 packets = 8000 B < 11 875, but the last 3 + 1 took 0 ns.
    feed(e, t + 500, 0, 4);
    expect(e.trailingBytes(t + 500)).toBe(8000);
    expect(e.lastHopFull(t + 500, 3)).toBe(true);
    const b = new RxRateEstimator(1000, FULL, 'busy');
    feed(b, 0, 160, 20);
    feed(b, t + 500, 0, 4);
    expect(b.lastHopFull(t + 500, 3)).toBe(false);
  });

  it("lastHopShared: B_R over the round, or line-rate arrivals of more than one QP (not one flow's own burst)", () => {
    // Half rate for 10 µs, then 4 back to back: all of QP 1 (a run queued upstream), or mixed.
    const one = new RxRateEstimator(1000, FULL, 'recent');
    let t = 0;
    for (let i = 0; i < 62; i++, t += 160) one.onBytes(t, 1000, 1);
    for (let i = 0; i < 4; i++, t += 80) one.onBytes(t, 1000, 1);
    t -= 80;
    expect(one.lastHopFull(t, 3)).toBe(true);
    expect(one.lastHopShared(t, 3)).toBe(false);
    const mixed = new RxRateEstimator(1000, FULL, 'recent');
    t = 0;
    for (let i = 0; i < 62; i++, t += 160) mixed.onBytes(t, 1000, 1);
    for (let i = 0; i < 4; i++, t += 80) mixed.onBytes(t, 1000, 1 + (i % 2));
    t -= 80;
    expect(mixed.lastHopShared(t, 3)).toBe(true);
    // A full round holds whatever the QPs; busy never uses the recent test.
    const full = new RxRateEstimator(1000, FULL, 'busy');
    t = feed(full, 0, 80, 30);
    expect(full.lastHopShared(t, 3)).toBe(true);
    const busy = new RxRateEstimator(1000, FULL, 'busy');
    t = 0;
    for (let i = 0; i < 62; i++, t += 160) busy.onBytes(t, 1000, 1);
    for (let i = 0; i < 4; i++, t += 80) busy.onBytes(t, 1000, 1 + (i % 2));
    expect(busy.lastHopShared(t - 80, 3)).toBe(false);
  });
});
