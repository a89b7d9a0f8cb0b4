/**
 * A priority queue of timers ordered by (time, insertion seq), shared by the virtual scheduler
 * and the real-time timer service.
 *
 * Layout, chosen for the simulator's hot path (millions of events per second):
 * - a 4-ary min-heap over parallel typed arrays (time, seq, slot), so sifting moves numbers and
 *   never allocates; 4-ary halves the depth of a binary heap and keeps siblings in one cache line;
 * - callbacks live in a slot table, not in the heap; a timer id names its slot plus the slot's
 *   generation, so `cancel` is O(1): it frees the slot and leaves a tombstone in the heap, which
 *   is recognised (slot no longer holds that seq) and skipped when it reaches the top;
 * - when tombstones outnumber live entries the heap is rebuilt without them, so a firmware that
 *   re-arms a far-future timer on every ACK cannot grow the heap without bound.
 */

/** Slots per generation: at most this many timers can be pending at once (16.7 M). */
const SLOT_SPACE = 2 ** 24;
/** Largest generation that keeps ids below 2^53; a slot that reaches it is retired, never reused. */
const MAX_GENERATION = Math.floor(Number.MAX_SAFE_INTEGER / SLOT_SPACE) - 1;
const INITIAL_CAPACITY = 64;
/** Compaction threshold: rebuild only when it saves real work. */
const MIN_TOMBSTONES_FOR_COMPACTION = 1024;

export class TimerQueue {
  // Heap arrays; entries [0, heapSize) may include tombstones.
  private heapTime = new Float64Array(INITIAL_CAPACITY);
  private heapSeq = new Float64Array(INITIAL_CAPACITY);
  private heapSlot = new Int32Array(INITIAL_CAPACITY);
  private heapSize = 0;

  // Slot table.
  private slotFn: Array<(() => void) | undefined> = [];
  /** Seq of the live timer in the slot, or -1 when the slot is free. */
  private slotSeq = new Float64Array(INITIAL_CAPACITY);
  /** Generation of the slot's current (or last) occupant. */
  private slotGen = new Float64Array(INITIAL_CAPACITY);
  private slotCount = 0;
  private freeSlots = new Int32Array(INITIAL_CAPACITY);
  private freeCount = 0;

  private nextSeq = 0;
  private liveCount = 0;

  /** Time of the entry most recently returned by `pop`. */
  poppedTimeNs = 0;

  /** Number of live (not cancelled, not fired) timers. */
  get size(): number {
    return this.liveCount;
  }

  /**
   * Add a timer. `timeNs` must be a finite number (the caller clamps and rounds); returns an id
   * >= 2^24 that is never reused.
   */
  push(timeNs: number, fn: () => void): number {
    const slot = this.allocSlot();
    const seq = this.nextSeq++;
    this.slotFn[slot] = fn;
    this.slotSeq[slot] = seq;
    this.liveCount++;
    if (this.heapSize === this.heapTime.length) this.growHeap();
    this.siftUp(this.heapSize++, timeNs, seq, slot);
    return this.slotGen[slot] * SLOT_SPACE + slot;
  }

  /** Cancel a pending timer; unknown, fired or already cancelled ids are ignored. */
  cancel(id: number): boolean {
    if (!(id >= SLOT_SPACE) || !Number.isSafeInteger(id)) return false;
    const slot = id % SLOT_SPACE;
    const gen = (id - slot) / SLOT_SPACE;
    if (slot >= this.slotCount || this.slotGen[slot] !== gen || this.slotSeq[slot] < 0) return false;
    this.releaseSlot(slot);
    this.liveCount--;
    const tombstones = this.heapSize - this.liveCount;
    if (tombstones > MIN_TOMBSTONES_FOR_COMPACTION && tombstones > this.liveCount) this.compact();
    return true;
  }

  /** Time of the earliest live timer, or Infinity when none is pending. */
  peekTime(): number {
    this.dropDeadTop();
    return this.heapSize === 0 ? Number.POSITIVE_INFINITY : this.heapTime[0];
  }

  /**
   * Remove the earliest live timer and return its callback (its time is left in `poppedTimeNs`),
   * or undefined when the queue is empty.
   */
  pop(): (() => void) | undefined {
    this.dropDeadTop();
    if (this.heapSize === 0) return undefined;
    const slot = this.heapSlot[0];
    this.poppedTimeNs = this.heapTime[0];
    const fn = this.slotFn[slot];
    this.releaseSlot(slot);
    this.liveCount--;
    this.removeTop();
    return fn;
  }

  /**
   * `pop()` if the earliest live timer is due at or before `limitNs`, else undefined. One call
   * per event on the scheduler's hot path instead of peekTime() + pop().
   */
  popUntil(limitNs: number): (() => void) | undefined {
    this.dropDeadTop();
    if (this.heapSize === 0) return undefined;
    const t = this.heapTime[0];
    if (t > limitNs) return undefined;
    const slot = this.heapSlot[0];
    this.poppedTimeNs = t;
    const fn = this.slotFn[slot];
    this.releaseSlot(slot);
    this.liveCount--;
    this.removeTop();
    return fn;
  }

  /** Drop every pending timer (ids issued so far stay invalid). */
  clear(): void {
    for (let s = 0; s < this.slotCount; s++) if (this.slotSeq[s] >= 0) this.releaseSlot(s);
    this.heapSize = 0;
    this.liveCount = 0;
  }

  private dropDeadTop(): void {
    while (this.heapSize > 0 && this.slotSeq[this.heapSlot[0]] !== this.heapSeq[0]) this.removeTop();
  }

  private removeTop(): void {
    const last = --this.heapSize;
    if (last > 0) this.siftDown(0, this.heapTime[last], this.heapSeq[last], this.heapSlot[last]);
  }

  private siftUp(pos: number, t: number, seq: number, slot: number): void {
    const T = this.heapTime;
    const S = this.heapSeq;
    const L = this.heapSlot;
    while (pos > 0) {
      const parent = (pos - 1) >> 2;
      const pt = T[parent];
      if (t > pt || (t === pt && seq > S[parent])) break;
      T[pos] = pt;
      S[pos] = S[parent];
      L[pos] = L[parent];
      pos = parent;
    }
    T[pos] = t;
    S[pos] = seq;
    L[pos] = slot;
  }

  private siftDown(pos: number, t: number, seq: number, slot: number): void {
    const T = this.heapTime;
    const S = this.heapSeq;
    const L = this.heapSlot;
    const n = this.heapSize;
    for (;;) {
      const first = 4 * pos + 1;
      if (first >= n) break;
      let best = first;
      let bt = T[first];
      let bs = S[first];
      const end = Math.min(first + 4, n);
      for (let c = first + 1; c < end; c++) {
        const ct = T[c];
        if (ct < bt || (ct === bt && S[c] < bs)) {
          best = c;
          bt = ct;
          bs = S[c];
        }
      }
      if (t < bt || (t === bt && seq < bs)) break;
      T[pos] = bt;
      S[pos] = bs;
      L[pos] = L[best];
      pos = best;
    }
    T[pos] = t;
    S[pos] = seq;
    L[pos] = slot;
  }

  private allocSlot(): number {
    let slot: number;
    if (this.freeCount > 0) {
      slot = this.freeSlots[--this.freeCount];
    } else {
      if (this.slotCount >= SLOT_SPACE) throw new RangeError(`more than ${SLOT_SPACE} pending timers`);
      if (this.slotCount === this.slotSeq.length) this.growSlots();
      slot = this.slotCount++;
      this.slotGen[slot] = 0;
      this.slotFn.push(undefined);
    }
    this.slotGen[slot]++;
    return slot;
  }

  private releaseSlot(slot: number): void {
    this.slotFn[slot] = undefined;
    this.slotSeq[slot] = -1;
    // A slot whose generation is exhausted is retired, so an id can never name two timers.
    if (this.slotGen[slot] < MAX_GENERATION) this.freeSlots[this.freeCount++] = slot;
  }

  private compact(): void {
    const T = this.heapTime;
    const S = this.heapSeq;
    const L = this.heapSlot;
    let n = 0;
    for (let i = 0; i < this.heapSize; i++) {
      if (this.slotSeq[L[i]] === S[i]) {
        T[n] = T[i];
        S[n] = S[i];
        L[n] = L[i];
        n++;
      }
    }
    this.heapSize = n;
    // Bottom-up heapify, O(n).
    for (let i = (n - 2) >> 2; i >= 0; i--) this.siftDown(i, T[i], S[i], L[i]);
  }

  private growHeap(): void {
    const cap = this.heapTime.length * 2;
    const t = new Float64Array(cap);
    t.set(this.heapTime);
    const s = new Float64Array(cap);
    s.set(this.heapSeq);
    const l = new Int32Array(cap);
    l.set(this.heapSlot);
    this.heapTime = t;
    this.heapSeq = s;
    this.heapSlot = l;
  }

  private growSlots(): void {
    const cap = Math.min(this.slotSeq.length * 2, SLOT_SPACE);
    const seq = new Float64Array(cap);
    seq.set(this.slotSeq);
    const gen = new Float64Array(cap);
    gen.set(this.slotGen);
    const free = new Int32Array(cap);
    free.set(this.freeSlots);
    this.slotSeq = seq;
    this.slotGen = gen;
    this.freeSlots = free;
  }
}
