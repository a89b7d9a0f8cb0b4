import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bytes, durationNs, int, rateBps, real } from '../../src/cc/params.js';
import * as registry from '../../src/cc/registry.js';
import { resolveCcParams } from '../../src/config/cc-params.js';
import { ConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { duration, rate, size } from '../../src/config/units.js';
import {
  formatDuration,
  formatRate,
  formatSize,
  parseDuration,
  parseRate,
  parseSize,
} from '../../src/units/index.js';

/** One CC parameter of each kind, as an algorithm declares them. */
const ccSchema = z.object({
  r: rateBps(1e9, 'rate'),
  d: durationNs(1000, 'duration'),
  b: bytes(1000, 'size'),
  x: real(0.5, 0, 1, 'real'),
  n: int(3, 'int'),
});
const ccParse = (input: Record<string, unknown>) => ccSchema.safeParse(input);

describe('one unit grammar: scenario values and CC parameters agree', () => {
  it.each([
    ['r', '40Mbps', 40e6],
    ['r', '100Gb/s', 100e9],
    ['r', '10Kbps', 10e3],
    ['d', '55us', 55_000],
    ['d', '55µs', 55_000], // U+00B5 micro sign
    ['d', '55μs', 55_000], // U+03BC Greek mu: refused by CC parameters before the shared grammar
    ['d', '2ms', 2e6],
    ['b', '10MB', 10e6],
    ['b', '9KiB', 9216],
    ['b', '400KB', 400e3],
  ] as const)('cc.%s = %s → %d, as in a scenario', (key, text, want) => {
    const r = ccParse({ [key]: text });
    expect(r.success).toBe(true);
    expect((r.data as Record<string, number>)[key]).toBe(want);
    const scenario = { r: rate(), d: duration(), b: size() }[key].safeParse(text);
    expect(scenario.data).toBe(want);
  });

  it.each([
    ['b', '10Mb'], // megabits: read as 10 MB before the shared grammar
    ['b', '10mb'],
    ['b', '10Mbps'],
    ['r', '40MBps'], // bytes per second: read as 40 Mbit/s before
    ['r', '40MB'],
    ['r', '55us'],
    ['d', '55uS'],
    ['d', '10MB'],
    ['x', '5%x'],
    ['n', '3us'],
  ] as const)('cc.%s = %s is refused, never reinterpreted', (key, text) => {
    const r = ccParse({ [key]: text });
    expect(r.success).toBe(false);
    const scenarioSchema = { r: rate(), d: duration(), b: size(), x: null, n: null }[key];
    if (scenarioSchema !== null) expect(scenarioSchema.safeParse(text).success).toBe(false);
  });

  it('CC durations and sizes round to whole ns and bytes; the scenario insists on them', () => {
    expect(ccParse({ d: '2.5ns' }).data?.d).toBe(3);
    expect(ccParse({ b: '1.0004KB' }).data?.b).toBe(1000);
    expect(parseDuration('2.5ns')).toBeNull();
    expect(parseSize('1.0004KB')).toBeNull();
  });
});

describe('format → parse round trip (property)', () => {
  it('rates: parse(format(bps)) is within the 6 significant digits format keeps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 13 }), (bps) => {
        const text = formatRate(bps);
        const back = parseRate(text);
        expect(back).not.toBeNull();
        expect(Math.abs((back as number) - bps)).toBeLessThanOrEqual(bps * 5e-6);
        expect(ccParse({ r: text }).data?.r).toBe(back);
      }),
    );
  });

  it('durations: every whole-µs, whole-ms or whole-ns value comes back exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999 }), fc.constantFrom(1, 1e3, 1e6), (m, scale) => {
        const ns = m * scale;
        const text = formatDuration(ns);
        expect(parseDuration(text)).toBe(ns);
        expect(ccParse({ d: text }).data?.d).toBe(ns);
      }),
    );
  });

  it('sizes: exact decimal and binary multiples come back exactly, in both readers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 99_999 }),
        fc.constantFrom(1, 1e3, 1e6, 1024, 1024 ** 2),
        (m, scale) => {
          const b = m * scale;
          const text = formatSize(b);
          expect(parseSize(text)).toBe(b);
          expect(ccParse({ b: text }).data?.b).toBe(b);
        },
      ),
    );
  });
});

describe('a bad unit in --set cc.* is one ConfigError line (the CLI exits 2 with it)', () => {
  it.each([
    [
      'cc.dcqcn.byteCounterBytes=10Mb',
      'cc.dcqcn: parameter "byteCounterBytes": expected a size such as 10MB (got "10Mb")',
    ],
    ['cc.dcqcn.rai=40MBps', 'cc.dcqcn: parameter "rateAiBps": expected a rate such as 40Mbps (got "40MBps")'],
  ])('%s', (set, message) => {
    const s = parseScenarioText('topology: { kind: star, hosts: 3 }\n', { overrides: [set] });
    const reg = {
      names: registry.listAlgorithms().map((a) => a.name),
      resolveParams: registry.resolveParams,
    };
    let caught: unknown;
    try {
      resolveCcParams(s, reg);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toBe(message);
  });

  it('μs (Greek mu) in --set cc.* is 1000 ns, as in the scenario', () => {
    const s = parseScenarioText('topology: { kind: star, hosts: 3 }\n', { overrides: ['cc.dcqcn.kt=55μs'] });
    const reg = {
      names: registry.listAlgorithms().map((a) => a.name),
      resolveParams: registry.resolveParams,
    };
    expect(resolveCcParams(s, reg).dcqcn.rateIncreasePeriodNs).toBe(55_000);
  });
});
