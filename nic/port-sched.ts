/**
 * The NIC's port scheduler: CNPs first, then ACK/NAKs, then data of QPs round-robin among those
 * whose pacing time has come (the pacing heap holds the others, sched.ts); each class obeys its
 * PFC pause. Frames serialise on the TxPort the switch uses too (src/port/tx-port.ts), tracked in
 * fractional ns so back-to-back frames and paced gaps keep their exact long-run rate; timers fire
 * at the next integer ns. What a data frame is (and what sending one means) is the NIC's.
 */
import type { FirmwareEnv, TimerId } from '../src/env/env.js';
import type { PfcPause } from '../src/port/pfc.js';
import { Ring } from '../src/port/ring.js';
import type { TxPort } from '../src/port/tx-port.js';
import type { Packet } from '../src/wire/packet.js';
import { emulatedSizeBytes } from '../src/wire/size.js';
import { type Qp, SCHED_HEAP, SCHED_NONE, SCHED_RING } from './qp.js';
import { PacingHeap } from './sched.js';

/** Float slack when comparing fractional-ns times computed along different paths. */
export const EPS_NS = 1e-3;

/** The NIC's side of the scheduler. */
export interface PortSchedulerHost {
  /** The QP has a data packet its transport and window allow now. */
  canSend(qp: Qp): boolean;
  /** Build the QP's next data frame (the transport picks what it is). */
  buildData(qp: Qp): Packet;
  /** The data frame started serialising at `startNs`. */
  afterDataTx(qp: Qp, pkt: Packet, startNs: number): void;
  /** The frame's last bit left the port. */
  txDone(pkt: Packet): void;
}

export class PortScheduler {
  readonly ready = new Ring<Qp>(64);
  readonly pacing = new PacingHeap<Qp>();
  /** CNPs (control priority) and ACK/NAKs (ack priority): both ahead of data, CNPs first. */
  readonly control = new Ring<Packet>(64);
  readonly acks = new Ring<Packet>(64);
  private inTrySend = false;
  private wakeTimer: TimerId | null = null;
  private wakeAtNs = Number.POSITIVE_INFINITY;
  private wakeExactNs = Number.POSITIVE_INFINITY;
  private readonly onWakeBound = () => this.onWake();
  private ipId = 0;

  constructor(
    private readonly env: FirmwareEnv,
    private readonly tx: TxPort,
    private readonly pause: PfcPause,
    private readonly prio: { control: number; ack: number; data: number },
    private readonly host: PortSchedulerHost,
  ) {
    tx.onTxDone = () => this.onTxEnd();
    pause.onResume = () => this.kick();
  }

  /** Put a QP that may have become sendable into the ready ring or the pacing heap. */
  reschedule(qp: Qp): void {
    if (qp.sched !== SCHED_NONE || !this.host.canSend(qp)) return;
    if (qp.nextAvailNs <= this.env.now() + EPS_NS) {
      qp.sched = SCHED_RING;
      this.ready.push(qp);
    } else {
      qp.sched = SCHED_HEAP;
      this.pacing.push(qp);
    }
  }

  /** Start the next frame if the port is idle (called at the end of every entry point). */
  kick(): void {
    const tx = this.tx;
    if (tx.busy) tx.noteArrival(this.env.now());
    else if (!this.inTrySend) this.trySend(Math.max(this.env.now(), tx.txEndExactNs));
  }

  private trySend(startNs: number): void {
    this.inTrySend = true;
    let pkt: Packet | null = null;
    let qp: Qp | null = null;
    const pause = this.pause;
    if (this.control.length > 0 && !pause.paused(this.prio.control)) {
      pkt = this.control.shift()!;
    } else if (this.acks.length > 0 && !pause.paused(this.prio.ack)) {
      pkt = this.acks.shift()!;
    } else if (!pause.paused(this.prio.data)) {
      qp = this.pickQp(startNs);
      if (qp !== null) pkt = this.host.buildData(qp);
    }
    if (pkt === null) {
      this.inTrySend = false;
      this.scheduleWake();
      return;
    }
    this.startTx(pkt, startNs);
    if (qp !== null) this.host.afterDataTx(qp, pkt, startNs);
    // Work behind this frame (a paced QP too): after a late end-of-frame timer the next frame
    // starts from this frame's exact end, not from the timer.
    if (this.control.length > 0 || this.acks.length > 0 || this.ready.length > 0 || this.pacing.size > 0)
      this.tx.workWaiting = true;
    this.inTrySend = false;
  }

  /** Round-robin over QPs whose pacing time has come. */
  private pickQp(startNs: number): Qp | null {
    const limit = startNs + EPS_NS;
    for (
      let top = this.pacing.peek();
      top !== undefined && top.nextAvailNs <= limit;
      top = this.pacing.peek()
    ) {
      this.pacing.pop();
      top.sched = SCHED_RING;
      this.ready.push(top);
    }
    for (let qp = this.ready.shift(); qp !== undefined; qp = this.ready.shift()) {
      qp.sched = SCHED_NONE;
      if (!this.host.canSend(qp)) continue;
      if (qp.nextAvailNs > limit) {
        qp.sched = SCHED_HEAP;
        this.pacing.push(qp);
        continue;
      }
      return qp;
    }
    return null;
  }

  private startTx(pkt: Packet, startNs: number): void {
    pkt.id = this.env.nextPacketId();
    pkt.ipId = this.ipId;
    this.ipId = (this.ipId + 1) & 0xffff;
    pkt.sizeBytes = emulatedSizeBytes(pkt);
    this.tx.begin(pkt, startNs);
  }

  private onTxEnd(): void {
    this.host.txDone(this.tx.finish());
    if (!this.inTrySend) this.trySend(this.tx.nextStartAfterTx(this.env.now()));
  }

  /** Wake for the next paced QP; the end of a PFC pause restarts the port itself (onResume). */
  private scheduleWake(): void {
    if (this.pacing.size === 0 || this.pause.paused(this.prio.data)) return;
    const at = this.pacing.peek()!.nextAvailNs;
    const timerAt = Math.max(Math.ceil(at - EPS_NS), this.env.now());
    if (this.wakeTimer !== null) {
      if (this.wakeAtNs <= timerAt) return;
      this.env.cancelTimer(this.wakeTimer);
    }
    this.wakeAtNs = timerAt;
    this.wakeExactNs = at;
    this.wakeTimer = this.env.setTimer(timerAt, this.onWakeBound);
  }

  private onWake(): void {
    this.wakeTimer = null;
    this.wakeAtNs = Number.POSITIVE_INFINITY;
    if (this.tx.busy || this.inTrySend) return;
    // Start at the exact (fractional) instant the wake was for, so paced gaps do not drift.
    const now = this.env.now();
    this.trySend(Math.max(this.tx.txEndExactNs, Math.min(this.wakeExactNs, now)));
  }
}
