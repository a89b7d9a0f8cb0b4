/**
 * Timers of a real node with event-time semantics.
 *
 * Host timers fire late (setTimeout has 1 ms granularity, and a busy event loop adds more). If
 * firmware read the wall clock in a late callback, every late timer would push its successors
 * later too: a switch port that starts the next frame "now" instead of when the previous one
 * ended loses line rate in proportion to the lateness. So while a timer callback runs, now() is
 * the emulated time the timer was due, and due timers run in (time, insertion) order, exactly as
 * the virtual scheduler runs them; the real clock only decides *when* a batch of due timers runs.
 * A received datagram is an event too (`runAt`): when the sender stamped the emulated instant its
 * last bit arrives (Geneve option ArrivalTs), the timers due by then run first and the firmware
 * then sees that instant, like a NIC's hardware receive timestamp, instead of the moment a busy
 * event loop got to the datagram; unstamped datagrams see the real clock. Either way the time
 * firmware sees never goes backwards: an event that comes after a later one is clamped to it.
 *
 * The cost: frames leave in bursts of up to one host-timer period (≈1 ms real, i.e. 1 µs emulated
 * at timeScale 1000, 100 ns at 10 000). docs/realtime.md explains how to pick timeScale for that.
 *
 * Time windows (`windowNs`) make those bursts the same on every node: events run only at the
 * edges of a window no longer than the shortest link delay, so whatever one node sends in a batch
 * is due at its peers after their next edge. A frame is then late only when sending it, carrying
 * it and waking the peer took more than a window of real time, not whenever one node's host timer
 * fired later in its millisecond than another's. This is the fixed-window form of conservative
 * synchronization (Nicol, "The cost of conservative synchronization in parallel discrete event
 * simulations", JACM 1993), with synchronized clocks as the barrier instead of messages.
 */
import type { TimerId, TimerService } from '../../env/env.js';
import type { RealClock } from '../../time/real-clock.js';
import { TimerQueue } from '../../time/timer-queue.js';
import { PreciseWake } from './precise-wake.js';

export interface EventTimerOptions {
  /**
   * Poll with setImmediate when the next deadline is closer than this (real ms) instead of
   * sleeping with setTimeout: sharper timing for more CPU. Default 0 (setTimeout only).
   */
  spinMs?: number;
  /**
   * Time window (emulated ns; 0 = off, the default): events run in batches at the window edges
   * k·windowNs of the emulated clock, each batch running every event due by its edge, woken
   * through PreciseWake. With windowNs at most the shortest link delay, a frame sent in one
   * batch is due after the next edge, so it has a whole window of real time to arrive before
   * any peer runs past its stamp (docs/realtime.md "Time windows").
   */
  windowNs?: number;
  /** Most callbacks in one batch before yielding to I/O. Default 20 000. */
  batchLimit?: number;
  /**
   * Most real time (ms) one woken batch runs before it yields to I/O (checked every 64
   * callbacks). Default 1. A node far behind its clock (a host NIC at line rate) otherwise ran
   * 20 000 callbacks, 60 ms real, in one turn: datagrams waited that long to be read, and what
   * the batch allocated outlived young collections and filled the old generation.
   */
  batchBudgetMs?: number;
  onError?: (err: unknown) => void;
}

/** The handle of a wake armed through PreciseWake. */
const PRECISE = Symbol('precise wake');

export class EventTimers implements TimerService {
  private readonly queue = new TimerQueue();
  private readonly spinMs: number;
  readonly windowNs: number;
  private readonly batchLimit: number;
  private readonly batchBudgetNs: number;
  private readonly onError: ((err: unknown) => void) | undefined;
  private handle: NodeJS.Timeout | NodeJS.Immediate | typeof PRECISE | null = null;
  private handleIsImmediate = false;
  private armedForNs = Number.POSITIVE_INFINITY;
  private dispatching = false;
  /** Due time of the callback being run. */
  private eventNs = 0;
  private lastNs = Number.NEGATIVE_INFINITY;
  /** Between holdHorizon and releaseHorizon: runAt's horizon, read once (NaN: not read yet). */
  private holding = false;
  private heldHorizonNs = Number.NaN;
  private closed = false;
  private readonly unsubscribe: () => void;
  fired = 0;
  private lateSumNs = 0;
  maxLateNs = 0;

  constructor(
    readonly clock: RealClock,
    opts: EventTimerOptions = {},
  ) {
    this.spinMs = opts.spinMs ?? 0;
    this.windowNs = opts.windowNs ?? 0;
    this.batchLimit = opts.batchLimit ?? 20_000;
    this.batchBudgetNs = (opts.batchBudgetMs ?? 1) * 1e6;
    this.onError = opts.onError;
    // A clock-sync correction moves every deadline in real time: the armed wake is wrong now.
    this.unsubscribe = clock.onChange(() => this.rearm(true));
  }

  /**
   * Inside an event: its time. Outside (metrics scrapes, reports, launcher messages): the real
   * clock, never less than the last event's time. Only events move the time events see, so an
   * observer reading the clock between events does not push the next late timer or held frame
   * forward to the real clock.
   */
  now(): number {
    if (this.dispatching) return this.eventNs;
    const t = this.clock.now();
    return t > this.lastNs ? t : this.lastNs;
  }

  /** The latest emulated instant events may run up to now: the clock, or its last window edge. */
  horizonNs(): number {
    return this.horizonAt(this.clock.now());
  }

  /** The horizon when the emulated clock reads `nowNs`. */
  private horizonAt(nowNs: number): number {
    const w = this.windowNs;
    return w > 0 ? Math.floor(nowNs / w) * w : nowNs;
  }

  /** Emulated time of the last event handled (−∞ before the first). */
  get lastEventNs(): number {
    return this.lastNs;
  }

  setTimer(atNs: number, fn: () => void): TimerId {
    if (this.closed) return 0;
    if (Number.isNaN(atNs)) throw new RangeError('timer time must be a number of ns, got NaN');
    // In time windows a timer set between batches (a held frame) may be before the clock: it is
    // still due at its own time, in the next batch, not at the real clock.
    const now = this.windowNs > 0 && !this.dispatching ? this.lastNs : this.now();
    const t = atNs > now ? Math.ceil(atNs) : now;
    const id = this.queue.push(t, fn);
    if (!this.dispatching && t < this.armedForNs) this.rearm();
    return id;
  }

  cancelTimer(id: TimerId): void {
    this.queue.cancel(id);
  }

  get pending(): number {
    return this.queue.size;
  }

  lag(): { fired: number; meanLateNs: number; maxLateNs: number } {
    return {
      fired: this.fired,
      meanLateNs: this.fired > 0 ? this.lateSumNs / this.fired : 0,
      maxLateNs: this.maxLateNs,
    };
  }

  /** Run every timer due by the real clock now (by its last window edge, in time windows). */
  runDue(): void {
    if (this.dispatching || this.closed) return;
    if (this.queue.peekTime() > this.horizonNs()) return;
    this.dispatch(Number.POSITIVE_INFINITY);
  }

  /**
   * Run `fn` as an event at emulated time `atNs` (a received datagram's arrival stamp): first every
   * timer due by then, then `fn` with now() = atNs. A stamp in the future (clock-sync error) is
   * pulled back to the real clock; one before the last event is clamped to it.
   */
  runAt(atNs: number, fn: () => void): void {
    if (this.closed) return;
    if (this.dispatching) {
      fn();
      return;
    }
    let horizon: number;
    if (!this.holding) horizon = this.horizonNs();
    else {
      if (Number.isNaN(this.heldHorizonNs)) this.heldHorizonNs = this.horizonNs();
      horizon = this.heldHorizonNs;
    }
    const t = Math.min(atNs, horizon);
    if (this.queue.peekTime() <= t) this.dispatch(t);
    this.dispatching = true;
    this.eventNs = Math.max(t, this.lastNs);
    this.lastNs = this.eventNs;
    try {
      fn();
    } finally {
      this.dispatching = false;
      this.rearm();
    }
  }

  /**
   * The frames of one received datagram follow, up to releaseHorizon: their runAt calls share one
   * read of the clock. They arrived at one real instant, so none is placed later than that for
   * the time the ones before it took to handle; and a read costs a heap number or two (V8's
   * performance.now returns a new one), per frame of a train before.
   */
  holdHorizon(): void {
    this.holding = true;
    this.heldHorizonNs = Number.NaN;
  }

  /** runAt reads the clock again. */
  releaseHorizon(): void {
    this.holding = false;
  }

  close(): void {
    this.closed = true;
    this.queue.clear();
    this.disarm();
    this.unsubscribe();
  }

  private disarm(): void {
    if (this.handle !== null) {
      if (this.handle === PRECISE) PreciseWake.get().cancel(this.wakePrecise);
      else if (this.handleIsImmediate) clearImmediate(this.handle as NodeJS.Immediate);
      else clearTimeout(this.handle as NodeJS.Timeout);
    }
    this.handle = null;
    this.armedForNs = Number.POSITIVE_INFINITY;
  }

  /**
   * Arms the host wake for the earliest timer. A wake already armed for it, or for an earlier
   * instant (it finds nothing due and arms again), is kept unless `force`: runAt and every batch
   * end here, and a fresh Timeout or Immediate per received frame was a third of a switch node's
   * garbage (the young collections that pause it).
   */
  private rearm(force = false): void {
    if (this.closed) return;
    const next = this.queue.peekTime();
    if (!force && this.handle !== null && this.armedForNs <= next && next !== Number.POSITIVE_INFINITY)
      return;
    this.disarm();
    if (next === Number.POSITIVE_INFINITY) return;
    this.armedForNs = next;
    const w = this.windowNs;
    const at = w > 0 ? Math.ceil(next / w) * w : next;
    const delayMs = at <= this.clock.now() ? 0 : (this.clock.toRealNs(at) - this.clock.realNowNs()) / 1e6;
    if (delayMs <= 0 || delayMs <= this.spinMs) {
      this.handleIsImmediate = true;
      this.handle = setImmediate(this.wake);
    } else if (w > 0) {
      this.handleIsImmediate = false;
      this.handle = PRECISE;
      PreciseWake.get().at(this.wakePrecise, Number(process.hrtime.bigint()) + delayMs * 1e6);
    } else {
      this.handleIsImmediate = false;
      // setTimeout rounds down to whole ms and then fires at the next loop turn after that.
      this.handle = setTimeout(this.wake, Math.max(1, Math.floor(delayMs - this.spinMs)));
    }
  }

  private readonly wakePrecise = (): void => {
    this.handle = null;
    this.wake();
  };

  private readonly wake = (): void => {
    if (this.closed) return;
    if (this.windowNs > 0 && !this.handleIsImmediate) {
      // Read what the sockets hold (the poll phase comes before setImmediate's) before the batch.
      this.handleIsImmediate = true;
      this.handle = setImmediate(this.wake);
      return;
    }
    this.handle = null;
    this.armedForNs = Number.POSITIVE_INFINITY;
    this.dispatch(Number.POSITIVE_INFINITY);
  };

  /**
   * Run due timers in order, none due after `limitNs`. A woken batch (no limit) also stops after
   * its real-time budget; one that runs the timers before a received frame (runAt) does not, since
   * they must all run before the frame.
   */
  private dispatch(limitNs: number): void {
    this.dispatching = true;
    let ran = 0;
    const endRealNs =
      limitNs === Number.POSITIVE_INFINITY
        ? this.clock.realNowNs() + this.batchBudgetNs
        : Number.POSITIVE_INFINITY;
    try {
      let realNow = this.clock.now();
      let horizon = this.horizonAt(realNow);
      while (ran < this.batchLimit) {
        if ((ran & 63) === 63 && this.clock.realNowNs() > endRealNs) break;
        let t = this.queue.peekTime();
        if (t > limitNs) break;
        if (t > horizon) {
          realNow = this.clock.now();
          horizon = this.horizonAt(realNow);
          if (t > horizon) break;
        }
        const fn = this.queue.pop()!;
        t = this.queue.poppedTimeNs;
        ran++;
        this.fired++;
        const late = realNow - t;
        this.lateSumNs += late;
        if (late > this.maxLateNs) this.maxLateNs = late;
        // Time never goes backwards, even after a negative clock-sync correction.
        this.eventNs = Math.max(t, this.lastNs);
        this.lastNs = this.eventNs;
        if (this.onError === undefined) fn();
        else {
          try {
            fn();
          } catch (err) {
            this.onError(err);
          }
        }
      }
    } finally {
      this.dispatching = false;
      this.rearm();
    }
  }
}
