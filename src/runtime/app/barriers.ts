/**
 * Barrier groups (alltoall's iterations): a flow with `waitGroup` ≥ 0 starts once every flow of
 * that group completed, `waitGapNs` after the last completion and not before its own startNs.
 * The runtime owns the tracker, because a group spans hosts: virtual time releases waiters
 * directly, a real launcher relays them to the sender's node (`startFlow`).
 */
import type { PlannedFlow, RunPlan } from './plan.js';

export interface Release {
  flow: PlannedFlow;
  /** Emulated time the flow starts at (may be now). */
  atNs: number;
}

export class BarrierGroups {
  private readonly left: number[];
  private readonly waiters = new Map<number, PlannedFlow[]>();

  constructor(private readonly plan: RunPlan) {
    this.left = [...plan.workload.groupSizes];
    for (const f of plan.flows) {
      const g = f.spec.waitGroup;
      if (g < 0) continue;
      const w = this.waiters.get(g);
      if (w === undefined) this.waiters.set(g, [f]);
      else w.push(f);
    }
  }

  /** Flow `flowId` completed at `endNs`: the flows this releases, in group then id order. */
  flowDone(flowId: number, endNs: number): Release[] {
    const out: Release[] = [];
    for (const g of this.plan.flows[flowId].spec.groups) {
      if (--this.left[g] !== 0) continue;
      for (const f of this.waiters.get(g) ?? [])
        out.push({ flow: f, atNs: Math.max(f.spec.startNs, endNs + f.spec.waitGapNs) });
    }
    return out;
  }
}
