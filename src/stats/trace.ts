/**
 * results.json `trace`: why the slowest flows ran slow. For the TRACE_FLOWS slowest flows, the
 * last TRACE_CHANGES rate/window changes of the sender QP while the flow was active, each with
 * the event that caused it (nic/api.ts RateChange.why), and how often each cause lowered the
 * rate or window over the flow's life. Bounded whatever the run's size. docs/results.md.
 */
import { round6 } from './results.js';

/** Flows the trace keeps (the slowest first). */
export const TRACE_FLOWS = 8;
/** Changes kept per flow (the most recent). */
export const TRACE_CHANGES = 32;

/** [tNs, rateBps, windowBytes | null (no window), why]. */
export type RateChangePoint = [number, number, number | null, string];

/** What a runtime recorded for one flow. */
export interface FlowRateLog {
  /** Changes seen while the flow was active, over its whole life. */
  changeCount: number;
  /** Cause → number of changes that lowered the rate or the window. */
  drops: Record<string, number>;
  /** The last changes, oldest first (at most TRACE_CHANGES). */
  changes: RateChangePoint[];
}

export interface FlowTraceResult {
  flow: number;
  changeCount: number;
  drops: Record<string, number>;
  changes: RateChangePoint[];
}

/**
 * How slow a flow was, for ranking: its slowdown when it completed; when it did not, the slowdown
 * it has at least (time active so far over the ideal FCT), so a flow stuck since early on ranks
 * high and one that started just before the end does not. Same rounding as `slowdown`.
 */
export function slownessKey(
  startNs: number,
  endNs: number | null,
  runEndNs: number,
  idealNs: number,
): number {
  const fct = (endNs ?? runEndNs) - startNs;
  return round6(Math.max(1, fct / Math.max(1, idealNs)));
}

/** Total order: slower first, then lower id (so a streaming top-N and a full sort agree). */
export function slowerFirst(a: { key: number; id: number }, b: { key: number; id: number }): number {
  return b.key - a.key || a.id - b.id;
}

/**
 * The trace section: flows with a rate log (the runtime records one for every started flow it
 * may rank), slowest TRACE_FLOWS first.
 */
export function buildTrace(
  flows: readonly {
    id: number;
    startNs: number;
    endNs: number | null;
    idealFctNs: number;
    rateLog?: FlowRateLog;
  }[],
  runEndNs: number,
): FlowTraceResult[] {
  const ranked: { key: number; id: number; log: FlowRateLog }[] = [];
  for (const f of flows) {
    if (f.rateLog === undefined) continue;
    ranked.push({ key: slownessKey(f.startNs, f.endNs, runEndNs, f.idealFctNs), id: f.id, log: f.rateLog });
  }
  ranked.sort(slowerFirst);
  return ranked.slice(0, TRACE_FLOWS).map(({ id, log }) => ({
    flow: id,
    changeCount: log.changeCount,
    drops: Object.fromEntries(Object.entries(log.drops).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    changes: log.changes
      .slice(-TRACE_CHANGES)
      .map(([t, r, w, why]) => [
        t,
        Math.round(r),
        w === null || !Number.isFinite(w) ? null : Math.round(w),
        why,
      ]),
  }));
}
