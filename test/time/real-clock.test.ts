import { describe, expect, it } from 'vitest';
import {
  type ClockMapping,
  emulatedDurationToRealNs,
  emulatedToRealNs,
  RealClock,
  realDurationToEmulatedNs,
  realToEmulatedNs,
} from '../../src/time/real-clock.js';

const base: ClockMapping = { epochRealNs: 5_000_000, timeScale: 1000, offsetNs: 0, driftPpm: 0 };

describe('dilation arithmetic', () => {
  it('emulated = (real − epoch) / timeScale, floored', () => {
    expect(realToEmulatedNs(5_000_000, base)).toBe(0);
    // 1 ms of real time at TDF 1000 is 1 µs emulated.
    expect(realToEmulatedNs(5_000_000 + 1_000_000, base)).toBe(1000);
    expect(realToEmulatedNs(5_000_000 + 1_999, base)).toBe(1);
    expect(realToEmulatedNs(5_000_000 + 999, base)).toBe(0);
  });

  it('offset is added in emulated ns; drift scales the rate', () => {
    expect(realToEmulatedNs(6_000_000, { ...base, offsetNs: -250 })).toBe(750);
    // +100 ppm: after 1 s emulated (1000 s real) the clock is 100 µs ahead.
    const real = 5_000_000 + 1e12;
    expect(realToEmulatedNs(real, { ...base, driftPpm: 100 })).toBe(1e9 + 100_000);
  });

  it('emulatedToRealNs inverts realToEmulatedNs', () => {
    for (const m of [base, { ...base, offsetNs: 12_345, driftPpm: -37 }, { ...base, timeScale: 1 }]) {
      for (const emu of [0, 1, 999, 123_456_789, 3_600e9]) {
        const real = emulatedToRealNs(emu, m);
        // Rounding up by less than one real ns must land exactly on `emu`.
        expect(realToEmulatedNs(Math.ceil(real) + 1e-3, m)).toBe(emu);
      }
    }
  });

  it('converts durations both ways', () => {
    expect(emulatedDurationToRealNs(1000, 1000)).toBe(1e6);
    expect(realDurationToEmulatedNs(1e6, 1000)).toBe(1000);
    expect(emulatedDurationToRealNs(7, 1)).toBe(7);
  });
});

function fakeSource(start = 1e9) {
  let t = start;
  return {
    source: () => t,
    advance: (ns: number) => {
      t += ns;
    },
  };
}

describe('RealClock', () => {
  it('maps an injected real source through the dilation factor', () => {
    const src = fakeSource();
    const c = new RealClock({ timeScale: 100, source: src.source });
    expect(c.now()).toBe(0);
    src.advance(1e6);
    expect(c.now()).toBe(10_000);
    expect(c.toRealNs(20_000)).toBe(1e9 + 2e6);
    expect(c.toEmulatedNs(1e9 + 3e6)).toBe(30_000);
  });

  it('applies injected skew and the clock-sync correction', () => {
    const src = fakeSource();
    const c = new RealClock({ timeScale: 10, source: src.source, skew: { offsetNs: 5000 } });
    src.advance(10_000);
    expect(c.rawNowNs()).toBe(6000);
    expect(c.now()).toBe(6000);
    let changes = 0;
    c.onChange(() => changes++);
    c.setOffsetNs(-5000);
    expect(c.offsetNs).toBe(-5000);
    expect(c.rawNowNs()).toBe(6000);
    // A negative correction does not make time go backwards: it holds until real time catches up.
    expect(c.now()).toBe(6000);
    src.advance(50_000);
    expect(c.now()).toBe(6000);
    src.advance(20_000);
    expect(c.now()).toBe(8000);
    expect(changes).toBe(1);
  });

  it('rejects a bad timeScale', () => {
    expect(() => new RealClock({ timeScale: 0 })).toThrow(RangeError);
    expect(() => new RealClock({ timeScale: Number.NaN })).toThrow(RangeError);
  });

  it('the default source is monotonic and dilated', async () => {
    const c = new RealClock({ timeScale: 1000 });
    const a = c.now();
    await new Promise((r) => setTimeout(r, 20));
    const b = c.now();
    // 20 ms real = 20 µs emulated at TDF 1000; allow generous scheduling slack.
    expect(b - a).toBeGreaterThanOrEqual(15_000);
    expect(b - a).toBeLessThan(500_000);
  });
});
