#!/usr/bin/env node
// Self time per function of a `node --cpu-prof` profile, in ns per scheduler event, optionally
// beside a second profile, sorted by how much the cost grew from B to A. For the question of
// issue 19, which functions' per-event cost grows with the network's size:
//
//   node --cpu-prof --cpu-prof-dir=/tmp/ft bin/rocelab.js run scenarios/websearch-fattree320.yaml \
//     --set duration=3ms --set 'workload[0].stop=1ms' --out /tmp/ft-out
//   node --cpu-prof --cpu-prof-dir=/tmp/ls bin/rocelab.js run scenarios/websearch-leafspine.yaml --out /tmp/ls-out
//   node scripts/cpuprofile-self.mjs /tmp/ft/*.cpuprofile 41268254 /tmp/ls/*.cpuprofile 14341620
//
// The event counts are the runs' scheduler events (the bench prints them). --lines NAME also
// prints the ticks of the functions called NAME by source line (of the built JS; lines of
// inlined callees are reported in their own file, so read them with care). --top N (default 40).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const top = Number(opt('--top') ?? 40);
const linesOf = opt('--lines');
if (args.length !== 2 && args.length !== 4) {
  process.stderr.write(
    'usage: cpuprofile-self.mjs A.cpuprofile EVENTS_A [B.cpuprofile EVENTS_B] [--top N] [--lines NAME]\n',
  );
  process.exit(2);
}

function load(file, events) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const usPerSample = (p.endTime - p.startTime) / p.samples.length;
  const self = new Map();
  for (let i = 0; i < p.samples.length; i++) {
    const cf = byId.get(p.samples[i]).callFrame;
    const key = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const nsPerEvent = new Map([...self].map(([k, us]) => [k, (us * 1000) / events]));
  const lines = new Map();
  if (linesOf !== undefined) {
    for (const n of p.nodes) {
      if (n.callFrame.functionName !== linesOf) continue;
      for (const t of n.positionTicks ?? []) {
        const k = `${n.callFrame.url.split('/').slice(-2).join('/')}:${t.line}`;
        lines.set(k, (lines.get(k) ?? 0) + (t.ticks * usPerSample * 1000) / events);
      }
    }
  }
  return { nsPerEvent, lines };
}

const a = load(args[0], Number(args[1]));
const b = args.length === 4 ? load(args[2], Number(args[3])) : null;
const sum = (m) => [...m.values()].reduce((s, x) => s + x, 0);
const f = (x) => x.toFixed(1).padStart(8);
console.log(
  `total ns/event: A ${sum(a.nsPerEvent).toFixed(0)}${b ? `  B ${sum(b.nsPerEvent).toFixed(0)}` : ''}`,
);
const keys = new Set([...a.nsPerEvent.keys(), ...(b?.nsPerEvent.keys() ?? [])]);
const rows = [...keys].map((k) => ({ k, x: a.nsPerEvent.get(k) ?? 0, y: b?.nsPerEvent.get(k) ?? 0 }));
rows.sort((r, s) => s.x - s.y - (r.x - r.y));
console.log(b ? '  A ns/ev  B ns/ev     A−B  function' : '  A ns/ev  function');
for (const r of rows.slice(0, top))
  console.log(b ? `${f(r.x)} ${f(r.y)} ${f(r.x - r.y)}  ${r.k}` : `${f(r.x)}  ${r.k}`);
if (linesOf !== undefined) {
  console.log(`\nticks of ${linesOf} by line, ns/event (A${b ? ' | B' : ''})`);
  const lk = [...new Set([...a.lines.keys(), ...(b?.lines.keys() ?? [])])].sort();
  for (const k of lk) console.log(`${f(a.lines.get(k) ?? 0)}${b ? ` ${f(b.lines.get(k) ?? 0)}` : ''}  ${k}`);
}
