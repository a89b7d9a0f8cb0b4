import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// Firmware must reach time, timers, randomness and I/O only through FirmwareEnv (design §2).
const ROOT = join(import.meta.dirname, '..', '..');
const DIRS = ['nic', 'src/cc'];
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

  it('nic/ and src/cc/ use no clock, timer, randomness or I/O of their own', () => {
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
