/**
 * The anatomy of a virtual run (docs/performance.md): runs SCENARIO up to `--from`, then measures
 * the window up to `--to` only, so start-up, JIT warm-up and the empty network before the load
 * builds do not dilute the figures. Prints one JSON object. What it measures:
 *
 * - always: events, packet-hops and frames switches forwarded in the window, and what is live at
 *   `--to` (frames on links; the heap after a full collection, with `--expose-gc`);
 * - `--alloc`: bytes V8 allocated in the window (v8.GCProfiler: the used heap at the end minus
 *   at the start plus what every collection in between freed), per event, per packet-hop and per
 *   forwarded frame, what young collections promoted into the old generation (what V8 sizes that
 *   generation by: docs/performance.md "Memory"), and the collections themselves;
 * - `--census`: events by kind (timers classified by their callback's source, arrivals by the
 *   receiving node's kind); it wraps every timer, so it is not for timing;
 * - `--cpu-prof FILE`: a V8 CPU profile of the window alone (feed it to scripts/perf-phases.mjs);
 * - `--heap-sampling FILE`: a sampling heap profile of the window, collected objects included
 *   (where the allocations come from);
 * - `--snapshot FILE`: a heap snapshot at `--to` (scripts/heap-census.mjs counts frames, QPs and
 *   ports in it);
 * - `--callgrind`: under `valgrind --tool=callgrind --instr-atstart=no --zero-before=getegid
 *   --dump-before=geteuid`, switches instrumentation on at `--from` (callgrind_control), then
 *   zeroes the costs and dumps them at `--to`, so simulated cache misses cover the window only
 *   (the dump is callgrind's out file with suffix .1).
 *
 *   node --expose-gc dist/bench/anatomy.js scenarios/websearch-fattree320.yaml --from 3.9ms --to 4ms --alloc
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GCProfiler, getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { loadScenario } from '../src/config/load.js';
import { inspectorPost } from '../src/runtime/real/heap-sampling.js';
import { createVirtualRun } from '../src/runtime/run.js';
import { setupRun } from '../src/runtime/scenario-setup.js';
import type { DelayClass, EngineScheduler } from '../src/runtime/virtual/engine-scheduler.js';
import type { Link } from '../src/runtime/virtual/fabric.js';
import type { VirtualRun } from '../src/runtime/virtual/virtual-run.js';
import { parseDuration } from '../src/units/index.js';
import { recycledFrameCount } from '../src/wire/packet-factory.js';

interface Args {
  scenario: string;
  sets: string[];
  fromNs: number;
  toNs: number;
  alloc: boolean;
  census: boolean;
  cpuProf: string | null;
  heapSampling: string | null;
  snapshot: string | null;
  callgrind: boolean;
}

function durationNs(v: string): number {
  const ns = parseDuration(v);
  if (ns === null) throw new Error(`not a duration: ${v}`);
  return ns;
}

function parseArgs(argv: string[]): Args {
  const a: Args = {
    scenario: '',
    sets: [],
    fromNs: 0,
    toNs: 0,
    alloc: false,
    census: false,
    cpuProf: null,
    heapSampling: null,
    snapshot: null,
    callgrind: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    if (x === '--set') a.sets.push(next());
    else if (x === '--from') a.fromNs = durationNs(next());
    else if (x === '--to') a.toNs = durationNs(next());
    else if (x === '--alloc') a.alloc = true;
    else if (x === '--census') a.census = true;
    else if (x === '--cpu-prof') a.cpuProf = next();
    else if (x === '--heap-sampling') a.heapSampling = next();
    else if (x === '--snapshot') a.snapshot = next();
    else if (x === '--callgrind') a.callgrind = true;
    else if (a.scenario === '') a.scenario = x;
    else throw new Error(`unknown argument ${x}`);
  }
  if (a.scenario === '' || !(a.toNs > a.fromNs))
    throw new Error('usage: anatomy SCENARIO --from T --to T [--alloc] [--census] [--cpu-prof F] …');
  return a;
}

/** Frames each link has put on the wire, split by whether a switch sent them. */
function hops(run: VirtualRun): { all: number; bySwitches: number } {
  let all = 0;
  let bySwitches = 0;
  for (const links of run.fabric.links.values())
    for (const l of links) {
      all += l.txFrames;
      if (l.from.kind === 'switch') bySwitches += l.txFrames;
    }
  return { all, bySwitches };
}

function onLinks(run: VirtualRun): number {
  let n = 0;
  for (const links of run.fabric.links.values()) for (const l of links) n += l.inFlight;
  return n;
}

/**
 * Timer kinds by the source text of their callback (the closures are the firmware's own, so
 * their text names what they do). Unknown ones are reported by their first characters.
 */
const TIMER_KINDS: [RegExp, string][] = [
  [/txDone\(port\)/, 'switch: end of frame (dequeue next)'],
  [/onTxEnd\(\)/, 'NIC: end of frame (send next)'],
  [/onWake\(\)/, 'NIC: pacing wake'],
  [/onRtoTimer/, 'NIC: retransmission timer'],
  [/type: 'timer'/, 'CC: RP timer'],
  [/onTimer\?\.|onNicTimer/, 'CC: NP timer'],
  [/refresh/, 'switch: PFC refresh'],
  [/expire|resume/i, 'PFC pause expiry'],
  [/startDue|startFlow|stopNs|postNext/, 'application'],
  [/sampleRates|queueSeries/, 'series sampling'],
];

function censusOf(sched: EngineScheduler, classes: DelayClass[]): () => Record<string, number> {
  const counts = new Map<string, number>();
  const kindOf = new WeakMap<() => void, string>();
  const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const classify = (fn: () => void): string => {
    let k = kindOf.get(fn);
    if (k === undefined) {
      const src = fn.toString();
      k = TIMER_KINDS.find(([re]) => re.test(src))?.[1] ?? `other: ${src.slice(0, 60).replace(/\s+/g, ' ')}`;
      kindOf.set(fn, k);
    }
    return k;
  };
  const setTimer = sched.setTimer.bind(sched);
  sched.setTimer = (atNs, fn) => {
    const k = classify(fn);
    return setTimer(atNs, () => {
      bump(`timer: ${k}`);
      fn();
    });
  };
  for (const c of classes) {
    const arriveHead = c.arriveHead.bind(c);
    // The head's sink is the link whose frame arrives (private to the class: read for the census only).
    const sinks = c as unknown as { sinks: (Link | null)[]; head: number };
    c.arriveHead = () => {
      const link = sinks.sinks[sinks.head];
      bump(`arrival at a ${link?.to.kind ?? '?'}`);
      arriveHead();
    };
  }
  return () => Object.fromEntries([...counts].sort((x, y) => y[1] - x[1]));
}

/** Switch callgrind's instrumentation on for this process (valgrind --instr-atstart=no). */
function callgrindInstr(on: boolean): void {
  const dir = mkdtempSync(join(tmpdir(), 'anatomy-cg-'));
  const flag = join(dir, 'done');
  const cmd = `callgrind_control -i ${on ? 'on' : 'off'} ${process.pid} >/dev/null 2>&1; touch ${flag}`;
  spawn('sh', ['-c', cmd], { detached: true, stdio: 'ignore' }).unref();
  // Keep running code while waiting: callgrind takes commands only from a running program.
  const t0 = Date.now();
  while (!existsSync(flag)) {
    if (Date.now() - t0 > 600_000) throw new Error('callgrind_control did not answer in 10 min');
  }
  rmSync(dir, { recursive: true, force: true });
}

/** V8's spaces of the old generation: what young collections promote into, or V8 allocates in directly. */
const OLD_GENERATION_SPACES = new Set(['old_space', 'code_space', 'large_object_space']);

/** Bytes used in the old generation's spaces (GCProfiler's shape of a space's figures). */
function oldGenerationBytes(spaces: readonly { spaceName: string; spaceUsedSize: number }[]): number {
  let n = 0;
  for (const sp of spaces) if (OLD_GENERATION_SPACES.has(sp.spaceName)) n += sp.spaceUsedSize;
  return n;
}

/** oldGenerationBytes of the heap now. */
function oldGenerationBytesNow(): number {
  return oldGenerationBytes(
    getHeapSpaceStatistics().map((sp) => ({ spaceName: sp.space_name, spaceUsedSize: sp.space_used_size })),
  );
}

/** CLOCK_MONOTONIC in µs, the clock of V8's CPU profile timestamps. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function main(): void {
  const a = parseArgs(process.argv.slice(2));
  // The CPU profiler runs from the start and the window is marked in the profile: V8 names the
  // functions inlined into optimised code only for code compiled while it profiles.
  const session = a.cpuProf !== null || a.heapSampling !== null ? new Session() : null;
  session?.connect();
  if (session !== null && a.cpuProf !== null) {
    inspectorPost(session, 'Profiler.enable');
    inspectorPost(session, 'Profiler.setSamplingInterval', { interval: 500 });
    inspectorPost(session, 'Profiler.start');
  }
  const scenario = loadScenario(a.scenario, a.sets);
  const setup = setupRun(scenario);
  const outDir = mkdtempSync(join(tmpdir(), 'anatomy-'));
  const run = createVirtualRun({ scenario, outDir, print: null }, setup);
  const classes = (run.sched as unknown as { classes: DelayClass[] }).classes;
  const gc = (globalThis as { gc?: () => void }).gc;

  const t0 = performance.now();
  run.runUntil(a.fromNs);
  const fastForwardS = (performance.now() - t0) / 1000;
  const census = a.census ? censusOf(run.sched, classes) : null;
  const e0 = run.sched.eventsProcessed;
  const h0 = hops(run);
  const windowStartUs = monotonicUs();
  if (session !== null && a.heapSampling !== null) {
    inspectorPost(session, 'HeapProfiler.enable');
    inspectorPost(session, 'HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  if (a.callgrind) {
    callgrindInstr(true);
    // --zero-before=getegid: the costs of waiting for callgrind_control above are dropped here.
    process.getegid?.();
  }
  const profiler = a.alloc ? new GCProfiler() : null;
  const used0 = getHeapStatistics().used_heap_size;
  const old0 = oldGenerationBytesNow();
  profiler?.start();
  const cpu0 = process.cpuUsage();
  const w0 = performance.now();
  run.runUntil(a.toNs);
  // --dump-before=geteuid: the window's costs are written here (callgrind's out file, suffix .1).
  if (a.callgrind) process.geteuid?.();
  const windowEndUs = monotonicUs();
  const windowWallS = (performance.now() - w0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const gcStats = profiler?.stop();
  const used1 = getHeapStatistics().used_heap_size;
  const old1 = oldGenerationBytesNow();
  const events = run.sched.eventsProcessed - e0;
  const h1 = hops(run);
  const packetHops = h1.all - h0.all;
  const forwarded = h1.bySwitches - h0.bySwitches;
  const out: Record<string, unknown> = {
    scenario: a.scenario,
    sets: a.sets,
    fromNs: a.fromNs,
    toNs: run.sched.now(),
    fastForwardWallS: fastForwardS,
    window: {
      events,
      packetHops,
      forwardedBySwitches: forwarded,
      eventsPerHop: events / packetHops,
      wallS: windowWallS,
      cpuS: (cpu.user + cpu.system) / 1e6,
    },
    flowsCompleted: run.completedFlows,
    framesOnLinksAtEnd: onLinks(run),
    framesInFreeList: recycledFrameCount(),
  };
  if (session !== null && a.cpuProf !== null) {
    const { profile } = inspectorPost<{ profile: object }>(session, 'Profiler.stop');
    // scripts/perf-phases.mjs counts the samples inside the window only.
    writeFileSync(
      a.cpuProf,
      JSON.stringify({ ...profile, window: { startUs: windowStartUs, endUs: windowEndUs } }),
    );
  }
  if (session !== null && a.heapSampling !== null) {
    const { profile } = inspectorPost<{ profile: unknown }>(session, 'HeapProfiler.stopSampling');
    writeFileSync(a.heapSampling, JSON.stringify(profile));
  }
  if (gcStats !== undefined) {
    let freed = 0;
    let promoted = 0;
    let oldFreed = 0;
    const kinds: Record<string, { count: number; ms: number }> = {};
    for (const s of gcStats.statistics) {
      freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
      const oldGrew =
        oldGenerationBytes(s.afterGC.heapSpaceStatistics) -
        oldGenerationBytes(s.beforeGC.heapSpaceStatistics);
      if (s.gcType === 'Scavenge') promoted += oldGrew;
      else oldFreed -= oldGrew;
      const k = (kinds[s.gcType] ??= { count: 0, ms: 0 });
      k.count++;
      k.ms += s.cost / 1000;
    }
    const allocated = used1 - used0 + freed;
    out.alloc = {
      allocatedBytes: allocated,
      perEvent: allocated / events,
      perPacketHop: allocated / packetHops,
      perForwardedFrame: allocated / forwarded,
      promotedBytes: promoted,
      promotedPerEvent: promoted / events,
      // Old-generation bytes the window added, promoted or allocated there directly (pretenured,
      // large objects): what brings the next full collection.
      oldGenerationBytes: old1 - old0 + oldFreed,
      collections: kinds,
    };
  }
  if (census !== null) out.census = census();
  if (gc !== undefined) {
    gc();
    out.heapAfterFullGcBytes = getHeapStatistics().used_heap_size;
  }
  out.maxRssBytes = process.resourceUsage().maxRSS * 1024;
  if (a.snapshot !== null) out.snapshot = writeHeapSnapshot(a.snapshot);
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  rmSync(outDir, { recursive: true, force: true });
  // Keep `run` reachable until here, so the snapshot and the full collection see its state.
  if (run.sched.now() < 0) console.log(run);
}

main();
