#!/usr/bin/env node
// Self cost per function of a callgrind profile of Node.js, JIT code included: callgrind names
// V8's generated code only by address, so this reads its per-instruction costs
// (`--dump-instr=yes`) and names each address from V8's perf map (`node --perf-basic-prof`
// writes /tmp/perf-PID.map; the process's pid is valgrind's). Prints the functions with the
// largest cost in the chosen event, per scheduler event when EVENTS is given, and the same summed
// by phase (scripts/perf-phases.mjs). For docs/performance.md:
//
//   valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes --dump-instr=yes \
//     --D1=32768,8,64 --LL=33554432,16,64 --callgrind-out-file=/tmp/cg.%p \
//     node --perf-basic-prof --single-threaded dist/bench/anatomy.js SCENARIO --from A --to B --callgrind
//   node scripts/callgrind-jit.mjs /tmp/cg.PID /tmp/perf-PID.map --events N [--sort DLmr] [--top 40]
//
// A code address reused by V8 for another function later names the function the map lists last
// (the map is appended as code is made), which is the code that was live at the end.
import { readFileSync } from 'node:fs';
import { phaseOf } from './perf-phases.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const sortBy = opt('--sort', 'Ir');
const top = Number(opt('--top', 40));
const events = Number(opt('--events', 0));
/** Also list who calls functions whose name contains this (inclusive cost of the calls). */
const callersOf = opt('--callers', null);
if (args.length !== 2) {
  process.stderr.write(
    'usage: callgrind-jit.mjs CALLGRIND.OUT PERF.MAP [--events N] [--sort EV] [--top N]\n',
  );
  process.exit(2);
}

// ---- the perf map: sorted, non-overlapping ranges (later entries win)
const ranges = [];
readFileSync(args[1], 'utf8')
  .split('\n')
  .forEach((line, order) => {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m)
      ranges.push({ start: Number.parseInt(m[1], 16), size: Number.parseInt(m[2], 16), name: m[3], order });
  });
ranges.sort((a, b) => a.start - b.start || a.order - b.order);
/** For an address, the last-made range holding it (linear fix-up of overlaps is rare, so scan back a little). */
function nameAt(addr) {
  let lo = 0;
  let hi = ranges.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].start <= addr) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  let found = null;
  for (let i = best; i >= 0 && i > best - 64; i--) {
    const r = ranges[i];
    if (addr < r.start + r.size && (found === null || r.order > found.order)) found = r;
  }
  return found === null ? null : shortName(found.name);
}
function shortName(n) {
  // "JS:*receive file:///…/dist/switch/switch.js:120:5" -> "*receive switch/switch.js:120"
  const m = /^(\w+):(\S*) ?(?:file:\/\/\S*\/dist\/)?(\S*?)(?::\d+)?$/.exec(n);
  if (!m) return n;
  return m[3] ? `${m[2]} ${m[3]}` : `${m[1]}:${m[2]}`;
}

// ---- the callgrind profile
const text = readFileSync(args[0], 'utf8');
let evNames = [];
const names = { fn: new Map(), ob: new Map() };
const self = new Map();
let fn = '';
let ob = '';
let lastAddr = 0;
let skipNext = false;
let callee = '';
const callers = new Map();
function compressed(kind, v) {
  const m = /^\((\d+)\)(?: (.*))?$/.exec(v);
  if (!m) return v;
  if (m[2] !== undefined) names[kind].set(m[1], m[2]);
  return names[kind].get(m[1]) ?? v;
}
for (const line of text.split('\n')) {
  if (line.startsWith('events: ')) {
    evNames = line.slice(8).trim().split(/\s+/);
    continue;
  }
  if (line.startsWith('fn=')) {
    fn = compressed('fn', line.slice(3));
    continue;
  }
  if (line.startsWith('ob=')) {
    ob = compressed('ob', line.slice(3));
    continue;
  }
  if (line.startsWith('cfn=')) {
    callee = compressed('fn', line.slice(4)); // also defines a name later fn= lines may use
    continue;
  }
  if (line.startsWith('cob=')) {
    compressed('ob', line.slice(4));
    continue;
  }
  if (line.startsWith('calls=')) {
    skipNext = true; // the next cost line is the callee's inclusive cost
    continue;
  }
  const c = line.charCodeAt(0);
  // Cost lines start with an address: 0x…, +n, -n or *.
  if (!(c === 48 || c === 43 || c === 45 || c === 42)) continue;
  const parts = line.split(' ');
  const p0 = parts[0];
  let addr;
  if (p0 === '*') addr = lastAddr;
  else if (p0[0] === '+') addr = lastAddr + Number.parseInt(p0.slice(1), 16);
  else if (p0[0] === '-') addr = lastAddr - Number.parseInt(p0.slice(1), 16);
  else addr = Number.parseInt(p0, 16);
  lastAddr = addr;
  if (skipNext) {
    skipNext = false;
    if (callersOf !== null && callee.includes(callersOf)) {
      const caller = /^0x[0-9a-f]+$/.test(fn) || fn === '???' ? (nameAt(addr) ?? fn) : fn;
      const key = `${caller} -> ${callee.slice(0, 40)}`;
      callers.set(key, (callers.get(key) ?? 0) + Number(parts[2]));
    }
    continue;
  }
  // parts[1] is the line position; costs follow.
  let key = fn;
  if (/^0x[0-9a-f]+$/.test(fn) || fn === '???') key = nameAt(addr) ?? `${fn} (${ob.split('/').pop()})`;
  let row = self.get(key);
  if (row === undefined) {
    row = new Float64Array(evNames.length);
    self.set(key, row);
  }
  for (let i = 2; i < parts.length; i++) row[i - 2] += Number(parts[i]);
}

const k = evNames.indexOf(sortBy);
if (k < 0) throw new Error(`no event ${sortBy} in ${evNames.join(' ')}`);
const total = new Float64Array(evNames.length);
for (const row of self.values()) for (let i = 0; i < row.length; i++) total[i] += row[i];
const show = ['Ir', 'D1mr', 'D1mw', 'DLmr', 'DLmw'].filter((e) => evNames.includes(e));
const idx = show.map((e) => evNames.indexOf(e));
const per = (x) => (events > 0 ? (x / events).toFixed(2) : String(x)).padStart(10);
const head = `${(events > 0 ? 'per event' : 'total').padEnd(60)}${show.map((e) => e.padStart(10)).join('')}`;
console.log(head);
console.log(`${'all'.padEnd(60)}${idx.map((i) => per(total[i])).join('')}`);
const rows = [...self].sort((a, b) => b[1][k] - a[1][k]).slice(0, top);
for (const [name, row] of rows)
  console.log(`${name.slice(0, 59).padEnd(60)}${idx.map((i) => per(row[i])).join('')}`);

const phases = new Map();
for (const [name, row] of self) {
  const ph = phaseOf(name);
  let acc = phases.get(ph);
  if (acc === undefined) {
    acc = new Float64Array(evNames.length);
    phases.set(ph, acc);
  }
  for (let i = 0; i < row.length; i++) acc[i] += row[i];
}
console.log(`\n${'by phase'.padEnd(60)}${show.map((e) => e.padStart(10)).join('')}`);
for (const [ph, row] of [...phases].sort((a, b) => b[1][k] - a[1][k]))
  console.log(`${ph.padEnd(60)}${idx.map((i) => per(row[i])).join('')}`);

if (callersOf !== null) {
  console.log(`\ncallers of ${callersOf} (inclusive Ir${events > 0 ? ' per event' : ''})`);
  for (const [k, ir] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${k.slice(0, 100).padEnd(102)}${per(ir)}`);
}
