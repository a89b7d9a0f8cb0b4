/**
 * RCCC's sender side (UET 1.0 CMS "RCCC"; uet-htsim UecSrc credit(), spendCredit,
 * stopSpeculating, handlePull, computePullTarget, uec.cpp): a QP may send while it holds any
 * credit (credit may go negative by the last packet). It starts with one maxwnd of speculative
 * credit, so the first window leaves at once; the first ACK, NACK or pull ends the speculation
 * and forfeits what is left of it. Every data packet carries a pull target: the cumulative credit
 * the sender wants, min(backlog + retransmit backlog, cwnd + MTU, maxwnd) beyond what it holds,
 * shared by the sources the NIC is serving. Bytes are wire bytes of data packets (what the
 * pacer's line rate carries). Sans-IO: plain state.
 */
import { PULL_QUANTUM_BYTES, quantaCeil } from './settings.js';

export interface PullTargetInput {
  /** Bytes not yet sent, and bytes queued for retransmission (wire bytes). */
  backlogBytes: number;
  rtxBacklogBytes: number;
  /** The sender's own window (a sender CC such as NSCC), or null when it keeps none. */
  cwndBytes: number | null;
  /** Wire bytes of a full data packet. */
  mtuBytes: number;
  /** Sources the NIC is serving at once (UecNIC::activeSources; the target is shared among them). */
  activeSources: number;
}

export class RcccCredit {
  /** Credit held, bytes (may be negative after the last packet). */
  creditBytes = 0;
  /** Cumulative pull number heard from the receiver, quanta. */
  pullQuanta = 0;
  /** Sending on the speculative credit of the start. */
  speculating = true;
  /** Speculative credit forfeited when the receiver first answered, bytes. */
  forfeitedBytes = 0;

  constructor(
    /** The credit cap, bytes: maxwnd as configured (1.5 × BDP of the network RTT). */
    readonly maxWndBytes: number,
  ) {}

  /** startConnection: one maxwnd of speculative credit. */
  start(): void {
    this.creditBytes = this.maxWndBytes;
    this.speculating = true;
  }

  canSend(): boolean {
    return this.creditBytes > 0;
  }

  spend(wireBytes: number): void {
    this.creditBytes -= wireBytes;
  }

  /** The receiver answered (ACK, NACK or pull): speculation ends, unused speculative credit goes. */
  stopSpeculating(): void {
    if (!this.speculating) return;
    this.speculating = false;
    if (this.creditBytes > 0) {
      this.forfeitedBytes += this.creditBytes;
      this.creditBytes = 0;
    }
  }

  /** A pull carrying cumulative credit `pullQuanta` (handlePull; reordered pulls add nothing). */
  onPull(pullQuanta: number): void {
    this.stopSpeculating();
    if (!(pullQuanta > this.pullQuanta)) return;
    this.creditBytes = Math.min(
      this.creditBytes + (pullQuanta - this.pullQuanta) * PULL_QUANTUM_BYTES,
      this.maxWndBytes,
    );
    this.pullQuanta = pullQuanta;
  }

  /** The pull target to put on the next data packet, quanta (computePullTarget). */
  pullTarget(x: PullTargetInput): number {
    let want = x.backlogBytes + x.rtxBacklogBytes;
    if (x.cwndBytes !== null) want = Math.min(want, x.cwndBytes + x.mtuBytes);
    want = Math.min(want, this.maxWndBytes) - this.creditBytes;
    // Always ask for at least an MTU while speculating with a backlog (short transfers).
    if (this.speculating && want < x.mtuBytes && x.backlogBytes > 0) want = x.mtuBytes;
    if (x.activeSources > 1) want /= x.activeSources;
    return quantaCeil(want + this.pullQuanta * PULL_QUANTUM_BYTES);
  }
}
