/**
 * The gates of one host (src/workload/gate.ts): which of its events each gate still waits for,
 * and when it opens. Every event a gate waits for happens at its own host (a flow it sent
 * acknowledged, a flow it received arrived), so each host runs its gates on its own timers in
 * every runtime, and a lockstep run opens them at the same place among the host's events as
 * virtual time: a gate opens on a timer set when its last event happened, never inside the NIC's
 * call that reported the event.
 */
import type { TimerService } from '../../env/env.js';
import type { FlowEventKind } from '../../workload/gate.js';
import type { RunPlan } from './plan.js';

interface GateState {
  left: number;
  /** Time of the latest event so far. */
  lastNs: number;
  computeNs: number;
  /** Flows it holds, in id order. */
  flows: number[];
}

export class HostGates {
  private readonly gates = new Map<number, GateState>();
  /** Gates waiting for each flow's event, by flow id. */
  private readonly onAcked = new Map<number, number[]>();
  private readonly onReceived = new Map<number, number[]>();
  /** Gates waiting for each gate to open, by gate index. */
  private readonly onOpened = new Map<number, number[]>();

  /** `open` is called, on a timer of `timers`, with the flows of a gate that opened. */
  constructor(
    plan: RunPlan,
    host: string,
    private readonly timers: TimerService,
    private readonly open: (flowIds: readonly number[]) => void,
  ) {
    plan.workload.gates.forEach((g, i) => {
      if (g.host !== host) return;
      this.gates.set(i, { left: g.after.length, lastNs: 0, computeNs: g.computeNs, flows: [] });
      for (const e of g.after) {
        const [m, key] =
          e.on === 'opened'
            ? [this.onOpened, e.gate]
            : [e.on === 'acked' ? this.onAcked : this.onReceived, e.flow];
        const w = m.get(key);
        if (w === undefined) m.set(key, [i]);
        else w.push(i);
      }
    });
    if (this.gates.size === 0) return;
    for (const f of plan.flows) if (f.spec.gate >= 0) this.gates.get(f.spec.gate)?.flows.push(f.spec.id);
  }

  /** Whether a gate waits for flow `flowId` to arrive here (then the host counts its messages). */
  awaitsReceived(flowId: number): boolean {
    return this.onReceived.has(flowId);
  }

  /** Event `on` of flow `flowId` happened here at emulated `atNs`. */
  happened(flowId: number, on: FlowEventKind, atNs: number): void {
    this.countDown((on === 'acked' ? this.onAcked : this.onReceived).get(flowId), atNs);
  }

  private countDown(waiting: number[] | undefined, atNs: number): void {
    if (waiting === undefined) return;
    for (const i of waiting) {
      const g = this.gates.get(i)!;
      if (atNs > g.lastNs) g.lastNs = atNs;
      if (--g.left === 0) this.schedule(i, g);
    }
  }

  private schedule(i: number, g: GateState): void {
    this.gates.delete(i);
    this.timers.setTimer(g.lastNs + g.computeNs, () => {
      this.open(g.flows);
      this.countDown(this.onOpened.get(i), this.timers.now());
    });
  }
}
