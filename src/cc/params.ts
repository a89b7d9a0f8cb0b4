/**
 * zod building blocks for algorithm parameters. Values may come from YAML, `--set k=v` or
 * environment variables, so every numeric parameter also accepts a string, with the unit its
 * name carries (`rateAiBps: 40Mbps`, `alphaPeriodNs: 55us`, `byteCounterBytes: 10MB`), in the
 * one unit grammar of src/units (docs/scenario.md, "Units"). Durations and sizes round to whole
 * ns and bytes.
 */
import { z } from 'zod';
import { parseDurationValue, parsePlainNumber, parseRate, parseSizeValue } from '../units/index.js';

/** Our wording for a wrong type; zod's own messages for ranges ("Too big: expected number to be <=1"). */
function typeError(message: string) {
  return (issue: { code: string }) => (issue.code === 'invalid_type' ? message : undefined);
}

/**
 * Strings go through the shared unit grammar (src/units); a string it refuses (`10Mb` for a size,
 * `55us` for a rate) is left as is so the schema reports it as the wrong type, never reinterpreted.
 */
function unitParser(parse: (v: unknown) => number | null): (v: unknown) => unknown {
  return (v: unknown) => {
    if (typeof v !== 'string') return v;
    return parse(v) ?? v;
  };
}

/** Rate in bit/s (number, or a string like `40Mbps`). */
export function rateBps(def: number, description: string) {
  return z
    .preprocess(
      unitParser(parseRate),
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
      unitParser(parseDurationValue),
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
      unitParser(parseSizeValue),
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
      unitParser(parsePlainNumber),
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
      unitParser(parsePlainNumber),
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
