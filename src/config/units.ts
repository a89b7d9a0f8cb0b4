/**
 * zod schemas for the scenario file's values with units. The grammar itself (which units, which
 * prefixes) is src/units, shared with `--set`, ROCELAB_SET and the congestion-control parameters;
 * docs/scenario.md ("Units") documents it. Scenario sizes and durations must be whole numbers of
 * bytes and ns.
 */
import { z } from 'zod';
import {
  formatDuration,
  formatRate,
  formatSize,
  parseDuration,
  parseFraction,
  parseRate,
  parseSize,
} from '../units/index.js';

export {
  formatDuration,
  formatRate,
  formatSize,
  parseDuration,
  parseFraction,
  parseRate,
  parseSize,
} from '../units/index.js';

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
