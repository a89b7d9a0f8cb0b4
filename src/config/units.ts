/**
 * Units of the scenario file: rates, durations, sizes and fractions written the way papers write
 * them (`100Gbps`, `2.5us`, `400KB`, `20%`), parsed to base units (bit/s, integer ns, integer
 * bytes, a number in [0, 1]).
 *
 * Size prefixes are decimal, as in the HPCC simulator and the papers' buffer/threshold tables
 * (`400KB` = 400 000 B): KB = 10^3, MB = 10^6, GB = 10^9. Binary sizes use IEC names:
 * KiB = 1024, MiB = 2^20, GiB = 2^30. Rate prefixes are decimal (1 Gbps = 10^9 bit/s); `B` is
 * never accepted in a rate because `MBps` would mean bytes. A bare number is in the base unit
 * (bytes, bit/s, ns).
 */
import { z } from 'zod';

const NUMBER_AND_UNIT = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(\S*)$/;

const RATE_PREFIX: Record<string, number> = { '': 1, k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const RATE_UNIT = /^([kKmMgGtT]?)(bps|b\/s|bit\/s)$/;

const DURATION_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 micro sign
  μs: 1e3, // U+03BC Greek mu
  ms: 1e6,
  s: 1e9,
};

const SIZE_UNIT: Record<string, number> = {
  B: 1,
  KB: 1e3,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};

/** Whole-number tolerance: 0.3us·1000 is 300.00000000000006 ns, not a fractional ns. */
const INTEGER_EPSILON = 1e-6;

function splitNumberUnit(v: unknown): { n: number; unit: string } | null {
  if (typeof v === 'number') return Number.isFinite(v) ? { n: v, unit: '' } : null;
  if (typeof v !== 'string') return null;
  const m = NUMBER_AND_UNIT.exec(v.trim());
  if (m === null) return null;
  return { n: Number(m[1]), unit: m[2] };
}

function wholeNumber(x: number): number | null {
  const r = Math.round(x);
  if (Math.abs(x - r) > INTEGER_EPSILON * Math.max(1, Math.abs(x))) return null;
  return Number.isSafeInteger(r) ? r : null;
}

/** `100Gbps`, `400 Mbps`, `25Gb/s`, `10kbps`, 1e9 → bit/s. Null when not a rate (sign not checked). */
export function parseRate(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  if (p.unit === '') return p.n;
  const m = RATE_UNIT.exec(p.unit);
  if (m === null) return null;
  const bps = p.n * RATE_PREFIX[m[1].toLowerCase()];
  // 268.96Gbps is 268959999999.99997 in floating point; snap such values to whole bit/s.
  return wholeNumber(bps) ?? bps;
}

/** `1us`, `2.5us`, `20ms`, `500ns`, `1s`, 1000 → integer ns. Null when not a whole number of ns. */
export function parseDuration(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  const scale = p.unit === '' ? 1 : DURATION_UNIT[p.unit];
  if (scale === undefined) return null;
  return wholeNumber(p.n * scale);
}

/** `64KB`, `32MB`, `9KiB`, `1000B`, 1000 → integer bytes. Null when not a whole number of bytes. */
export function parseSize(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  const scale = p.unit === '' ? 1 : SIZE_UNIT[p.unit];
  if (scale === undefined) return null;
  return wholeNumber(p.n * scale);
}

/** `0.5`, `50%` → 0.5. Null when not a number or percentage (range not checked). */
export function parseFraction(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  if (p.unit === '') return p.n;
  if (p.unit === '%') return p.n / 100;
  return null;
}

/** A value as it appears in messages: strings quoted, lists and maps named. */
export function showValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? 'an empty list' : 'a list';
  if (typeof v === 'object') return 'a map';
  return typeof v;
}

// --------------------------------------------------------------------------------------------
// Formatting (messages, `rocelab list`).

function trimNumber(x: number): string {
  return Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(6)));
}

/** 1e11 → `100Gbps`, 2.5e9 → `2.5Gbps`. */
export function formatRate(bps: number): string {
  for (const [unit, scale] of [
    ['Tbps', 1e12],
    ['Gbps', 1e9],
    ['Mbps', 1e6],
    ['kbps', 1e3],
  ] as const) {
    if (Math.abs(bps) >= scale) return trimNumber(bps / scale) + unit;
  }
  return trimNumber(bps) + 'bps';
}

/** 1500 → `1.5us`, 20e6 → `20ms`. */
export function formatDuration(ns: number): string {
  for (const [unit, scale] of [
    ['s', 1e9],
    ['ms', 1e6],
    ['us', 1e3],
  ] as const) {
    if (Math.abs(ns) >= scale) return trimNumber(ns / scale) + unit;
  }
  return trimNumber(ns) + 'ns';
}

/** 400000 → `400KB`, 1600000 → `1600KB`, 3072 → `3KiB`, 1500 → `1.5KB`, Infinity → `inf`. */
export function formatSize(bytes: number): string {
  if (bytes === Number.POSITIVE_INFINITY) return 'inf';
  if (bytes === 0 || !Number.isFinite(bytes)) return `${bytes}B`;
  const decimal = [
    ['GB', 1e9],
    ['MB', 1e6],
    ['KB', 1e3],
  ] as const;
  const binary = [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const;
  // Exact forms first (decimal preferred, as papers write), then the nearest decimal one.
  for (const [unit, scale] of decimal) if (bytes % scale === 0) return bytes / scale + unit;
  for (const [unit, scale] of binary) if (bytes % scale === 0) return bytes / scale + unit;
  for (const [unit, scale] of decimal) if (Math.abs(bytes) >= scale) return trimNumber(bytes / scale) + unit;
  return trimNumber(bytes) + 'B';
}

// --------------------------------------------------------------------------------------------
// Zod schemas. Each takes number | string and yields the base unit; messages name the expected
// form and echo the bad value, e.g. `expected a size like 64KB, got -5`.

export interface Bounds {
  /** Inclusive lower bound in base units. */
  min?: number;
  /** Inclusive upper bound in base units. */
  max?: number;
  /** Exclusive lower bound in base units. */
  above?: number;
}

function unitSchema(
  what: string,
  example: string,
  parse: (v: unknown) => number | null,
  format: (n: number) => string,
  bounds: Bounds,
  defaultMin: number,
) {
  const min = bounds.min ?? defaultMin;
  return z.unknown().transform((v, ctx): number => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    const n = parse(v);
    if (n === null || n < 0) {
      ctx.addIssue({ code: 'custom', message: `expected ${what} like ${example}, got ${showValue(v)}` });
      return z.NEVER;
    }
    if (n < min) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${what} of at least ${format(min)}, got ${showValue(v)}`,
      });
      return z.NEVER;
    }
    if (bounds.above !== undefined && !(n > bounds.above)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${what} greater than ${format(bounds.above)}, got ${showValue(v)}`,
      });
      return z.NEVER;
    }
    if (bounds.max !== undefined && n > bounds.max) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${what} of at most ${format(bounds.max)}, got ${showValue(v)}`,
      });
      return z.NEVER;
    }
    return n;
  });
}

/** A rate in bit/s, > 0 unless bounds say otherwise. */
export const rate = (b: Bounds = {}) =>
  unitSchema('a rate', '100Gbps', parseRate, formatRate, { above: 0, ...b }, 0);

/** A duration in integer ns, >= 0 unless bounds say otherwise. */
export const duration = (b: Bounds = {}) =>
  unitSchema('a duration', '10us', parseDuration, formatDuration, b, 0);

/** A size in integer bytes, >= 0 unless bounds say otherwise. */
export const size = (b: Bounds = {}) => unitSchema('a size', '64KB', parseSize, formatSize, b, 0);

/** A flow size in bytes, or `inf` for a flow that sends until the run ends (Infinity). */
export const flowSize = () =>
  z.unknown().transform((v, ctx): number => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    if (
      v === Number.POSITIVE_INFINITY ||
      (typeof v === 'string' && /^(inf|infinite|\.inf|infinity)$/i.test(v))
    )
      return Number.POSITIVE_INFINITY;
    const n = parseSize(v);
    if (n === null || n < 1) {
      ctx.addIssue({ code: 'custom', message: `expected a flow size like 64KB or inf, got ${showValue(v)}` });
      return z.NEVER;
    }
    return n;
  });

/** A fraction in [0, 1] (or the bounds given), written 0.2 or 20%. */
export const fraction = (b: Bounds = {}) => {
  const lo = b.min ?? 0;
  const hi = b.max ?? 1;
  const range = b.above !== undefined ? `(${b.above}, ${hi}]` : `[${lo}, ${hi}]`;
  return z.unknown().transform((v, ctx): number => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    const n = parseFraction(v);
    const ok = n !== null && n >= lo && n <= hi && (b.above === undefined || n > b.above);
    if (!ok) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a fraction in ${range} like 0.2 or 20%, got ${showValue(v)}`,
      });
      return z.NEVER;
    }
    return n;
  });
};

/** An integer within bounds (no unit). */
export const integer = (b: { min?: number; max?: number } = {}) => {
  const lo = b.min ?? Number.MIN_SAFE_INTEGER;
  const hi = b.max ?? Number.MAX_SAFE_INTEGER;
  const range =
    b.max !== undefined && b.min !== undefined
      ? ` in [${lo}, ${hi}]`
      : b.min !== undefined
        ? ` ≥ ${lo}`
        : b.max !== undefined
          ? ` ≤ ${hi}`
          : '';
  return z.unknown().transform((v, ctx): number => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < lo || v > hi) {
      ctx.addIssue({ code: 'custom', message: `expected an integer${range}, got ${showValue(v)}` });
      return z.NEVER;
    }
    return v;
  });
};

/** A finite number > 0 (e.g. timeScale). */
export const positiveNumber = () =>
  z.unknown().transform((v, ctx): number => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'required' });
      return z.NEVER;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      ctx.addIssue({ code: 'custom', message: `expected a number > 0, got ${showValue(v)}` });
      return z.NEVER;
    }
    return v;
  });
