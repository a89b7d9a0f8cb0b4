/**
 * IEEE 802.1Qbb priority flow control as one port sees it, shared by the NIC and the switch
 * firmware (docs/switch.md, "PFC"; docs/wire.md for the frame):
 *
 * - `PfcPause`, the receiving side: a frame with class bit n and Q quanta stops priority n of
 *   this port's transmitter for Q × 512 bit times at the port's rate, rounded up to whole ns so
 *   a pause never ends early; a later frame replaces the remaining time (refresh) and Q = 0
 *   resumes at once. The pause ends on a timer at that whole ns; the HPCC ns-3 simulator, whose
 *   QbbNetDevice hosts and switches share, likewise resumes a queue on a scheduled event.
 * - `PfcOutbox`, the sending side: the XOFF/XON decisions of one port that wait for its next
 *   transmission opportunity (they go ahead of every queue), merged into one frame.
 *
 * Sans-IO: time and timers come from the owner's FirmwareEnv.
 */
import type { FirmwareEnv, TimerId } from '../env/env.js';
import type { PfcBody } from '../wire/packet.js';
import { PFC_MAX_QUANTA, PFC_PRIORITIES, pfcQuantaToNs, pfcQuantumNs } from '../wire/pfc.js';

const NO_TIMER = -1;

function noop(): void {}

/** Pause state of one port's transmitter, per priority. */
export class PfcPause {
  /** Bit n set while priority n may not start a frame. */
  mask = 0;
  /** Frames received with a non-zero time on some enabled class, and all-zero (XON) frames. */
  pauseRx = 0;
  resumeRx = 0;
  /** Runs when a pause expires or is lifted, so the owner can restart its transmitter. */
  onResume: () => void = noop;
  private readonly startNs = new Float64Array(PFC_PRIORITIES);
  private readonly timers: TimerId[] = new Array<TimerId>(PFC_PRIORITIES).fill(NO_TIMER);
  private readonly expiry: (() => void)[] = [];
  private doneNs = 0;

  /**
   * @param exemptMask priorities this transmitter never pauses (a switch's strict-priority
   *   control class; they are still counted as received)
   */
  constructor(
    private readonly env: FirmwareEnv,
    /** Line rate that turns quanta into time (802.1Qbb: 512 bit times at the link's speed). */
    public rateBps: number,
    readonly exemptMask = 0,
  ) {
    for (let n = 0; n < PFC_PRIORITIES; n++) {
      this.expiry.push(() => {
        this.timers[n] = NO_TIMER;
        this.lift(n, this.env.now());
        this.onResume();
      });
    }
  }

  /** Priority n is paused now. */
  paused(n: number): boolean {
    return ((this.mask >>> n) & 1) === 1;
  }

  /**
   * Apply a received PFC frame whose quanta are valid (0..65535 on every enabled class). The
   * caller restarts its transmitter afterwards: an XON may have made work eligible.
   */
  receive(body: PfcBody, now: number): void {
    const enable = body.classEnable & 0xff;
    let anyPause = false;
    for (let n = 0; n < PFC_PRIORITIES; n++) {
      if (((enable >>> n) & 1) === 0) continue;
      const quanta = body.quanta[n] ?? 0;
      if (quanta > 0) anyPause = true;
      if ((this.exemptMask >>> n) & 1) continue;
      if (quanta === 0) this.lift(n, now);
      else this.pauseUntil(n, now, now + pfcQuantaToNs(quanta, this.rateBps));
    }
    if (anyPause) this.pauseRx++;
    else this.resumeRx++;
  }

  /** Total paused time of all priorities up to `now`, ns (a pause still running included). */
  pausedNs(now: number): number {
    let ns = this.doneNs;
    for (let n = 0; n < PFC_PRIORITIES; n++) if ((this.mask >>> n) & 1) ns += now - this.startNs[n];
    return ns;
  }

  private pauseUntil(n: number, now: number, untilNs: number): void {
    if (((this.mask >>> n) & 1) === 0) {
      this.mask |= 1 << n;
      this.startNs[n] = now;
    }
    // A refresh replaces the remaining pause time (802.1Qbb), it does not add to it.
    if (this.timers[n] !== NO_TIMER) this.env.cancelTimer(this.timers[n]);
    this.timers[n] = this.env.setTimer(untilNs, this.expiry[n]);
  }

  private lift(n: number, now: number): void {
    if (((this.mask >>> n) & 1) === 0) return;
    this.mask &= ~(1 << n);
    this.doneNs += now - this.startNs[n];
    if (this.timers[n] !== NO_TIMER) {
      this.env.cancelTimer(this.timers[n]);
      this.timers[n] = NO_TIMER;
    }
  }
}

/** XOFF/XON decisions of one port waiting to go out, one PFC frame for all of them. */
export class PfcOutbox {
  /** Classes (bits) with a decision waiting. */
  pendingMask = 0;
  private readonly pendingQuanta = [0, 0, 0, 0, 0, 0, 0, 0];
  /** Frames sent with a non-zero time on some class (XOFF or refresh), and all-zero (XON) frames. */
  pauseTx = 0;
  resumeTx = 0;

  /** Ask priority n of the peer to pause for `quanta` (0: resume); replaces an unsent decision. */
  queue(n: number, quanta: number): void {
    this.pendingMask |= 1 << n;
    this.pendingQuanta[n] = quanta;
  }

  /** The body of the frame carrying every waiting decision; empties the outbox. */
  take(): PfcBody {
    const mask = this.pendingMask;
    const quanta = [0, 0, 0, 0, 0, 0, 0, 0];
    let anyPause = false;
    for (let n = 0; n < PFC_PRIORITIES; n++) {
      if ((mask >>> n) & 1) {
        quanta[n] = this.pendingQuanta[n];
        if (quanta[n] > 0) anyPause = true;
      }
    }
    this.pendingMask = 0;
    if (anyPause) this.pauseTx++;
    else this.resumeTx++;
    return { classEnable: mask, quanta };
  }
}

/** Pause time of our XOFF frames, in quanta: the configured value clamped to 1..65535. */
export function pfcPauseQuanta(configured: number | undefined): number {
  return Math.min(PFC_MAX_QUANTA, Math.max(1, Math.round(configured ?? PFC_MAX_QUANTA)));
}

/**
 * Refresh period of our XOFF on a port: half the pause time it carries, so the peer hears the
 * next XOFF before the previous one runs out (docs/switch.md, "PFC").
 */
export function pfcRefreshNs(pauseQuanta: number, rateBps: number): number {
  return Math.max(1, Math.floor((pauseQuanta * pfcQuantumNs(rateBps)) / 2));
}
