/**
 * The real runtimes' merge: the nodes' reports → results.json through the shared merge
 * (src/runtime/app/node-report.ts mergeReports, the same as the virtual runtime's), plus what
 * only a real run can get wrong: garbage datagrams, frames that could not be encoded, and hosts
 * that did not keep up with the time dilation.
 */

import type { RealtimeResult, Results } from '../../stats/results.js';
import { shortestLinkDelayNs } from '../../topology/model.js';
import { mergeReports as mergeNodeReports, type MergeInput as SharedMergeInput } from '../app/node-report.js';
import type { NodeReport } from './protocol.js';

/** The shared merge's input, with the real nodes' own reports and what lockstep measured. */
export interface MergeInput extends Omit<SharedMergeInput, 'reports' | 'runtimeWarnings'> {
  reports: Map<string, NodeReport>;
  sync?: 'lockstep' | 'wallclock';
  /** Lockstep: dilation over the launcher's progress windows (real ns per emulated ns). */
  dilations?: number[];
  /** OS processes the nodes ran in (default: one per node). */
  processes?: number;
}

/** Fraction of a lagging node's base RTT its event-loop p99 may take before we warn. */
const LAG_RTT_FRACTION = 0.5;
/** Achieved/expected rate under load below which a port "could not keep up". */
const MIN_RATE_RATIO = 0.9;

function fmtUs(ns: number): string {
  return `${(ns / 1e3).toFixed(ns < 10_000 ? 2 : 0)} µs`;
}

export function mergeReports(inp: MergeInput): Results {
  const late = lateOverTime(inp);
  const results = mergeNodeReports({
    ...inp,
    warnings: [...inp.plan.warnings, ...inp.warnings],
    runtimeWarnings: healthWarnings(inp, late),
  });
  results.realtime = realtimeSection(inp, late);
  return results;
}

type LateOverTime = NonNullable<RealtimeResult['lateOverTime']>;

/**
 * The nodes' late frames summed by the emulated time they were due, over the bins the run lasted
 * (the scenario's duration in 100 bins; a run that ends early fills fewer), or null when no node
 * counted them (lockstep).
 */
function lateOverTime(inp: MergeInput): LateOverTime | null {
  let binNs = 0;
  let counts: number[] = [];
  for (const r of inp.reports.values()) {
    const bins = r.io.lateByBin;
    const w = r.io.lateBinNs ?? 0;
    if (r.sync?.mode === 'lockstep' || bins === undefined || !(w > 0)) continue;
    if (binNs === 0) {
      binNs = w;
      counts = new Array<number>(bins.length).fill(0);
    }
    if (w !== binNs || bins.length !== counts.length) continue;
    for (let i = 0; i < bins.length; i++) counts[i] += bins[i];
  }
  if (binNs === 0) return null;
  const used = Math.min(counts.length, Math.max(1, Math.ceil(inp.endNs / binNs)));
  // The last bin kept also counts frames due after it (none, unless the run overran its end).
  for (let i = used; i < counts.length; i++) counts[used - 1] += counts[i];
  return { binNs, counts: counts.slice(0, used) };
}

/** How emulated time was kept (results.json `realtime`, docs/results.md). */
function realtimeSection(inp: MergeInput, late: LateOverTime | null): RealtimeResult {
  const { plan, reports } = inp;
  let promiseDatagrams = 0;
  let dataFrames = 0;
  let datagrams = 0;
  let trainDatagrams = 0;
  let bundles = 0;
  let bundledDatagrams = 0;
  let lateFrames = 0;
  let worstLate: { node: string; maxLateNs: number } | null = null;
  const nodeDilations: number[] = [];
  for (const r of reports.values()) {
    promiseDatagrams += r.io.promisesTx ?? 0;
    dataFrames += r.io.dataTx ?? 0;
    datagrams += r.io.txDatagrams;
    trainDatagrams += r.io.trainDatagrams ?? 0;
    bundledDatagrams += r.io.bundledTx ?? 0;
    bundles += r.io.bundles?.tx ?? 0;
    nodeDilations.push(...(r.sync?.dilations ?? []));
  }
  const minLinkDelayNs = shortestLinkDelayNs(plan.topo);
  for (const r of reports.values()) {
    if (r.sync?.mode === 'lockstep') continue;
    lateFrames += r.io.lateFrames ?? 0;
    // A node that received nothing may be one whose every timer ran so late that it never sent:
    // its timers' lateness beyond the link slack is then what did not keep up.
    const stuck = r.io.stampedFrames === 0 && r.load.timerMaxLateNs > minLinkDelayNs;
    const lateNs = (r.io.lateFrames ?? 0) > 0 ? r.io.maxLateNs : stuck ? r.load.timerMaxLateNs : 0;
    if (lateNs > 0 && (worstLate === null || lateNs > worstLate.maxLateNs))
      worstLate = { node: r.node, maxLateNs: lateNs };
  }
  const sync = inp.sync ?? 'wallclock';
  let resentDatagrams = 0;
  for (const r of reports.values()) resentDatagrams += r.io.resentDatagrams ?? 0;
  let gcMaxNs = 0;
  let gcOver1Ms = 0;
  let loopMaxNs = 0;
  const longGc: NonNullable<RealtimeResult['pauses']['longGc']> = [];
  for (const r of reports.values()) {
    gcMaxNs = Math.max(gcMaxNs, r.load.gcMaxNs ?? 0);
    gcOver1Ms += r.load.gcOver1Ms ?? 0;
    loopMaxNs = Math.max(loopMaxNs, r.load.eventLoopMaxNs);
    for (const g of r.load.gcLong ?? [])
      longGc.push({
        node: r.node,
        atNs: g.atNs,
        durationMs: Math.round(g.durationNs / 1e3) / 1e3,
        kind: g.kind,
      });
  }
  longGc.sort((a, b) => a.atNs - b.atNs || a.node.localeCompare(b.node));
  const linksDown: { node: string; port: number; peer: string; atNs: number }[] = [];
  for (const r of reports.values()) for (const d of r.linksDown ?? []) linksDown.push({ node: r.node, ...d });
  linksDown.sort((a, b) => a.atNs - b.atNs || a.node.localeCompare(b.node) || a.port - b.port);
  const dil = (inp.dilations?.length ?? 0) > 0 ? inp.dilations! : nodeDilations;
  let realtimeNodes = 0;
  for (const r of reports.values()) if (r.load.realtimePriority?.applied === true) realtimeNodes++;
  return {
    sync,
    processes: inp.processes ?? plan.topo.nodes.length,
    mainThreadPriority:
      realtimeNodes === 0 ? 'normal' : realtimeNodes === reports.size ? 'realtime' : 'mixed',
    dilation: dil.length > 0 ? spread(dil) : null,
    promiseDatagrams,
    dataFrames,
    datagrams,
    trainDatagrams,
    bundles,
    bundledDatagrams,
    linksDown,
    lateFrames,
    worstLate,
    minLinkDelayNs,
    resentDatagrams,
    pauses: {
      gcMaxMs: Math.round(gcMaxNs / 1e3) / 1e3,
      gcOver1Ms,
      eventLoopMaxMs: Math.round(loopMaxNs / 1e3) / 1e3,
      longGc: longGc.slice(0, LONG_GC_LISTED),
    },
    ...(late !== null ? { lateOverTime: late } : {}),
  };
}

/** Collections over 1 ms results.json lists (the earliest; gcOver1Ms counts them all). */
const LONG_GC_LISTED = 200;

/** min / median / max, rounded to 3 significant digits. */
function spread(xs: number[]): { min: number; p50: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const r = (x: number) => Number(x.toPrecision(3));
  return { min: r(s[0]), p50: r(s[Math.floor((s.length - 1) / 2)]), max: r(s[s.length - 1]) };
}

/** Node health: garbage, encoding, and whether each host kept up with the dilation. */
function healthWarnings(inp: MergeInput, late: LateOverTime | null): string[] {
  const { plan, reports } = inp;
  const warnings: string[] = [];
  const rttNs = plan.minBaseRttNs > 0 ? plan.minBaseRttNs : 1000;
  for (const n of plan.topo.nodes) {
    const r = reports.get(n.name);
    if (r === undefined) continue;
    if (r.io.garbageTotal > 0) {
      const why = Object.entries(r.io.garbage)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      warnings.push(`${r.node}: ${r.io.garbageTotal} garbage datagrams dropped (${why})`);
    }
    if (r.io.encodeErrors > 0) warnings.push(`${r.node}: ${r.io.encodeErrors} frames could not be encoded`);
    // The process's bundles (reported by its first node): anything dropped was resent by its
    // link, but a count above zero says the process received bytes it could not place.
    const b = r.io.bundles;
    if (b !== undefined && b.bad + b.unknownDestinations + b.sendErrors > 0)
      warnings.push(
        `${r.node}'s process: bundles dropped: ${b.bad} malformed, ${b.unknownDestinations} datagrams for no node of it, ${b.sendErrors} sends failed`,
      );
    // With arrival stamps, a late timer or a slow event loop changes nothing firmware sees unless
    // a frame comes after its stamp: then (and only then) the host did not keep up.
    const stamped = r.io.arrivalStamps === true;
    if ((r.io.lateFrames ?? 0) > 0) {
      warnings.push(
        `${r.node}: the host could not keep up: ${r.io.lateFrames} of ${r.io.stampedFrames} frames reached firmware after their emulated arrival time (up to ${fmtUs(r.io.maxLateNs)} late; raise timeScale)`,
      );
    }
    const lagEmNs = r.load.eventLoopP99Ns / inp.timeScale;
    if (!stamped && lagEmNs > LAG_RTT_FRACTION * rttNs) {
      warnings.push(
        `${r.node}: the host could not keep up: event-loop lag p99 ${(r.load.eventLoopP99Ns / 1e6).toFixed(2)} ms real = ${fmtUs(lagEmNs)} emulated, more than ${LAG_RTT_FRACTION * 100}% of the ${fmtUs(rttNs)} base RTT (raise timeScale)`,
      );
    }
    // Ports serialise in emulated time; with stamps their rate is exact whatever the host does.
    for (const p of stamped ? [] : r.load.ports) {
      if (p.ratio !== null && p.loadedWindows >= 5 && p.ratio < MIN_RATE_RATIO) {
        warnings.push(
          `${r.node} port ${p.port}: the host could not keep up: achieved ${(100 * p.ratio).toFixed(1)}% of the expected rate under load (raise timeScale)`,
        );
      }
    }
  }
  // Nodes whose process asked for real-time priority and did not get it, by the reason.
  const refused = new Map<string, string[]>();
  for (const r of reports.values()) {
    const p = r.load.realtimePriority;
    if (p === undefined || !p.wanted || p.applied) continue;
    const why = p.refused ?? 'unknown';
    const nodes = refused.get(why);
    if (nodes === undefined) refused.set(why, [r.node]);
    else nodes.push(r.node);
  }
  for (const [why, nodes] of refused)
    warnings.push(
      `${nodes.join(', ')}: main thread left at normal priority (${why}); late frames are likelier (docs/realtime.md "Real-time priority")`,
    );
  const lateTotal = late?.counts.reduce((a, b) => a + b, 0) ?? 0;
  if (late !== null && lateTotal > 0) {
    const tenthNs = inp.endNs / 10;
    let early = 0;
    for (let i = 0; i < late.counts.length && (i + 1) * late.binNs <= tenthNs; i++) early += late.counts[i];
    warnings.push(
      `of the ${lateTotal} late frames, ${Math.round((100 * early) / lateTotal)}% were due in the run's first tenth (before ${fmtUs(tenthNs)} emulated); results.realtime.lateOverTime has them by time`,
    );
  }

  return warnings;
}
