/**
 * The clock of the real runtimes (docs/realtime.md): the host's monotonic clock, slowed down by
 * the time-dilation factor (timeScale, TDF) and corrected by clock sync. The node's timers on
 * this clock are src/runtime/real/event-timers.ts (free-running) and lockstep.ts.
 *
 *   emulated = floor((real − epoch) / timeScale · (1 + drift)) + offset
 *
 * `offset` is the sum of an injected skew (tests: "this node's clock is 5 µs ahead") and the
 * correction clock sync sets with `setOffsetNs`. `drift` (ppm) is an injected rate error.
 * This file is runtime code, not firmware, so it may read performance.now().
 */

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
