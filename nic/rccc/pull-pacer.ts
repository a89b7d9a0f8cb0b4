/**
 * RCCC's receiver side (UET 1.0 CMS "RCCC"; uet-htsim UecPullPacer and UecSink::pull,
 * uec.cpp): one pacer per receiver NIC grants credit to its senders round-robin, one pull of
 * 4 MTU at a time, paced just under the line rate (0.99) so the last hop never queues. A sender
 * asks for credit with the pull target each data packet carries (cumulative, in 256-byte
 * quanta); it is *active* while its target is ahead of the pulls granted. When it has got all
 * it asked for it becomes *idle* and gets slow pulls (ignoring the target) up to one maxwnd of
 * credit beyond it, so a sender that speculated or is about to send more does not wait an RTT.
 * Sans-IO: time, the one timer and the pulls go through PullPacerIo.
 */
import { PULL_QUANTUM_BYTES, quantaFloor } from './settings.js';

export interface PullPacerIo {
  now(): number;
  /** Arm the pacer's timer to call `onTimer` at `atNs` (one timer; arming replaces it). */
  setTimer(atNs: number): void;
  /** Send a pull to the sender of `sink`: cumulative credit granted so far, in quanta. */
  sendPull(sink: RcccSink, pullQuanta: number, slow: boolean): void;
}

/** The receiver's state of one sender (UecSink's pull fields). */
export class RcccSink {
  /** Highest cumulative pull target the sender asked for, quanta. */
  highestPullTarget = 0;
  /** Cumulative credit granted, quanta. */
  latestPull = 0;
  /** Queued as an active sender. */
  inPull = false;
  /** Queued as an idle sender (slow pulls). */
  inSlowPull = false;
  constructor(
    /** The local QP (for the caller's sendPull). */
    readonly qpn: number,
    /** The sender's maxwnd, bytes: slow pulls stop at this much credit beyond its target. */
    readonly maxWndBytes: number,
  ) {}

  /** Credit asked for and not yet granted, quanta. */
  backlog(): number {
    return Math.max(0, this.highestPullTarget - this.latestPull);
  }

  /** Credit granted beyond what was asked for (slow pulls), quanta. */
  slowCredit(): number {
    return Math.max(0, this.latestPull - this.highestPullTarget);
  }
}

export interface PullPacerConfig {
  /** Line rate of the NIC (all its ports), bit/s. */
  lineRateBps: number;
  /** Fraction of the line rate to pull at (0.99). */
  pullRate: number;
  /** Credit of one pull, quanta. */
  creditPerPullQuanta: number;
}

/** With nothing to grant a pull still takes the time of 1024 bytes (UecPullPacer::doNextEvent). */
const MIN_PULL_GAP_QUANTA = 1024 / PULL_QUANTUM_BYTES;

export class PullPacer {
  private readonly active: RcccSink[] = [];
  private readonly idle: RcccSink[] = [];
  private running = false;
  /** ns of pacing per quantum of credit at the full pull rate. */
  private readonly nsPerQuantum: number;
  /** Relative rate set by the oversubscription control (1 = the full pull rate). */
  private relativeRate = 1;
  pullsSent = 0;

  constructor(
    private readonly cfg: PullPacerConfig,
    private readonly io: PullPacerIo,
  ) {
    this.nsPerQuantum = (8 * PULL_QUANTUM_BYTES * 1e9) / cfg.lineRateBps / cfg.pullRate;
  }

  /** A data (or trimmed) packet carried pull target `targetQuanta` (UecSink::handlePullTarget). */
  onPullTarget(sink: RcccSink, targetQuanta: number): void {
    if (!(targetQuanta > sink.highestPullTarget)) return;
    sink.highestPullTarget = targetQuanta;
    if (!sink.inPull) this.request(sink);
  }

  /** A trimmed packet or a request-to-send: the sender needs credit to retransmit. */
  onRetransmitNeeded(sink: RcccSink): void {
    if (!sink.inPull) this.request(sink);
  }

  /** Scale the pull rate (the oversubscription control's rate, 0 < r ≤ 1). */
  setRelativeRate(r: number): void {
    this.relativeRate = Math.min(1, Math.max(1e-6, r));
  }

  get rate(): number {
    return this.relativeRate;
  }

  /** Senders queued for credit (active) and for slow pulls (idle). */
  queued(): { active: number; idle: number } {
    return { active: this.active.length, idle: this.idle.length };
  }

  /** Forget a sender (its connection closed). */
  remove(sink: RcccSink): void {
    const drop = (list: RcccSink[]) => {
      for (let i = list.length - 1; i >= 0; i--) if (list[i] === sink) list.splice(i, 1);
    };
    drop(this.active);
    drop(this.idle);
    sink.inPull = false;
    sink.inSlowPull = false;
  }

  /** UecPullPacer::requestPull. */
  private request(sink: RcccSink): void {
    sink.inPull = true;
    this.active.push(sink);
    if (!this.running) {
      this.running = true;
      this.io.setTimer(this.io.now());
    }
  }

  /** The pacer's timer: one pull, then wait the time its credit takes at the pull rate. */
  onTimer(): void {
    if (this.active.length === 0 && this.idle.length === 0) {
      this.running = false;
      return;
    }
    let sink: RcccSink;
    let granted: number;
    let slow: boolean;
    if (this.active.length > 0) {
      sink = this.active.shift()!;
      const prev = sink.latestPull;
      // only as much credit as asked for, never backwards
      sink.latestPull = Math.min(prev + this.cfg.creditPerPullQuanta, Math.max(sink.highestPullTarget, prev));
      granted = sink.latestPull - prev;
      slow = false;
      if (sink.backlog() > 0) {
        this.active.push(sink);
      } else {
        sink.inPull = false;
        sink.inSlowPull = true;
        this.idle.push(sink);
      }
    } else {
      sink = this.idle.shift()!;
      if (!sink.inSlowPull) {
        sink.inPull = false;
        sink.inSlowPull = true;
      }
      granted = this.cfg.creditPerPullQuanta;
      sink.latestPull += granted;
      slow = true;
      if (sink.backlog() === 0 && sink.slowCredit() < quantaFloor(sink.maxWndBytes)) {
        this.idle.push(sink);
      } else {
        sink.inPull = false;
        sink.inSlowPull = false;
      }
    }
    this.pullsSent++;
    this.io.sendPull(sink, sink.latestPull, slow);
    const gapQuanta = granted > 0 ? granted : MIN_PULL_GAP_QUANTA;
    this.io.setTimer(this.io.now() + (this.nsPerQuantum * gapQuanta) / this.relativeRate);
  }
}
