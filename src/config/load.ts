/**
 * Load a scenario: read the file, parse YAML, apply `--set key=value` overrides to the parsed
 * document, validate (scenario.ts) and resolve (resolve.ts). Every failure is a ConfigError
 * whose message is one line: `<key path>: <problem>`, `line L, column C: <YAML problem>` or a
 * file problem; `line` on the error points at the offending YAML node when known.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { LineCounter, parseDocument, parse as parseYaml } from 'yaml';
import { ConfigError, formatPath } from './errors.js';
import { resolveScenario } from './resolve.js';
import { type Scenario, scenarioSchema } from './scenario.js';
import { showValue } from './units.js';
import { errorMessage, firstIssue } from './zod-format.js';

export interface ScenarioSource {
  text: string;
  /** File name used in messages and for the default scenario name. */
  file?: string;
  /** Directory relative paths (CDF files) resolve against; default: the file's, else cwd. */
  dir?: string;
}

/**
 * Load and validate a scenario from a file path or from text. `overrides` are `key.path=value`
 * strings (`--set`), applied before validation; values are YAML scalars (or flow collections).
 */
export function loadScenario(source: string | ScenarioSource, overrides: readonly string[] = []): Scenario {
  if (typeof source === 'string') {
    const text = readScenarioFile(source);
    return parseScenarioText(text, { file: source, dir: dirname(resolvePath(source)), overrides });
  }
  return parseScenarioText(source.text, {
    file: source.file,
    dir: source.dir ?? (source.file !== undefined ? dirname(resolvePath(source.file)) : process.cwd()),
    overrides,
  });
}

function readScenarioFile(file: string): string {
  try {
    if (statSync(file).isDirectory())
      throw new ConfigError('', 'is a directory, expected a scenario file', file);
    return readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ConfigError('', 'file not found', file);
    throw new ConfigError('', `cannot read file (${code ?? (err as Error).message})`, file);
  }
}

export interface ParseOptions {
  file?: string;
  dir?: string;
  overrides?: readonly string[];
}

export function parseScenarioText(text: string, opts: ParseOptions = {}): Scenario {
  const file = opts.file;
  const withFile = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ConfigError && err.file === undefined) err.file = file;
      throw err;
    }
  };
  return withFile(() => {
    const lineCounter = new LineCounter();
    // merge: `<<: *anchor` merge keys, handy for repeated link or switch settings.
    const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, merge: true });
    if (doc.errors.length > 0) throw yamlError(doc.errors[0]);
    let data: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (data === null || data === undefined) data = {};
    if (typeof data !== 'object' || Array.isArray(data))
      throw new ConfigError('', `expected a map of scenario keys at the top level, got ${showValue(data)}`);
    // Top-level `x-…` keys are free-form (a place for YAML anchors), as in docker-compose.
    const top = data as Record<string, unknown>;
    for (const key of Object.keys(top)) if (key.startsWith('x-')) delete top[key];

    // A variant is a list of overrides: each must be one (checked here, applied by compare).
    const variants = top.variants;
    if (variants !== null && typeof variants === 'object' && !Array.isArray(variants)) {
      for (const [v, sets] of Object.entries(variants as Record<string, unknown>)) {
        if (!Array.isArray(sets)) continue;
        sets.forEach((o, i) => {
          if (typeof o !== 'string') return;
          try {
            parseOverride(o);
          } catch (err) {
            const e = new ConfigError(
              formatPath(['variants', v, i]),
              (err as Error).message.replace(/^--set /, ''),
            );
            e.line = undefined;
            throw e;
          }
        });
      }
    }

    const overridden: Array<Array<string | number>> = [];
    for (const o of opts.overrides ?? []) {
      const { path, value } = parseOverride(o);
      setPath(data as Record<string, unknown>, path, value, o);
      overridden.push(path);
    }

    const lineOf = (path: ReadonlyArray<PropertyKey>): number | undefined => {
      // A value that came from --set has no line in the file.
      const p = path.map((s) => (typeof s === 'symbol' ? String(s) : s));
      if (overridden.some((o) => o.every((seg, i) => i >= p.length || p[i] === seg))) return undefined;
      for (let n = p.length; n >= 0; n--) {
        const node = doc.getIn(p.slice(0, n), true) as { range?: [number, number, number] } | undefined;
        if (node?.range !== undefined) return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    };

    const parsed = scenarioSchema.safeParse(data, { error: errorMessage });
    if (!parsed.success) {
      const { path, message } = firstIssue(parsed.error.issues);
      const err = new ConfigError(formatPath(path), message);
      err.line = lineOf(path);
      throw err;
    }
    try {
      return resolveScenario(parsed.data, {
        file: file ?? null,
        dir: opts.dir ?? process.cwd(),
        fileExists: (p) => existsSync(p),
      });
    } catch (err) {
      if (
        err instanceof ConfigError &&
        err.line === undefined &&
        err.where !== '' &&
        !err.where.includes(' ')
      )
        err.line = lineOf(parseKeyPath(err.where));
      throw err;
    }
  });
}

function yamlError(e: { message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }) {
  const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  const pos = e.linePos?.[0];
  const err = new ConfigError(
    pos !== undefined ? `line ${pos.line}, column ${pos.col}` : '',
    `malformed YAML: ${first.replace(/\.$/, '')}`,
  );
  return err;
}

// --------------------------------------------------------------------------------------------
// --set key.path=value

/** `workload[0].size`, `workload.0.size`, `cc.dcqcn.rai`, `ecn.byRate["2.5Gbps"].kmin` → segments. */
export function parseKeyPath(key: string): Array<string | number> {
  const out: Array<string | number> = [];
  let i = 0;
  const s = key.trim();
  while (i < s.length) {
    if (s[i] === '.') {
      i++;
      continue;
    }
    if (s[i] === '[') {
      const close = s.indexOf(']', i);
      if (close < 0) throw new ConfigError('', `bad key path "${key}" (unclosed [)`);
      const inner = s.slice(i + 1, close).trim();
      if (/^\d+$/.test(inner)) out.push(Number(inner));
      else if (/^(".*"|'.*')$/.test(inner)) out.push(inner.slice(1, -1));
      else throw new ConfigError('', `bad key path "${key}" (use [0] or ["name"])`);
      i = close + 1;
      continue;
    }
    let j = i;
    while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
    const seg = s.slice(i, j);
    out.push(/^\d+$/.test(seg) ? Number(seg) : seg);
    i = j;
  }
  if (out.length === 0) throw new ConfigError('', `bad key path "${key}"`);
  return out;
}

export function parseOverride(o: string): { path: Array<string | number>; value: unknown } {
  const eq = o.indexOf('=');
  if (eq <= 0) throw new ConfigError('', `--set expects key=value, got ${JSON.stringify(o)}`);
  const path = parseKeyPath(o.slice(0, eq));
  const raw = o.slice(eq + 1);
  let value: unknown;
  try {
    value = raw.trim() === '' ? '' : parseYaml(raw);
  } catch {
    // Not valid YAML on its own (e.g. "a: b"): take it as a plain string.
    value = raw;
  }
  return { path, value };
}

function setPath(
  root: Record<string, unknown>,
  path: Array<string | number>,
  value: unknown,
  o: string,
): void {
  let cur: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    const where = formatPath(path.slice(0, i)) || '(top level)';
    if (Array.isArray(cur)) {
      if (typeof seg !== 'number')
        throw new ConfigError('', `--set ${o}: ${where} is a list; index it like ${where}[0]`);
      // Index == length appends, so `--set workload[0]=…` works on a scenario without workload.
      if (seg > cur.length)
        throw new ConfigError('', `--set ${o}: ${where} has ${cur.length} entries, no [${seg}]`);
      if (last) cur[seg] = value;
      else {
        if (cur[seg] === null || typeof cur[seg] !== 'object') cur[seg] = {};
        cur = cur[seg];
      }
    } else if (cur !== null && typeof cur === 'object') {
      const obj = cur as Record<string, unknown>;
      const key = String(seg);
      if (last) obj[key] = value;
      else {
        if (obj[key] === undefined || obj[key] === null) obj[key] = typeof path[i + 1] === 'number' ? [] : {};
        else if (typeof obj[key] !== 'object')
          throw new ConfigError(
            '',
            `--set ${o}: ${formatPath(path.slice(0, i + 1))} is ${showValue(obj[key])}, not a map`,
          );
        cur = obj[key];
      }
    }
  }
}
