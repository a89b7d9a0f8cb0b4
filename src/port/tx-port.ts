/**
 * The transmit side of one Ethernet port, shared by the NIC and the switch firmware: it puts one
 * frame at a time on the wire at the port's line rate and hands it to the runtime when its last
 * bit is out. The owner chooses frames (its own scheduler) and calls `begin`; its `onTxDone` runs
 * at the end of serialisation and calls `finish`.
 *
 * Time is kept in fractional ns: a frame starts where the previous one really ended, so timers
 * rounded up to whole ns never slow a port below its line rate (docs/switch.md, "Egress").
 * Sans-IO: time and timers come from the owner's FirmwareEnv.
 */
import type { FirmwareEnv } from '../env/env.js';
import type { Packet } from '../wire/packet.js';

/** Absorbs float rounding when a fractional serialisation end is turned into a timer time. */
export const TX_TIMER_SLACK_NS = 1e-6;

function noop(): void {}

export class TxPort {
  /** True while a frame is on the wire (owners may also hold it while they choose one). */
  busy = false;
  inFlight: Packet | null = null;
  /** Exact (fractional) end of the current serialisation, ns. */
  txEndExactNs = 0;
  /**
   * First arrival at this busy port after the current frame's exact end, and whether other work
   * was already waiting then. Only a late end-of-frame timer (real time) leaves a gap between the
   * two; in virtual time the timer fires within a nanosecond of the exact end.
   */
  lateArrivalNs = Number.POSITIVE_INFINITY;
  backlogAtLateArrival = false;
  /** Serialisation time of a frame of serSizeBytes (a cache: the division is the hop's costliest instruction). */
  private serSizeBytes = -1;
  private serNs = 0;
  /** Runs when the frame's last bit is out; the owner sets it, and it calls `finish`. */
  onTxDone: () => void = noop;

  constructor(
    private readonly env: FirmwareEnv,
    readonly rateBps: number,
  ) {}

  /**
   * Note that work arrived for this port at `now` while it was busy; `backlog` says whether other
   * work was already waiting. Cheap enough to call on every arrival.
   */
  noteArrival(now: number, backlog: boolean): void {
    if (this.busy && now > this.txEndExactNs && this.lateArrivalNs === Number.POSITIVE_INFINITY) {
      this.lateArrivalNs = now;
      this.backlogAtLateArrival = backlog;
    }
  }

  /**
   * Where the frame after a finished one starts. In real time the end-of-frame timer fires late
   * by the host's scheduling lag; starting from `now` would lose that lag on every frame (a
   * software port then runs at 85-90 % of its rate under load), so a late port catches up: from
   * the exact end if work was waiting then, else from the first arrival after it.
   */
  nextStartAfterTx(now: number): number {
    const endNs = this.txEndExactNs;
    if (now - endNs < 1) return endNs;
    if (this.lateArrivalNs === Number.POSITIVE_INFINITY || this.backlogAtLateArrival) return endNs;
    return Math.min(this.lateArrivalNs, now);
  }

  /** Put `pkt` (its sizeBytes set) on the wire from `startNs`; onTxDone runs when its last bit is out. */
  begin(pkt: Packet, startNs: number): void {
    this.busy = true;
    this.inFlight = pkt;
    this.lateArrivalNs = Number.POSITIVE_INFINITY;
    const size = pkt.sizeBytes;
    if (size !== this.serSizeBytes) {
      this.serSizeBytes = size;
      this.serNs = (size * 8e9) / this.rateBps;
    }
    const endNs = startNs + this.serNs;
    this.txEndExactNs = endNs;
    this.env.setTimer(Math.ceil(endNs - TX_TIMER_SLACK_NS), this.onTxDone);
  }

  /** The frame whose last bit is now out; the port is idle again. */
  finish(): Packet {
    const pkt = this.inFlight!;
    this.inFlight = null;
    this.busy = false;
    return pkt;
  }
}
