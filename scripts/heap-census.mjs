#!/usr/bin/env node
// What a V8 heap snapshot (bench/anatomy.ts --snapshot) holds, for docs/performance.md: objects
// by constructor (count, bytes), the live frames (Packets: plain objects with a `trimLastHop`
// property) with the heap numbers and sub-objects they own, and what one QP (class Qp), one
// switch port (class Port) and one link (class Link) own. "Owns" counts an object and, from it,
// every object reachable through objects that have no other retainer (a cheap stand-in for the
// dominator tree). heap-snapshot.mjs reads the snapshot.
//
//   node scripts/heap-census.mjs FILE.heapsnapshot [--top 30] [--json]
//
// --json prints the frames and classes figures as one JSON object (bench/virtual.ts reads it).
import { readSnapshot } from './heap-snapshot.mjs';

const args = process.argv.slice(2);
const ti = args.indexOf('--top');
const top = ti >= 0 ? Number(args.splice(ti, 2)[1]) : 30;
const ji = args.indexOf('--json');
const json = ji >= 0;
if (json) args.splice(ji, 1);
const print = json ? () => {} : (line) => console.log(line);
if (args.length !== 1) {
  process.stderr.write('usage: heap-census.mjs FILE.heapsnapshot [--top N]\n');
  process.exit(2);
}

const { nodeCount, typeOf, nameOf, sizeOf, edgesOf, retainers } = readSnapshot(args[0]);

/** Bytes of `i` and of what only it (transitively) retains; skips code, maps and strings shared. */
function owned(i, seen = new Set()) {
  if (seen.has(i)) return 0;
  seen.add(i);
  let bytes = sizeOf(i);
  for (const e of edgesOf(i)) {
    if (e.type === 'weak' || e.type === 'shortcut') continue;
    const t = typeOf(e.to);
    if (t === 'code' || t === 'hidden' || t === 'object shape') continue;
    if (retainers[e.to] === 1) bytes += owned(e.to, seen);
  }
  return bytes;
}

// ---------------------------------------------------------------- by constructor
const byName = new Map();
let heapBytes = 0;
for (let i = 0; i < nodeCount; i++) {
  const s = sizeOf(i);
  heapBytes += s;
  const key = `${typeOf(i)} ${nameOf(i)}`.slice(0, 70);
  const row = byName.get(key) ?? { count: 0, bytes: 0 };
  row.count++;
  row.bytes += s;
  byName.set(key, row);
}
const mb = (b) => (b / 2 ** 20).toFixed(1).padStart(8);
print(`heap snapshot: ${nodeCount} objects, ${mb(heapBytes)} MB self size`);
print(`\nby constructor (top ${top} by bytes)             count        MB`);
for (const [k, r] of [...byName].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top))
  print(`${k.padEnd(60)}${String(r.count).padStart(10)}${mb(r.bytes)}`);

// ---------------------------------------------------------------- frames
let frames = 0;
let frameSelf = 0;
let frameNumbers = 0;
let numberFields = 0;
const subs = new Map();
for (let i = 0; i < nodeCount; i++) {
  if (typeOf(i) !== 'object' || nameOf(i) !== 'Object') continue;
  let isFrame = false;
  for (const e of edgesOf(i))
    if (e.name === 'trimLastHop') {
      isFrame = true;
      break;
    }
  if (!isFrame) continue;
  frames++;
  frameSelf += sizeOf(i);
  for (const e of edgesOf(i)) {
    const t = typeOf(e.to);
    // Double fields hold boxes the snapshot shows as hidden edges to heap numbers.
    if (t === 'number' && e.type !== 'weak') {
      frameNumbers += sizeOf(e.to);
      numberFields++;
    } else if (e.type === 'property' && e.name !== '__proto__' && (t === 'object' || t === 'array')) {
      const row = subs.get(e.name) ?? { count: 0, bytes: 0 };
      row.count++;
      row.bytes += retainers[e.to] === 1 ? owned(e.to) : 0;
      subs.set(e.name, row);
    }
  }
}
const per = (b, n) => (n > 0 ? (b / n).toFixed(1) : '-');
let subBytes = 0;
for (const r of subs.values()) subBytes += r.bytes;
print(
  `\nframes (Packet objects): ${frames}, in flight and in the packet factory's free list (bench/anatomy.ts prints its length)`,
);
print(`  object itself          ${per(frameSelf, frames)} B per frame`);
print(
  `  boxed numbers          ${per(frameNumbers, frames)} B per frame (${per(numberFields, frames)} heap numbers per frame)`,
);
for (const [k, r] of [...subs].sort((a, b) => b[1].bytes - a[1].bytes))
  print(`  .${k.padEnd(21)}${per(r.bytes, frames)} B per frame (${r.count} frames carry one)`);
print(`  in all                 ${per(frameSelf + frameNumbers + subBytes, frames)} B per live frame`);

// ---------------------------------------------------------------- QPs, ports, links
const classes = {};
for (const cls of ['Qp', 'Port', 'Link', 'NicImpl', 'TimerQueue', 'DelayClass']) {
  let count = 0;
  let self = 0;
  let own = 0;
  for (let i = 0; i < nodeCount; i++) {
    if (typeOf(i) !== 'object' || nameOf(i) !== cls) continue;
    count++;
    self += sizeOf(i);
    own += owned(i);
  }
  if (count > 0) classes[cls] = { count, selfBytes: self / count, ownedBytes: own / count };
  if (count > 0)
    print(
      `${cls.padEnd(12)} ${String(count).padStart(7)} objects: ${per(self, count)} B each, ${per(own, count)} B with what each alone retains`,
    );
}

if (json)
  console.log(
    JSON.stringify({
      frames: {
        count: frames,
        objectBytes: frameSelf / frames,
        numberBytes: frameNumbers / frames,
        subObjectBytes: subBytes / frames,
        bytesPerFrame: (frameSelf + frameNumbers + subBytes) / frames,
      },
      classes,
    }),
  );
