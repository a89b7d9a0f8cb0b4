import { describe, expect, it } from 'vitest';
import {
  type ClockMapping,
  emulatedDurationToRealNs,
  emulatedToRealNs,
  type HostTimers,
  RealClock,
  RealTimerService,
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

/** Host timers driven by hand, with a shared fake real clock. */
function manualHost(src: ReturnType<typeof fakeSource>) {
  let nextHandle = 1;
  const timeouts = new Map<number, { fn: () => void; atRealNs: number }>();
  const immediates = new Map<number, () => void>();
  const host: HostTimers = {
    setTimeout: (fn, ms) => {
      const h = nextHandle++;
      timeouts.set(h, { fn, atRealNs: src.source() + ms * 1e6 });
      return h;
    },
    clearTimeout: (h) => {
      timeouts.delete(h as number);
    },
    setImmediate: (fn) => {
      const h = nextHandle++;
      immediates.set(h, fn);
      return h;
    },
    clearImmediate: (h) => {
      immediates.delete(h as number);
    },
  };
  /** Advance real time to `realNs`, firing host timers as a Node event loop would. */
  const runUntil = (realNs: number) => {
    for (let guard = 0; guard < 100_000; guard++) {
      if (immediates.size > 0) {
        const [h, fn] = immediates.entries().next().value as [number, () => void];
        immediates.delete(h);
        fn();
        // Polling with setImmediate takes some real time.
        src.advance(10_000);
        continue;
      }
      let first: [number, { fn: () => void; atRealNs: number }] | undefined;
      for (const e of timeouts) if (first === undefined || e[1].atRealNs < first[1].atRealNs) first = e;
      if (first === undefined || first[1].atRealNs > realNs) break;
      timeouts.delete(first[0]);
      if (src.source() < first[1].atRealNs) src.advance(first[1].atRealNs - src.source());
      first[1].fn();
    }
    if (src.source() < realNs) src.advance(realNs - src.source());
  };
  return { host, runUntil, osTimers: () => timeouts.size + immediates.size };
}

describe('RealTimerService (manual host timers)', () => {
  it('fires in deadline order, on time, with one host timer for many pending timers', () => {
    const src = fakeSource(0);
    const m = manualHost(src);
    const clock = new RealClock({ timeScale: 1000, source: src.source });
    const timers = new RealTimerService(clock, { hostTimers: m.host, spinMs: 0 });
    const fired: Array<[number, number]> = [];
    for (let i = 0; i < 5000; i++) {
      const at = 1000 + ((i * 7919) % 5000) * 10;
      timers.setTimer(at, () => fired.push([at, clock.now()]));
    }
    expect(timers.pending).toBe(5000);
    expect(m.osTimers()).toBe(1);
    m.runUntil(60e9);
    expect(fired.length).toBe(5000);
    for (let i = 1; i < fired.length; i++) expect(fired[i][0]).toBeGreaterThanOrEqual(fired[i - 1][0]);
    for (const [at, now] of fired) {
      expect(now).toBeGreaterThanOrEqual(at);
      // setTimeout granularity is 1 ms real = 1 µs emulated here.
      expect(now - at).toBeLessThanOrEqual(1000);
    }
    expect(timers.lag().fired).toBe(5000);
    expect(m.osTimers()).toBe(0);
  });

  it('cancel works, and an earlier timer re-arms the host timer', () => {
    const src = fakeSource(0);
    const m = manualHost(src);
    const clock = new RealClock({ timeScale: 1, source: src.source });
    const timers = new RealTimerService(clock, { hostTimers: m.host, spinMs: 0 });
    const log: string[] = [];
    const late = timers.setTimer(50e6, () => log.push('late'));
    timers.setTimer(10e6, () => log.push('early'));
    const gone = timers.setTimer(20e6, () => log.push('cancelled'));
    timers.cancelTimer(gone);
    expect(m.osTimers()).toBe(1);
    m.runUntil(30e6);
    expect(log).toEqual(['early']);
    timers.cancelTimer(late);
    expect(m.osTimers()).toBe(0);
    m.runUntil(100e6);
    expect(log).toEqual(['early']);
  });

  it('past deadlines fire on the next turn; callbacks can schedule and cancel', () => {
    const src = fakeSource(0);
    const m = manualHost(src);
    const clock = new RealClock({ timeScale: 1, source: src.source });
    const timers = new RealTimerService(clock, { hostTimers: m.host, spinMs: 0 });
    const log: string[] = [];
    let b = 0;
    timers.setTimer(-5, () => {
      log.push('a');
      timers.cancelTimer(b);
      timers.setTimer(clock.now() + 3e6, () => log.push('c'));
    });
    b = timers.setTimer(1e6, () => log.push('b'));
    m.runUntil(10e6);
    expect(log).toEqual(['a', 'c']);
  });

  it('errors go to onError and the service keeps running', () => {
    const src = fakeSource(0);
    const m = manualHost(src);
    const clock = new RealClock({ timeScale: 1, source: src.source });
    const errors: unknown[] = [];
    const timers = new RealTimerService(clock, {
      hostTimers: m.host,
      spinMs: 0,
      onError: (e) => errors.push(e),
    });
    const log: number[] = [];
    timers.setTimer(1e6, () => {
      throw new Error('x');
    });
    timers.setTimer(2e6, () => log.push(2));
    m.runUntil(5e6);
    expect(errors.length).toBe(1);
    expect(log).toEqual([2]);
  });

  it('a clock-sync correction re-plans the wake-up', () => {
    const src = fakeSource(0);
    const m = manualHost(src);
    const clock = new RealClock({ timeScale: 1, source: src.source });
    const timers = new RealTimerService(clock, { hostTimers: m.host, spinMs: 0 });
    let firedAt = -1;
    timers.setTimer(10e6, () => {
      firedAt = src.source();
    });
    // The node learns it is 4 ms behind: emulated 10 ms now arrives 4 ms of real time sooner.
    clock.setOffsetNs(4e6);
    m.runUntil(20e6);
    expect(firedAt).toBeGreaterThanOrEqual(6e6);
    expect(firedAt).toBeLessThanOrEqual(7e6);
  });
});

describe('RealTimerService (real event loop)', () => {
  it('fires real timers in order within a generous tolerance', async () => {
    const clock = new RealClock({ timeScale: 1000 });
    const timers = new RealTimerService(clock);
    const start = clock.now();
    const fired: Array<[number, number]> = [];
    // 5..40 µs emulated = 5..40 ms real.
    const deadlines = [40_000, 5_000, 20_000, 10_000, 30_000, 20_000];
    await new Promise<void>((resolve) => {
      let left = deadlines.length;
      for (const d of deadlines) {
        timers.setTimer(start + d, () => {
          fired.push([d, clock.now() - start]);
          if (--left === 0) resolve();
        });
      }
    });
    expect(fired.map((f) => f[0])).toEqual([5_000, 10_000, 20_000, 20_000, 30_000, 40_000]);
    for (const [d, at] of fired) {
      expect(at).toBeGreaterThanOrEqual(d);
      // 50 ms real of slack for a loaded CI machine.
      expect(at - d).toBeLessThan(50_000);
    }
    timers.close();
  });
});
