/**
 * The deterministic discrete-event scheduler of the virtual runtime (design §2): one clock in
 * integer emulated nanoseconds, events ordered by (time, insertion order). Same schedule of
 * calls ⇒ same order of callbacks, on every machine.
 */
import type { TimerId, TimerService } from '../env/env.js';
import { TimerQueue, timerFireNs } from './timer-queue.js';

export class VirtualScheduler implements TimerService {
  private readonly queue = new TimerQueue();
  private nowNs = 0;
  private processed = 0;
  private running = false;
  private stopRequested = false;

  /** Current emulated time, integer ns. */
  now(): number {
    return this.nowNs;
  }

  /**
   * Run `fn` at `atNs`. Times in the past fire at the current time (after everything already
   * queued for it); fractional times round up so a timer never fires before it was asked to.
   */
  setTimer(atNs: number, fn: () => void): TimerId {
    return this.queue.push(timerFireNs(atNs, this.nowNs), fn);
  }

  /** Cancel a pending timer; fired, cancelled or unknown ids are ignored. */
  cancelTimer(id: TimerId): void {
    this.queue.cancel(id);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.queue.size;
  }

  /** Callbacks run since construction. */
  get eventsProcessed(): number {
    return this.processed;
  }

  /** Time of the next pending timer, or Infinity. */
  get nextEventNs(): number {
    return this.queue.peekTime();
  }

  /**
   * Fire timers in order until none is left, the next one lies after `untilNs`, or `stop()` is
   * called from a callback. When the run ends because of `untilNs` (not a stop), the clock is
   * advanced to `untilNs` so back-to-back `run(t1)`, `run(t2)` see continuous time.
   * Returns the number of callbacks run by this call.
   */
  run(untilNs: number = Number.POSITIVE_INFINITY): number {
    if (this.running) throw new Error('VirtualScheduler.run() called from inside a timer callback');
    if (Number.isNaN(untilNs)) throw new RangeError('run(untilNs): untilNs is NaN');
    this.running = true;
    this.stopRequested = false;
    const queue = this.queue;
    const before = this.processed;
    try {
      while (!this.stopRequested) {
        const fn = queue.popUntil(untilNs);
        if (fn === undefined) break;
        this.nowNs = queue.poppedTimeNs;
        this.processed++;
        fn();
      }
      if (!this.stopRequested && untilNs !== Number.POSITIVE_INFINITY && untilNs > this.nowNs) {
        this.nowNs = Math.floor(untilNs);
      }
    } finally {
      this.running = false;
    }
    return this.processed - before;
  }

  /** Fire the next pending timer, if any. Returns false when nothing was pending. */
  step(): boolean {
    if (this.running) throw new Error('VirtualScheduler.step() called from inside a timer callback');
    const fn = this.queue.pop();
    if (fn === undefined) return false;
    this.nowNs = this.queue.poppedTimeNs;
    this.processed++;
    this.running = true;
    try {
      fn();
    } finally {
      this.running = false;
    }
    return true;
  }

  /** Make the current `run()` return after the callback that is running now. */
  stop(): void {
    this.stopRequested = true;
  }
}
