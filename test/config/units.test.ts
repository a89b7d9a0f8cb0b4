import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  duration,
  flowSize,
  formatDuration,
  formatRate,
  formatSize,
  fraction,
  integer,
  parseDuration,
  parseFraction,
  parseRate,
  parseSize,
  rate,
  size,
} from '../../src/config/units.js';

describe('parseRate', () => {
  it.each([
    ['100Gbps', 100e9],
    ['25Gbps', 25e9],
    ['400Mbps', 400e6],
    ['10kbps', 10e3],
    ['10Kbps', 10e3],
    ['1Tbps', 1e12],
    ['2.5Gbps', 2.5e9],
    ['100 Gbps', 100e9],
    ['100Gb/s', 100e9],
    ['100gbps', 100e9],
    ['1000bps', 1000],
    ['1e9', 1e9],
    [40e9, 40e9],
  ])('%s → %d bit/s', (input, bps) => {
    expect(parseRate(input)).toBe(bps);
  });

  it.each([
    '100GBps',
    '100 GB',
    '100G',
    'fast',
    '',
    'Gbps',
    true,
    null,
    [1],
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('rejects %s', (input) => {
    expect(parseRate(input)).toBeNull();
  });
});

describe('parseDuration', () => {
  it.each([
    ['1us', 1000],
    ['2.5us', 2500],
    ['0.3us', 300],
    ['20ms', 20e6],
    ['500ns', 500],
    ['1s', 1e9],
    ['1µs', 1000],
    ['1μs', 1000],
    ['1.5ms', 1_500_000],
    [750, 750],
    ['750', 750],
    ['0', 0],
  ])('%s → %d ns', (input, ns) => {
    expect(parseDuration(input)).toBe(ns);
  });

  it.each(['0.5ns', '1.0001us', '1min', '1 sec', 'soon', 1.5, {}])('rejects %s', (input) => {
    expect(parseDuration(input)).toBeNull();
  });
});

describe('parseSize (KB = 1000, KiB = 1024)', () => {
  it.each([
    ['32MB', 32e6],
    ['64KB', 64_000],
    ['64kB', 64_000],
    ['1000B', 1000],
    ['9KiB', 9216],
    ['1MiB', 1_048_576],
    ['1GiB', 2 ** 30],
    ['1.5KB', 1500],
    ['1GB', 1e9],
    [4096, 4096],
  ])('%s → %d bytes', (input, bytes) => {
    expect(parseSize(input)).toBe(bytes);
  });

  it.each(['1.5B', '64Kb', '64 kilobytes', '1.0001KiB', 'big', false])('rejects %s', (input) => {
    expect(parseSize(input)).toBeNull();
  });
});

describe('parseFraction', () => {
  it.each([
    ['50%', 0.5],
    [0.2, 0.2],
    ['0.25', 0.25],
    ['100%', 1],
    ['0%', 0],
  ])('%s → %d', (input, f) => {
    expect(parseFraction(input)).toBeCloseTo(f, 12);
  });
  it.each(['50 percent', 'half', '5x'])('rejects %s', (input) => {
    expect(parseFraction(input)).toBeNull();
  });
});

describe('formatting', () => {
  it('uses the largest exact unit, decimal first', () => {
    expect(formatRate(100e9)).toBe('100Gbps');
    expect(formatRate(2.5e9)).toBe('2.5Gbps');
    expect(formatRate(40e6)).toBe('40Mbps');
    expect(formatRate(999)).toBe('999bps');
    expect(formatDuration(1500)).toBe('1.5us');
    expect(formatDuration(20e6)).toBe('20ms');
    expect(formatDuration(80)).toBe('80ns');
    expect(formatSize(400_000)).toBe('400KB');
    expect(formatSize(1_600_000)).toBe('1600KB');
    expect(formatSize(3072)).toBe('3KiB');
    expect(formatSize(32e6)).toBe('32MB');
    expect(formatSize(1500)).toBe('1.5KB');
    expect(formatSize(0)).toBe('0B');
    expect(formatSize(Number.POSITIVE_INFINITY)).toBe('inf');
  });

  it('round-trips through the parsers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), (n) => {
        expect(parseSize(formatSize(n))).toBeCloseTo(n, -Math.max(0, Math.floor(Math.log10(n + 1)) - 5));
        expect(parseDuration(formatDuration(n))).toBeCloseTo(
          n,
          -Math.max(0, Math.floor(Math.log10(n + 1)) - 5),
        );
      }),
    );
    // Values with few significant digits round-trip exactly.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999 }), fc.integer({ min: 0, max: 7 }), (m, e) => {
        const n = m * 10 ** e;
        expect(parseSize(formatSize(n))).toBe(n);
        expect(parseDuration(formatDuration(n))).toBe(n);
        expect(parseRate(formatRate(n))).toBe(n);
      }),
    );
  });
});

describe('zod unit schemas', () => {
  const msg = (
    schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } },
    v: unknown,
  ) => schema.safeParse(v).error?.issues[0].message;

  it('parse to base units', () => {
    expect(rate().parse('25Gbps')).toBe(25e9);
    expect(duration().parse('2.5us')).toBe(2500);
    expect(size().parse('64KB')).toBe(64_000);
    expect(fraction().parse('20%')).toBeCloseTo(0.2, 12);
    expect(flowSize().parse('inf')).toBe(Number.POSITIVE_INFINITY);
    expect(flowSize().parse('1MB')).toBe(1e6);
    expect(integer({ min: 1 }).parse(3)).toBe(3);
  });

  it('explain what they expected and echo the bad value', () => {
    expect(msg(size(), -5)).toBe('expected a size like 64KB, got -5');
    expect(msg(size(), '64 KiloBytes')).toBe('expected a size like 64KB, got "64 KiloBytes"');
    expect(msg(rate(), '100GBps')).toBe('expected a rate like 100Gbps, got "100GBps"');
    expect(msg(rate(), 0)).toBe('expected a rate greater than 0bps, got 0');
    expect(msg(duration(), true)).toBe('expected a duration like 10us, got true');
    expect(msg(duration({ min: 1 }), 0)).toBe('expected a duration of at least 1ns, got 0');
    expect(msg(size({ min: 64, max: 9000 }), '9KiB')).toBe('expected a size of at most 9KB, got "9KiB"');
    expect(msg(fraction(), 1.5)).toBe('expected a fraction in [0, 1] like 0.2 or 20%, got 1.5');
    expect(msg(fraction({ above: 0 }), 0)).toBe('expected a fraction in (0, 1] like 0.2 or 20%, got 0');
    expect(msg(integer({ min: 2 }), 1.5)).toBe('expected an integer ≥ 2, got 1.5');
    expect(msg(integer({ min: 0, max: 7 }), 8)).toBe('expected an integer in [0, 7], got 8');
    expect(msg(flowSize(), 0)).toBe('expected a flow size like 64KB or inf, got 0');
    expect(msg(size(), undefined)).toBe('required');
  });
});
