import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// Firmware (nic/, switch/, src/cc/ and the port models they share, src/port/) must reach time,
// timers, randomness and I/O only through FirmwareEnv (docs/development.md, "Rules").
const ROOT = join(import.meta.dirname, '..', '..');
const DIRS = ['nic', 'switch', 'src/cc', 'src/port'];

/**
 * What each firmware folder may import (docs/development.md, "Rules"): its own folder, the wire
 * codecs, the FirmwareEnv contract, the CC plug-ins, the topology model and the shared port
 * models. src/cc also reaches the switch's CP plug-in contract (its switch-side CPs are switch
 * firmware) and the unit grammar (src/units, pure parsing) for its parameter schemas; the port
 * models need only wire and env. The one package is zod (parameter schemas).
 */
const FIRMWARE_IMPORTS: Record<string, string[]> = {
  nic: ['nic', 'src/wire', 'src/env', 'src/cc', 'src/topology', 'src/port'],
  switch: ['switch', 'src/wire', 'src/env', 'src/cc', 'src/topology', 'src/port'],
  'src/cc': [
    'src/cc',
    'src/wire',
    'src/env',
    'src/topology',
    'src/port',
    'switch/cp.ts',
    'switch/flow-counter.ts',
    'src/units',
  ],
  'src/port': ['src/port', 'src/wire', 'src/env'],
};
const FIRMWARE_PACKAGES = ['zod'];

const IMPORT_RE = /\b(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;

/** Import specifiers of `text` that break the rule for a file at `file` in firmware folder `dir`. */
function badImports(dir: string, file: string, text: string): string[] {
  const allowed = FIRMWARE_IMPORTS[dir];
  const out: string[] = [];
  for (const m of code(text).matchAll(IMPORT_RE)) {
    const spec = m[1];
    if (!spec.startsWith('.')) {
      if (!FIRMWARE_PACKAGES.includes(spec)) out.push(spec);
      continue;
    }
    const target = relative(ROOT, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
      .split(sep)
      .join('/');
    if (!allowed.some((a) => target === a || target.startsWith(`${a}/`))) out.push(spec);
  }
  return out;
}
const FORBIDDEN: [string, RegExp][] = [
  [
    'node: / built-in I/O import',
    /\bfrom\s+['"](node:)?(dgram|net|http|https|http2|fs|fs\/promises|child_process|worker_threads|timers|perf_hooks)['"]/,
  ],
  ['require()', /\brequire\s*\(/],
  ['dynamic import', /\bimport\s*\(/],
  ['Date.now', /\bDate\.now\b/],
  ['new Date', /\bnew\s+Date\b/],
  ['performance.now', /\bperformance\.now\b/],
  ['process.hrtime', /\bprocess\.hrtime\b/],
  ['setTimeout', /\bsetTimeout\b/],
  ['setInterval', /\bsetInterval\b/],
  ['setImmediate', /\bsetImmediate\b/],
  ['queueMicrotask', /\bqueueMicrotask\b/],
  ['Math.random', /\bMath\.random\b/],
  ['crypto randomness', /\b(randomBytes|randomUUID|getRandomValues)\b/],
];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.(ts|js|mts|cts)$/.test(name)) out.push(p);
  }
  return out;
}

/** Source without comments, so a comment may name what it avoids. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('sans-IO rule', () => {
  const files = DIRS.flatMap((d) => sources(join(ROOT, d)));

  it('finds the firmware sources', () => {
    expect(files.some((f) => f.endsWith(join('nic', 'nic.ts')))).toBe(true);
    expect(files.some((f) => f.endsWith(join('cc', 'dcqcn', 'rp.ts')))).toBe(true);
  });

  it('finds the switch and the port models', () => {
    expect(files.some((f) => f.endsWith(join('switch', 'switch.ts')))).toBe(true);
    expect(files.some((f) => f.endsWith(join('port', 'tx-port.ts')))).toBe(true);
  });

  it('nic/, switch/, src/cc/ and src/port/ use no clock, timer, randomness or I/O of their own', () => {
    const hits: string[] = [];
    for (const f of files) {
      const lines = code(readFileSync(f, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        for (const [what, re] of FORBIDDEN)
          if (re.test(line)) hits.push(`${relative(ROOT, f)}:${i + 1}: ${what}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it('firmware imports only wire, env, cc, topology and the port models', () => {
    const hits: string[] = [];
    for (const dir of DIRS) {
      for (const f of sources(join(ROOT, dir))) {
        for (const spec of badImports(dir, f, readFileSync(f, 'utf8')))
          hits.push(`${relative(ROOT, f)}: ${spec}`);
      }
    }
    expect(hits).toEqual([]);
  });

  it('the import rule catches a runtime, stats or package import', () => {
    const file = join(ROOT, 'switch', 'switch.ts');
    const sample = [
      "import { TxPort } from '../src/port/tx-port.js';",
      "import type { Packet } from '../src/wire/packet.js';",
      "import { ports } from '../src/runtime/virtual/engine.js';",
      "import {\n  quantile,\n} from '../src/stats/fct.js';",
      "export { createNic } from '../nic/nic.js';",
      "import pino from 'pino';",
      "// import { x } from '../src/cli/app.js';",
    ].join('\n');
    expect(badImports('switch', file, sample)).toEqual([
      '../src/runtime/virtual/engine.js',
      '../src/stats/fct.js',
      '../nic/nic.js',
      'pino',
    ]);
  });

  it('the check itself catches a forbidden call', () => {
    const sample =
      "import { socket } from 'node:dgram';\nconst t = Date.now(); // ok in a comment: Math.random\n";
    const found = FORBIDDEN.filter(([, re]) =>
      code(sample)
        .split('\n')
        .some((l) => re.test(l)),
    ).map(([w]) => w);
    expect(found).toEqual(['node: / built-in I/O import', 'Date.now']);
  });
});
