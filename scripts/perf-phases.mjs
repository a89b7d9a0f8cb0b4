#!/usr/bin/env node
// Time per scheduler event by phase of a frame's journey (switch receive/enqueue, switch
// dequeue/transmit, link, NIC receive, NIC send, CC hooks, timers, GC, ...) from a V8 CPU profile
// (bench/anatomy.ts --cpu-prof, or node --cpu-prof), with the functions behind each phase.
// Also the phase table scripts/callgrind-jit.mjs uses. docs/performance.md.
//
//   node scripts/perf-phases.mjs PROFILE.cpuprofile EVENTS [--top 30]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** [file regexp, function regexp, phase]: the first match names the phase. */
const PHASES = [
  [
    /switch\/(switch|route-lookup|ecmp|validate|flow-counter)\.js/,
    /^\*?(receive|route|enqueue|cutThrough|isWellFormedFrame|isUint|find|portCount|port|ecmpHash|touch|forget|admitTrimming|dropOnAdmission|onPfcFrame)$/,
    'switch: receive, route, enqueue',
  ],
  [/switch\/mmu\.js/, /^\*?(admit|chargeControl|lossless)$/, 'switch: receive, route, enqueue'],
  [/switch\/frame-queue\.js/, /^\*?push$/, 'switch: receive, route, enqueue'],
  [
    /switch\/(switch|int-stamp|flow-counter)\.js/,
    /^\*?(txDone|startNext|pickDataQueue|lowestBit|dequeue|beginTx|maybeMark|stampInt|count|kick|buildPfcFrame|queuePfc)$/,
    'switch: dequeue, transmit',
  ],
  [/switch\/mmu\.js/, /^\*?(release|releaseControl)$/, 'switch: dequeue, transmit'],
  [/switch\/frame-queue\.js/, /./, 'switch: dequeue, transmit'],
  [/switch\//, /./, 'switch: PFC, MMU thresholds, other'],
  [/src\/port\/tx-port\.js/, /./, 'transmitter (src/port, NIC and switch)'],
  [/src\/port\/pfc\.js/, /./, 'PFC pause/outbox (src/port)'],
  [/runtime\/virtual\/fabric\.js/, /./, 'link'],
  [/runtime\/virtual\/engine-scheduler\.js/, /^\*?(push|arriveHead|grow|get headTimeNs|headTimeNs)$/, 'link'],
  [/runtime\/virtual\/engine-scheduler\.js|time\/timer-queue\.js/, /./, 'scheduler and timers'],
  [/nic\/cc-host\.js|src\/cc\//, /./, 'CC hooks (cc-host and algorithm)'],
  [
    /nic\/(nic|frames)\.js/,
    /^\*?(receive|onData|onAck|onCnp|onCnm|onPfc|sendAck|completeReceive|advanceUna|completeMessages|msgIndexOf|byteOffsetOf|ackFrame|copyInt|cnpFrame|rewind|psnOf)$/,
    'NIC: receive (ACKs, data, CNPs)',
  ],
  [/nic\/|src\/wire\/size\.js|src\/port\/ring\.js/, /./, 'NIC: send (schedule, build, pace)'],
  [/src\/wire\/packet-factory\.js/, /./, 'frame allocate, reset, recycle'],
  [/src\/wire\//, /./, 'wire (other)'],
  [/runtime\/app\/|runtime\/virtual\/virtual-run\.js/, /./, 'application and sampling'],
];

/** Phase of a function named "NAME path/file.js[:line]" (a CPU profile frame or a perf-map name). */
export function phaseOf(name) {
  if (
    /garbage collector|Scaveng|MarkCompact|Sweep|Evacuat|Heap::|heap::|Marking|GCTracer|ConcurrentMarking|MinorMC/.test(
      name,
    )
  )
    return 'GC';
  const m = /^(\S*) (\S+?)(?::\d+)*$/.exec(name);
  if (m) {
    const fn = m[1].replace(/^[*~^+]/, '');
    for (const [file, f, phase] of PHASES) if (file.test(m[2]) && f.test(fn)) return phase;
    if (/\.js$/.test(m[2])) return 'other JavaScript';
  }
  if (/^\((program|idle|root)\)/.test(name)) return 'other (program, idle)';
  return 'V8 builtins, runtime and C++';
}

function main() {
  const args = process.argv.slice(2);
  const i = args.indexOf('--top');
  const top = i >= 0 ? Number(args.splice(i, 2)[1]) : 30;
  if (args.length !== 2) {
    process.stderr.write('usage: perf-phases.mjs PROFILE.cpuprofile EVENTS [--top N]\n');
    process.exit(2);
  }
  const events = Number(args[1]);
  const p = JSON.parse(readFileSync(args[0], 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let totalUs = 0;
  // bench/anatomy.ts marks its measured window; count only the samples inside it.
  const win = p.window ?? { startUs: Number.NEGATIVE_INFINITY, endUs: Number.POSITIVE_INFINITY };
  let t = p.startTime;
  for (let k = 0; k < p.samples.length; k++) {
    t += p.timeDeltas[k] ?? 0;
    if (t < win.startUs || t > win.endUs) continue;
    const cf = byId.get(p.samples[k]).callFrame;
    const url = cf.url.replace(/^.*\/dist\//, '');
    const key = `${cf.functionName || '(anonymous)'} ${url || '(native)'}:${cf.lineNumber + 1}`;
    const us = p.timeDeltas[k] ?? 0;
    totalUs += us;
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const ns = (us) => ((us * 1000) / events).toFixed(1).padStart(8);
  const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)} %`;
  const phases = new Map();
  for (const [k, us] of self) {
    const ph = phaseOf(k);
    const acc = phases.get(ph) ?? { us: 0, fns: [] };
    acc.us += us;
    acc.fns.push([k, us]);
    phases.set(ph, acc);
  }
  console.log(`${'phase (ns per event, share of samples)'.padEnd(56)}${ns(totalUs)}  100.0 %`);
  for (const [ph, acc] of [...phases].sort((a, b) => b[1].us - a[1].us)) {
    console.log(`${ph.padEnd(56)}${ns(acc.us)} ${pct(acc.us)}`);
    for (const [k, us] of acc.fns.sort((a, b) => b[1] - a[1]).slice(0, 6))
      if (us * 200 > totalUs) console.log(`    ${k.slice(0, 50).padEnd(52)}${ns(us)} ${pct(us)}`);
  }
  console.log(`\ntop ${top} functions`);
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${k.slice(0, 54).padEnd(56)}${ns(us)} ${pct(us)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
