/**
 * results.json's text (docs/results.md): fixed key order, fixed rounding, one flow, port, host or
 * series per line, so the same run twice is byte-identical and diffs between runs stay readable.
 *
 * The text is produced as a sequence of pieces, in file order, that `writeResultsFile` writes in
 * chunks of about 64 K characters: the whole file never exists as one string, nor does a string
 * per point. On the 320-host fat tree (2.3 M series points, a 38 MB file) building the whole text
 * first cost about 120 MB of heap on top of the results; streaming it costs a chunk. Pieces and
 * chunks stay below V8's large-object size (128 KB): a larger string is allocated in the old
 * generation and stays there, garbage, until the next full collection.
 */

import { closeSync, openSync, writeSync } from 'node:fs';
import type { FlatSeries, Results } from './results.js';

/** JSON numbers: non-finite values become null (never "Infinity" in the file). */
function num(x: number | null): string {
  return x === null || !Number.isFinite(x) ? 'null' : JSON.stringify(x);
}

function rec(o: object): string {
  return JSON.stringify(o, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v));
}

/** Points of a series per piece: bounds the short-lived strings of one piece (about 20 KB). */
const POINTS_PER_PIECE = 1024;

/** One flat series as `[[t,v],[t,v],…]`, in pieces of at most POINTS_PER_PIECE points. */
function* points(flat: FlatSeries): Generator<string> {
  const n = flat.length >> 1;
  if (n === 0) {
    yield '[]';
    return;
  }
  for (let from = 0; from < n; from += POINTS_PER_PIECE) {
    const to = Math.min(n, from + POINTS_PER_PIECE);
    const parts = new Array<string>(to - from);
    for (let i = from; i < to; i++) parts[i - from] = `[${num(flat[2 * i])},${num(flat[2 * i + 1])}]`;
    yield `${from === 0 ? '[' : ','}${parts.join(',')}${to === n ? ']' : ''}`;
  }
}

/** A list of one-line records, one per line at `indent` + 2. */
function* list<T>(items: readonly T[], line: (x: T) => string, indent: string): Generator<string> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  yield '[\n';
  for (let i = 0; i < items.length; i++)
    yield `${indent}  ${line(items[i])}${i + 1 < items.length ? ',\n' : `\n${indent}]`}`;
}

function* seriesMap(m: Record<string, FlatSeries>): Generator<string> {
  const keys = Object.keys(m);
  if (keys.length === 0) {
    yield '{}';
    return;
  }
  yield '{\n';
  for (let i = 0; i < keys.length; i++) {
    yield `      ${JSON.stringify(keys[i])}: `;
    yield* points(m[keys[i]]);
    yield i + 1 < keys.length ? ',\n' : '\n    }';
  }
}

/** A top-level key: its value's pieces after `  "key": `. */
function* entry(key: string, value: Iterable<string> | string, first = false): Generator<string> {
  yield `${first ? '' : ',\n'}  "${key}": `;
  if (typeof value === 'string') yield value;
  else yield* value;
}

/** The text of results.json in file order: top-level keys in the order of docs/results.md, trailing newline. */
export function* resultsJsonPieces(r: Results): Generator<string> {
  yield '{\n';
  yield* entry('version', num(r.version), true);
  yield* entry('scenario', JSON.stringify(r.scenario));
  yield* entry('runtime', JSON.stringify(r.runtime));
  yield* entry('seed', num(r.seed));
  yield* entry('timeScale', num(r.timeScale));
  yield* entry('durationNs', num(r.durationNs));
  yield* entry('ccByHost', rec(r.ccByHost));
  yield* entry('flows', list(r.flows, rec, '  '));
  yield* entry('ports', list(r.ports, rec, '  '));
  yield* entry('hosts', list(r.hosts, rec, '  '));
  yield* entry('series', seriesSection(r));
  yield* entry('trace', list(r.trace, rec, '  '));
  yield* entry('summary', rec(r.summary));
  yield* entry(
    'warnings',
    list(r.warnings, (w: string) => JSON.stringify(w), '  '),
  );
  if (r.realtime !== undefined) yield* entry('realtime', JSON.stringify(r.realtime));
  if (r.probes !== undefined) yield* entry('probes', probesSection(r.probes));
  if (r.collectives !== undefined) yield* entry('collectives', collectivesSection(r.collectives));
  yield '\n}\n';
}

function* seriesSection(r: Results): Generator<string> {
  yield '{\n    "queue": ';
  yield* seriesMap(r.series.queue);
  yield ',\n    "rate": ';
  yield* seriesMap(r.series.rate);
  yield '\n  }';
}

function* probesSection(p: NonNullable<Results['probes']>): Generator<string> {
  yield `{\n    "binNs": ${num(p.binNs)},\n    "bins": ${num(p.bins)},\n    "ports": `;
  yield* list(p.ports, rec, '    ');
  yield ',\n    "flows": ';
  yield* list(p.flows, rec, '    ');
  yield '\n  }';
}

function* collectivesSection(c: NonNullable<Results['collectives']>): Generator<string> {
  yield '{\n    "ops": ';
  yield* list(c.ops, rec, '    ');
  yield ',\n    "jobs": ';
  yield* list(c.jobs, rec, '    ');
  yield ',\n    "slowest": ';
  yield* list(c.slowest, rec, '    ');
  yield ',\n    "fabricLinks": ';
  yield* list(c.fabricLinks, rec, '    ');
  yield '\n  }';
}

/** The results file text as one string (tests, `rocelab run --json`). */
export function serializeResults(r: Results): string {
  return [...resultsJsonPieces(r)].join('');
}

/**
 * Characters gathered before a write: enough that writes are few (about 600 for a 38 MB file),
 * few enough that a chunk and its bytes die in the young generation.
 */
const WRITE_CHUNK_CHARS = 1 << 16;

/**
 * The results file text in chunks of about WRITE_CHUNK_CHARS, in order (their concatenation is
 * serializeResults): for writers that should never hold the whole text, which on a large run is
 * hundreds of MB and can pass V8's longest string.
 */
export function* resultsJsonChunks(r: Results): Generator<string> {
  let pending: string[] = [];
  let pendingChars = 0;
  for (const piece of resultsJsonPieces(r)) {
    pending.push(piece);
    pendingChars += piece.length;
    if (pendingChars >= WRITE_CHUNK_CHARS) {
      yield pending.join('');
      pending = [];
      pendingChars = 0;
    }
  }
  if (pending.length > 0) yield pending.join('');
}

/** Write results.json to `path` in chunks, never holding the whole text (byte-identical to serializeResults). */
export function writeResultsFile(path: string, r: Results): void {
  const fd = openSync(path, 'w');
  try {
    for (const chunk of resultsJsonChunks(r)) writeAll(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** writeSync may write less than asked: loop until the chunk is out. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off);
}
