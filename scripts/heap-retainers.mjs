#!/usr/bin/env node
// Who keeps what a V8 heap snapshot holds (bench/anatomy.ts --snapshot), for docs/performance.md:
// the bytes of a kind of object summed by its retainer chain (the first strong retainer of the
// object, of that retainer, and so on, each as "<edge>- type name"). Where heap-census.mjs says
// what there is, this says which structure holds it: e.g. JS arrays' element stores by the field
// and class that own the array, or heap numbers by the object field they box.
//
//   node scripts/heap-retainers.mjs FILE.heapsnapshot [--kind elements|numbers|objects|native|arrays] [--depth 3] [--top 25]
//
// Kinds: `elements` the backing stores of JS arrays (array "(object elements)"), `numbers` heap
// numbers, `objects` plain objects (keyed by their first properties too), `native` off-heap
// memory (ArrayBuffer stores), `arrays` JS arrays. Default: all of them.
import { readSnapshot } from './heap-snapshot.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : args.splice(i, 2)[1];
};
const kind = opt('--kind', null);
const depth = Number(opt('--depth', 3));
const top = Number(opt('--top', 25));
const KINDS = ['elements', 'numbers', 'objects', 'native', 'arrays'];
if (args.length !== 1 || (kind !== null && !KINDS.includes(kind)) || !(depth >= 1) || !(top >= 1)) {
  process.stderr.write(
    `usage: heap-retainers.mjs FILE.heapsnapshot [--kind ${KINDS.join('|')}] [--depth N] [--top N]\n`,
  );
  process.exit(2);
}

const { nodeCount, typeOf, nameOf, sizeOf, edgesOf } = readSnapshot(args[0]);

// The first strong retainer of every node, and the name of its edge.
const retainer = new Int32Array(nodeCount).fill(-1);
const retainerEdge = new Array(nodeCount);
for (let i = 0; i < nodeCount; i++) {
  for (const e of edgesOf(i)) {
    if (e.type === 'weak' || e.type === 'shortcut' || retainer[e.to] !== -1) continue;
    retainer[e.to] = i;
    retainerEdge[e.to] = e.type === 'element' ? '[]' : String(e.name);
  }
}

const label = (i) => `${typeOf(i)} ${nameOf(i)}`.slice(0, 40);
function chain(i) {
  let s = '';
  for (let j = i, k = 0; k < depth && retainer[j] >= 0; k++, j = retainer[j])
    s += ` <-${retainerEdge[j]}- ${label(retainer[j])}`;
  return s;
}
function firstProperties(i) {
  const names = [];
  for (const e of edgesOf(i)) if (e.type === 'property' && names.length < 6) names.push(e.name);
  return names.join(',');
}

const SELECT = {
  elements: (i) => typeOf(i) === 'array' && nameOf(i) === '(object elements)',
  numbers: (i) => typeOf(i) === 'number',
  objects: (i) => typeOf(i) === 'object' && nameOf(i) === 'Object',
  native: (i) => typeOf(i) === 'native',
  arrays: (i) => typeOf(i) === 'object' && nameOf(i) === 'Array',
};
for (const k of kind === null ? KINDS : [kind]) {
  const rows = new Map();
  for (let i = 0; i < nodeCount; i++) {
    if (!SELECT[k](i)) continue;
    const key = k === 'objects' ? `{${firstProperties(i)}}${chain(i)}` : chain(i);
    const row = rows.get(key) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += sizeOf(i);
    rows.set(key, row);
  }
  console.log(`\n== ${k}, by retainer chain (top ${top} by bytes)`);
  for (const [key, r] of [...rows].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top))
    console.log(`${(r.bytes / 2 ** 20).toFixed(2).padStart(8)} MB ${String(r.count).padStart(8)} ${key}`);
}
