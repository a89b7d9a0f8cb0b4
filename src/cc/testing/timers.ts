/**
 * A hand-driven timer wheel for the RP/NP harness: timers fire in (time, arming order), the
 * order the virtual engine's scheduler gives equal-time events, so a hook's behaviour under the
 * harness matches the one it has inside a NIC.
 */
export interface HandTimer {
  at: number;
  seq: number;
  fire: () => void;
}

export class HandTimers<K> {
  private readonly armed = new Map<K, HandTimer>();
  private seq = 0;
  nowNs = 0;

  set(key: K, atNs: number, fire: () => void): void {
    this.armed.set(key, { at: atNs, seq: this.seq++, fire });
  }

  cancel(key: K): void {
    this.armed.delete(key);
  }

  has(key: K): boolean {
    return this.armed.has(key);
  }

  /** When timer `key` fires, or undefined when it is not armed. */
  atNs(key: K): number | undefined {
    return this.armed.get(key)?.at;
  }

  get size(): number {
    return this.armed.size;
  }

  private next(): [K, HandTimer] | null {
    let best: [K, HandTimer] | null = null;
    for (const e of this.armed)
      if (best === null || e[1].at < best[1].at || (e[1].at === best[1].at && e[1].seq < best[1].seq))
        best = e;
    return best;
  }

  /** Fire every timer due up to `t` in order (the clock at each one's time), then move to `t`. */
  advance(t: number): void {
    for (let n = this.next(); n !== null && n[1].at <= t; n = this.next()) {
      this.armed.delete(n[0]);
      this.nowNs = n[1].at;
      n[1].fire();
    }
    this.nowNs = t;
  }

  /**
   * Fire the earliest timer; returns its key (the clock is then at its time). `before` runs at
   * that instant just before the timer (inputs that arrive in the same nanosecond, earlier).
   */
  fireNext(before?: () => void): K {
    const n = this.next();
    if (n === null) throw new Error('no timer armed');
    this.armed.delete(n[0]);
    this.nowNs = n[1].at;
    before?.();
    n[1].fire();
    return n[0];
  }
}
