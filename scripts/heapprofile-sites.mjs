#!/usr/bin/env node
// Where a run allocates: a sampling heap profile (.heapprofile: a node's HEAP_SAMPLING_FILE, or
// bench/anatomy.ts --heap-sampling) summed by allocation site (function, file:line), largest
// first, with each site's share. With --per N also bytes per unit (e.g. per forwarded frame).
//
//   node scripts/heapprofile-sites.mjs FILE.heapprofile [--top 25] [--per N]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args.splice(i, 2)[1]);
  if (!Number.isFinite(v) || v <= 0) {
    process.stderr.write(`heapprofile-sites: ${name} needs a positive number\n`);
    process.exit(2);
  }
  return v;
};
const top = opt('--top', 25);
const per = opt('--per', 0);
if (args.length !== 1) {
  process.stderr.write('usage: heapprofile-sites.mjs FILE.heapprofile [--top N] [--per N]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(args[0], 'utf8'));
const sites = new Map();
let total = 0;
const stack = [profile.head];
while (stack.length > 0) {
  const n = stack.pop();
  if (n.selfSize > 0) {
    const f = n.callFrame;
    const where =
      f.url === '' ? '(native)' : `${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    const key = `${f.functionName || '(anonymous)'} ${where}`;
    sites.set(key, (sites.get(key) ?? 0) + n.selfSize);
    total += n.selfSize;
  }
  for (const c of n.children ?? []) stack.push(c);
}
const mb = (b) => (b / 2 ** 20).toFixed(1);
console.log(
  `sampled allocations: ${mb(total)} MB${per > 0 ? `, ${(total / per).toFixed(0)} B per unit (${per} units)` : ''}`,
);
for (const [key, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(
    `${mb(bytes).padStart(8)} MB ${((100 * bytes) / total).toFixed(1).padStart(5)} %${per > 0 ? `${(bytes / per).toFixed(0).padStart(6)} B/unit` : ''}  ${key}`,
  );
