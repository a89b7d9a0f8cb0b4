/**
 * zod building blocks for algorithm parameters. Values may come from YAML, `--set k=v` or
 * environment variables, so every numeric parameter also accepts a string, with the unit its
 * name carries (`rateAiBps: 40Mbps`, `alphaPeriodNs: 55us`, `byteCounterBytes: 10MB`).
 * Decimal prefixes (1 KB = 1000 B, 1 Mbps = 10^6 bit/s) as in the papers; KiB/MiB are binary.
 */
import { z } from 'zod';

/** Our wording for a wrong type; zod's own messages for ranges ("Too big: expected number to be <=1"). */
function typeError(message: string) {
  return (issue: { code: string }) => (issue.code === 'invalid_type' ? message : undefined);
}

const NUMBER = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?';

function unitParser(units: Record<string, number>): (v: unknown) => unknown {
  const re = new RegExp(`^\\s*(${NUMBER})\\s*([A-Za-zµ/]*)\\s*$`);
  const lower = new Map(Object.entries(units).map(([k, f]) => [k.toLowerCase(), f]));
  return (v: unknown) => {
    if (typeof v !== 'string') return v;
    const m = re.exec(v);
    if (m === null) return v;
    const factor = m[2] === '' ? 1 : (units[m[2]] ?? lower.get(m[2].toLowerCase()));
    // Leave unparseable strings alone so the schema reports them as the wrong type.
    if (factor === undefined) return v;
    return Number(m[1]) * factor;
  };
}

const RATE_UNITS: Record<string, number> = {
  bps: 1,
  'bit/s': 1,
  kbps: 1e3,
  Kbps: 1e3,
  Mbps: 1e6,
  Gbps: 1e9,
  Tbps: 1e12,
};
const TIME_UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 };
const BYTE_UNITS: Record<string, number> = {
  B: 1,
  KB: 1e3,
  kB: 1e3,
  MB: 1e6,
  GB: 1e9,
  KiB: 1024,
  MiB: 1024 * 1024,
  GiB: 1024 * 1024 * 1024,
};

/** Rate in bit/s (number, or a string like `40Mbps`). */
export function rateBps(def: number, description: string) {
  return z
    .preprocess(
      unitParser(RATE_UNITS),
      z
        .number({ error: typeError('expected a rate such as 40Mbps') })
        .finite()
        .nonnegative(),
    )
    .default(def)
    .describe(description);
}

/** Duration in integer ns (number, or a string like `55us`). */
export function durationNs(def: number, description: string) {
  return z
    .preprocess(
      unitParser(TIME_UNITS),
      z
        .number({ error: typeError('expected a duration such as 55us') })
        .finite()
        .nonnegative()
        .transform((v) => Math.round(v)),
    )
    .default(def)
    .describe(description);
}

/** Byte count (number, or a string like `10MB`). */
export function bytes(def: number, description: string) {
  return z
    .preprocess(
      unitParser(BYTE_UNITS),
      z
        .number({ error: typeError('expected a size such as 10MB') })
        .finite()
        .nonnegative()
        .transform((v) => Math.round(v)),
    )
    .default(def)
    .describe(description);
}

/** Plain real number within [min, max]. */
export function real(def: number, min: number, max: number, description: string) {
  return z
    .preprocess(
      unitParser({}),
      z
        .number({ error: typeError('expected a number') })
        .min(min)
        .max(max),
    )
    .default(def)
    .describe(description);
}

/** Non-negative integer. */
export function int(def: number, description: string) {
  return z
    .preprocess(
      unitParser({}),
      z
        .number({ error: typeError('expected an integer') })
        .int({ error: 'expected an integer' })
        .nonnegative(),
    )
    .default(def)
    .describe(description);
}

export function bool(def: boolean, description: string) {
  return z
    .preprocess(
      (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
      z.boolean({ error: typeError('expected true or false') }),
    )
    .default(def)
    .describe(description);
}

export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  def: T[number],
  description: string,
) {
  return z
    .enum(values, { error: `expected one of ${values.join(', ')}` })
    .default(def as never)
    .describe(description);
}
