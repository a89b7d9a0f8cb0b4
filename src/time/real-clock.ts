/**
 * The clock of the real runtimes (design §3): the host's monotonic clock, slowed down by the
 * time-dilation factor (timeScale, TDF) and corrected by clock sync, plus a TimerService that
 * turns emulated deadlines into real wake-ups.
 *
 *   emulated = floor((real − epoch) / timeScale · (1 + drift)) + offset
 *
 * `offset` is the sum of an injected skew (tests: "this node's clock is 5 µs ahead") and the
 * correction clock sync sets with `setOffsetNs`. `drift` (ppm) is an injected rate error.
 * This file is runtime code, not firmware, so it may read performance.now() and use setTimeout.
 */
import type { TimerId, TimerService } from '../env/env.js';
import { TimerQueue } from './timer-queue.js';

/** Parameters of the real → emulated mapping. */
export interface ClockMapping {
  /** Real monotonic time (ns) that maps to emulated time `offsetNs`. */
  epochRealNs: number;
  /** Emulated time runs this many times slower than real time (TDF); 1 = real speed. */
  timeScale: number;
  /** Added to the dilated time, in emulated ns. */
  offsetNs: number;
  /** Rate error of the local clock in parts per million (positive runs fast). */
  driftPpm: number;
}

/** Emulated ns (integer, floor) shown at real monotonic time `realNs`. */
export function realToEmulatedNs(realNs: number, m: ClockMapping): number {
  return Math.floor(((realNs - m.epochRealNs) / m.timeScale) * (1 + m.driftPpm * 1e-6)) + m.offsetNs;
}

/** Real monotonic ns at which the clock shows `emulatedNs` (inverse of realToEmulatedNs, unrounded). */
export function emulatedToRealNs(emulatedNs: number, m: ClockMapping): number {
  return m.epochRealNs + ((emulatedNs - m.offsetNs) * m.timeScale) / (1 + m.driftPpm * 1e-6);
}

/** Real duration (ns) of an emulated duration under dilation `timeScale`. */
export function emulatedDurationToRealNs(emulatedNs: number, timeScale: number): number {
  return emulatedNs * timeScale;
}

/** Emulated duration (ns) of a real duration under dilation `timeScale`. */
export function realDurationToEmulatedNs(realNs: number, timeScale: number): number {
  return realNs / timeScale;
}

/** Real monotonic nanoseconds since process start, as a double (no BigInt on hot paths). */
export function monotonicRealNs(): number {
  return performance.now() * 1e6;
}

export interface RealClockOptions {
  /** Time-dilation factor (> 0). */
  timeScale: number;
  /** Real ns at which emulated time is 0 (before offsets); default: now. */
  epochRealNs?: number;
  /** Real monotonic time source in ns; injectable for tests. */
  source?: () => number;
  /** Injected error of this node's clock, for clock-sync tests. */
  skew?: { offsetNs?: number; driftPpm?: number };
}

export class RealClock {
  readonly timeScale: number;
  readonly source: () => number;
  private readonly mapping: ClockMapping;
  private readonly skewOffsetNs: number;
  private correctionNs = 0;
  private lastNowNs = Number.NEGATIVE_INFINITY;
  private readonly listeners = new Set<() => void>();

  constructor(opts: RealClockOptions) {
    if (!(opts.timeScale > 0 && Number.isFinite(opts.timeScale)))
      throw new RangeError(`timeScale must be a positive number, got ${opts.timeScale}`);
    this.timeScale = opts.timeScale;
    this.source = opts.source ?? monotonicRealNs;
    this.skewOffsetNs = Math.round(opts.skew?.offsetNs ?? 0);
    this.mapping = {
      epochRealNs: opts.epochRealNs ?? this.source(),
      timeScale: opts.timeScale,
      offsetNs: this.skewOffsetNs,
      driftPpm: opts.skew?.driftPpm ?? 0,
    };
  }

  /**
   * Corrected emulated time, integer ns. Never goes backwards: after a negative correction the
   * clock holds still until real time catches up, because firmware assumes monotonic time.
   */
  now(): number {
    const t = realToEmulatedNs(this.source(), this.mapping);
    if (t > this.lastNowNs) this.lastNowNs = t;
    return this.lastNowNs;
  }

  /** Emulated time without the clock-sync correction (injected skew included), integer ns. */
  rawNowNs(): number {
    return realToEmulatedNs(this.source(), this.mapping) - this.correctionNs;
  }

  /** Real monotonic ns now. */
  realNowNs(): number {
    return this.source();
  }

  /** Current clock-sync correction, emulated ns. */
  get offsetNs(): number {
    return this.correctionNs;
  }

  /** Set the clock-sync correction (emulated ns, rounded to an integer); listeners re-plan timers. */
  setOffsetNs(offsetNs: number): void {
    if (!Number.isFinite(offsetNs)) throw new RangeError(`clock offset must be finite, got ${offsetNs}`);
    this.correctionNs = Math.round(offsetNs);
    this.mapping.offsetNs = this.skewOffsetNs + this.correctionNs;
    for (const l of this.listeners) l();
  }

  /** Real monotonic ns at which now() reaches `emulatedNs` (ignoring the monotonic hold). */
  toRealNs(emulatedNs: number): number {
    return emulatedToRealNs(emulatedNs, this.mapping);
  }

  /** Emulated ns shown at real monotonic time `realNs`. */
  toEmulatedNs(realNs: number): number {
    return realToEmulatedNs(realNs, this.mapping);
  }

  /** Call `listener` whenever the mapping changes; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Host timer primitives; injectable so tests can drive them. */
export interface HostTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setImmediate(fn: () => void): unknown;
  clearImmediate(handle: unknown): void;
}

const nodeTimers: HostTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setImmediate: (fn) => setImmediate(fn),
  clearImmediate: (h) => clearImmediate(h as NodeJS.Immediate),
};

export interface RealTimerOptions {
  /**
   * Wake this many real ms early with setTimeout and poll the rest with setImmediate, because
   * setTimeout alone fires ~1 ms late. 0 = setTimeout only (cheaper, coarser). Default 1.
   */
  spinMs?: number;
  /** Most callbacks run in one wake-up before yielding to I/O. Default 10 000. */
  batchLimit?: number;
  /** Do not keep the process alive for pending timers. */
  unref?: boolean;
  /** Called with whatever a callback throws; default: rethrow (crashes like any uncaught error). */
  onError?: (err: unknown) => void;
  hostTimers?: HostTimers;
}

/** Lateness of fired timers in emulated ns (how far behind real time the node runs). */
export interface TimerLag {
  fired: number;
  lastLateNs: number;
  maxLateNs: number;
  meanLateNs: number;
}

/**
 * TimerService on a RealClock. All pending timers share one heap and at most one armed host
 * timer (setTimeout or setImmediate) for the earliest deadline, so thousands of pending firmware
 * timers cost one OS timer.
 */
export class RealTimerService implements TimerService {
  private readonly queue = new TimerQueue();
  private readonly host: HostTimers;
  private readonly spinMs: number;
  private readonly batchLimit: number;
  private readonly unref: boolean;
  private readonly onError: ((err: unknown) => void) | undefined;
  private armedHandle: unknown = null;
  private armedKind: 'timeout' | 'immediate' | null = null;
  /** Emulated deadline the armed host timer was set for. */
  private armedForNs = Number.POSITIVE_INFINITY;
  private closed = false;
  private dispatching = false;
  private lateSumNs = 0;
  private readonly lagStats: TimerLag = { fired: 0, lastLateNs: 0, maxLateNs: 0, meanLateNs: 0 };
  private readonly unsubscribe: () => void;

  constructor(
    readonly clock: RealClock,
    opts: RealTimerOptions = {},
  ) {
    this.host = opts.hostTimers ?? nodeTimers;
    this.spinMs = opts.spinMs ?? 1;
    this.batchLimit = opts.batchLimit ?? 10_000;
    this.unref = opts.unref ?? false;
    this.onError = opts.onError;
    // A clock-sync correction moves every real deadline: re-plan the wake-up.
    this.unsubscribe = clock.onChange(() => this.rearm());
  }

  now(): number {
    return this.clock.now();
  }

  setTimer(atNs: number, fn: () => void): TimerId {
    if (this.closed) throw new Error('RealTimerService is closed');
    if (Number.isNaN(atNs)) throw new RangeError('timer time must be a number of ns, got NaN');
    if (atNs > Number.MAX_SAFE_INTEGER) throw new RangeError(`timer time ${atNs} ns is beyond 2^53 ns`);
    const now = this.clock.now();
    const t = atNs > now ? Math.ceil(atNs) : now;
    const id = this.queue.push(t, fn);
    if (!this.dispatching && t < this.armedForNs) this.rearm();
    return id;
  }

  cancelTimer(id: TimerId): void {
    this.queue.cancel(id);
    // The armed wake-up may now be useless; it finds nothing due and re-arms, which is cheaper
    // than re-planning on every cancel. Disarm only when nothing is left.
    if (this.queue.size === 0) this.disarm();
  }

  get pending(): number {
    return this.queue.size;
  }

  /** Lateness of fired timers so far. */
  lag(): TimerLag {
    return { ...this.lagStats };
  }

  /** Cancel everything and release the host timer. */
  close(): void {
    this.closed = true;
    this.queue.clear();
    this.disarm();
    this.unsubscribe();
  }

  private disarm(): void {
    if (this.armedHandle !== null) {
      if (this.armedKind === 'timeout') this.host.clearTimeout(this.armedHandle);
      else this.host.clearImmediate(this.armedHandle);
    }
    this.armedHandle = null;
    this.armedKind = null;
    this.armedForNs = Number.POSITIVE_INFINITY;
  }

  private rearm(): void {
    if (this.closed) return;
    this.disarm();
    const next = this.queue.peekTime();
    if (next === Number.POSITIVE_INFINITY) return;
    // During a monotonic hold now() is ahead of the mapping, so ask the clock first.
    const delayMs = next <= this.clock.now() ? 0 : (this.clock.toRealNs(next) - this.clock.realNowNs()) / 1e6;
    this.armedForNs = next;
    if (delayMs <= this.spinMs || delayMs <= 0) {
      this.armedKind = 'immediate';
      this.armedHandle = this.host.setImmediate(this.wake);
    } else {
      this.armedKind = 'timeout';
      const h = this.host.setTimeout(this.wake, Math.max(1, Math.floor(delayMs - this.spinMs)));
      if (this.unref && typeof (h as NodeJS.Timeout)?.unref === 'function') (h as NodeJS.Timeout).unref();
      this.armedHandle = h;
    }
  }

  private readonly wake = (): void => {
    this.armedHandle = null;
    this.armedKind = null;
    this.armedForNs = Number.POSITIVE_INFINITY;
    if (this.closed) return;
    this.dispatching = true;
    let ran = 0;
    try {
      let now = this.clock.now();
      while (ran < this.batchLimit) {
        const t = this.queue.peekTime();
        if (t > now) {
          // Callbacks take real time; look again before deciding nothing more is due.
          now = this.clock.now();
          if (t > now) break;
        }
        const fn = this.queue.pop()!;
        ran++;
        this.recordLate(now - t);
        if (this.onError === undefined) {
          fn();
        } else {
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
  };

  private recordLate(lateNs: number): void {
    const s = this.lagStats;
    s.fired++;
    s.lastLateNs = lateNs;
    if (lateNs > s.maxLateNs) s.maxLateNs = lateNs;
    this.lateSumNs += lateNs;
    s.meanLateNs = this.lateSumNs / s.fired;
  }
}
