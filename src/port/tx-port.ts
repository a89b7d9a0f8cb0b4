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
   * Whether work for the port was waiting by the current frame's exact end (queued behind it when
   * it began, which the owner sets after `begin`, or arrived before its end), and the first
   * arrival after that end. Only a late end-of-frame timer (real time) leaves a gap between the
   * end and the timer; in virtual time the timer fires within a nanosecond of the exact end.
   */
  workWaiting = false;
  lateArrivalNs = Number.POSITIVE_INFINITY;
  /** Serialisation time of a frame of serSizeBytes (a cache: the division is the hop's costliest instruction). */
  private serSizeBytes = -1;
  private serNs = 0;
  /** Runs when the frame's last bit is out; the owner sets it, and it calls `finish`. */
  onTxDone: () => void = noop;

  constructor(
    private readonly env: FirmwareEnv,
    /** Line rate; `setRate` changes it (a link slowed mid-run). */
    public rateBps: number,
  ) {}

  /** From the next frame on, serialise at `rateBps` (the frame on the wire keeps its end). */
  setRate(rateBps: number): void {
    this.rateBps = rateBps;
    this.serSizeBytes = -1;
  }

  /** Work for this port may have arrived at `now`; cheap enough to call on every arrival. */
  noteArrival(now: number): void {
    if (!this.busy) return;
    if (now <= this.txEndExactNs) this.workWaiting = true;
    else if (this.lateArrivalNs === Number.POSITIVE_INFINITY) this.lateArrivalNs = now;
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
    if (this.workWaiting || this.lateArrivalNs === Number.POSITIVE_INFINITY) return endNs;
    return Math.min(this.lateArrivalNs, now);
  }

  /** Put `pkt` (its sizeBytes set) on the wire from `startNs`; onTxDone runs when its last bit is out. */
  begin(pkt: Packet, startNs: number): void {
    this.busy = true;
    this.inFlight = pkt;
    this.workWaiting = false;
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
