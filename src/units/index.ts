/**
 * The one unit grammar of rocelab: rates, durations, sizes and fractions written the way papers
 * write them (`100Gbps`, `2.5us`, `400KB`, `20%`), parsed to base units (bit/s, ns, bytes, a
 * number in [0, 1]). The scenario file, `--set`, ROCELAB_SET and every congestion-control
 * parameter read values through these functions; docs/scenario.md ("Units") documents the grammar.
 *
 * Size prefixes are decimal, as in the HPCC simulator and the papers' buffer/threshold tables
 * (`400KB` = 400 000 B): KB = 10^3, MB = 10^6, GB = 10^9. Binary sizes use IEC names:
 * KiB = 1024, MiB = 2^20, GiB = 2^30. Size units are case-sensitive: `Mb` (megabit) is not a
 * size and is refused rather than read as `MB`. Rate prefixes are decimal (1 Gbps = 10^9 bit/s);
 * `B` is never accepted in a rate because `MBps` would mean bytes. A bare number is in the base
 * unit (bytes, bit/s, ns).
 *
 * Pure and dependency-free, so the sans-IO firmware (src/cc) and the config layer share it.
 */

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

/**
 * `1us`, `2.5us`, `0.3ns`, 1000 → ns, not rounded (CC parameters round; the scenario insists on
 * whole ns through parseDuration). Null when the unit is not a duration unit.
 */
export function parseDurationValue(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  const scale = p.unit === '' ? 1 : DURATION_UNIT[p.unit];
  if (scale === undefined) return null;
  return p.n * scale;
}

/** `1us`, `2.5us`, `20ms`, `500ns`, `1s`, 1000 → integer ns. Null when not a whole number of ns. */
export function parseDuration(v: unknown): number | null {
  const ns = parseDurationValue(v);
  return ns === null ? null : wholeNumber(ns);
}

/** `64KB`, `1.5KB`, `9KiB`, 1000 → bytes, not rounded. Null when the unit is not a size unit. */
export function parseSizeValue(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  const scale = p.unit === '' ? 1 : SIZE_UNIT[p.unit];
  if (scale === undefined) return null;
  return p.n * scale;
}

/** `64KB`, `32MB`, `9KiB`, `1000B`, 1000 → integer bytes. Null when not a whole number of bytes. */
export function parseSize(v: unknown): number | null {
  const b = parseSizeValue(v);
  return b === null ? null : wholeNumber(b);
}

/** `0.5`, `50%` → 0.5. Null when not a number or percentage (range not checked). */
export function parseFraction(v: unknown): number | null {
  const p = splitNumberUnit(v);
  if (p === null) return null;
  if (p.unit === '') return p.n;
  if (p.unit === '%') return p.n / 100;
  return null;
}

/** `0.5`, `1e3`, 7 → the number; null for anything with a unit or not a number. */
export function parsePlainNumber(v: unknown): number | null {
  const p = splitNumberUnit(v);
  return p === null || p.unit !== '' ? null : p.n;
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
