/**
 * The dependency model of traffic (docs/scenario.md "Dependencies"): a flow may wait at a gate,
 * which opens once named events of its own host have happened, plus a compute delay. Every event
 * is local to the gate's host, so every runtime runs a gate the same way with no global barrier:
 * virtual time, a lockstep real run (where each node sees only its own firmware) and wallclock.
 *
 * The two local events a host can observe:
 * - `acked`: a flow this host sends completed at the sender (its last message acknowledged);
 * - `received`: a flow this host receives completed at the receiver (the last byte of its last
 *   message arrived in order, which the NIC reports as a receive completion: a SEND's, or an RDMA
 *   WRITE with immediate's, CQE on the receiving QP);
 * - `opened`: another gate of this host opened (how a collective's later steps wait for the rank
 *   to have started the collective at all).
 */

export type FlowEventKind = 'acked' | 'received';

/** An event of a flow (an earlier flow than any the gate holds). */
export interface FlowEvent {
  flow: number;
  on: FlowEventKind;
}

/** An earlier gate of the same host opened (a collective's steps wait for the rank to start it). */
export interface GateEvent {
  gate: number;
  on: 'opened';
}

export type LocalEvent = FlowEvent | GateEvent;

export interface Gate {
  /** The host the gate is at: the sender of every flow it holds, and where its events happen. */
  host: string;
  /** Every one of these must have happened. */
  after: LocalEvent[];
  /** Compute time after the last event before the gate opens, ns. */
  computeNs: number;
}
