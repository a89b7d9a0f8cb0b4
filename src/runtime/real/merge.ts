/**
 * The real runtimes' merge: the nodes' reports → results.json through the shared merge
 * (src/runtime/app/node-report.ts mergeReports, the same as the virtual runtime's), plus what
 * only a real run can get wrong: garbage datagrams, frames that could not be encoded, and hosts
 * that did not keep up with the time dilation.
 */

import type { Results } from '../../stats/results.js';
import { mergeReports as mergeNodeReports } from '../app/node-report.js';
import type { RunPlan } from '../app/plan.js';
import type { NodeReport } from './protocol.js';

export interface MergeInput {
  scenario: string;
  runtime: string;
  seed: number;
  timeScale: number;
  endNs: number;
  plan: RunPlan;
  ccByHost: Record<string, string>;
  reports: Map<string, NodeReport>;
  /** Launcher-side warnings (restarts, missing reports, watchdog). */
  warnings: string[];
}

/** Fraction of a lagging node's base RTT its event-loop p99 may take before we warn. */
const LAG_RTT_FRACTION = 0.5;
/** Achieved/expected rate under load below which a port "could not keep up". */
const MIN_RATE_RATIO = 0.9;

function fmtUs(ns: number): string {
  return `${(ns / 1e3).toFixed(ns < 10_000 ? 2 : 0)} µs`;
}

export function mergeReports(inp: MergeInput): Results {
  return mergeNodeReports({
    ...inp,
    warnings: [...inp.plan.warnings, ...inp.warnings],
    runtimeWarnings: healthWarnings(inp),
  });
}

/** Node health: garbage, encoding, and whether each host kept up with the dilation. */
function healthWarnings(inp: MergeInput): string[] {
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

  return warnings;
}
