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
 *   re-arms a far-future timer on every ACK cannot grow the heap without bound;
 * - timers at whole-ns times less than WHEEL_SIZE ns ahead of the last popped time skip the heap
 *   and go to a timing wheel: one FIFO bucket per ns, plus a two-level bitmap of non-empty
 *   buckets. Nearly every event of a packet simulation is such a timer (the end of a frame's
 *   serialisation is < 100 ns away at 100 Gbit/s), and the heap also holds hundreds of far-off
 *   timers (RTOs, CC timers), so a push/pop that is O(1) instead of O(log n) is most of the
 *   scheduler's cost. Order is unchanged: a bucket holds one time, its entries arrive in seq
 *   order (seq only grows), and `pop` takes the smaller (time, seq) of the wheel and heap heads.
 */

/** Slots per generation: at most this many timers can be pending at once (16.7 M). */
const SLOT_SPACE = 2 ** 24;
/** Largest generation that keeps ids below 2^53; a slot that reaches it is retired, never reused. */
const MAX_GENERATION = Math.floor(Number.MAX_SAFE_INTEGER / SLOT_SPACE) - 1;
/**
 * Ids stay below 2^31 (a V8 small integer on 64-bit builds, so returning one allocates nothing)
 * while slots are retired after this many generations instead of MAX_GENERATION; a retired slot
 * is replaced by a fresh one. Worth it on the hot path: a busy slot is reused millions of times
 * and an id above 2^31 is a heap number allocated by every `push`.
 */
const SMALL_ID_GENERATIONS = 2 ** 31 / SLOT_SPACE - 1;
/**
 * ...until this many slots exist (about 4 MB of slot tables); then slots live to MAX_GENERATION.
 * Per queue by default; a process with many busy queues shares it (TimerQueue's constructor).
 */
export const SMALL_ID_SLOT_LIMIT = 2 ** 17;
const INITIAL_CAPACITY = 64;
/** Compaction threshold: rebuild only when it saves real work. */
const MIN_TOMBSTONES_FOR_COMPACTION = 1024;
/** Wheel span in ns (a power of two, 32 · 32 at most: the bitmap has two levels of 32 bits). */
const WHEEL_SIZE = 1024;
const WHEEL_MASK = WHEEL_SIZE - 1;
const NIL = -1;

/** Index of the lowest set bit of a non-zero 32-bit value. */
function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/**
 * The instant a timer asked for `atNs` fires at when the clock reads `nowNs`: times in the past
 * fire now (after everything already queued for now), fractional times round up so a timer never
 * fires before it was asked to. Throws for NaN and for times past 2^53 ns.
 */
export function timerFireNs(atNs: number, nowNs: number): number {
  if (atNs > nowNs) {
    if (atNs > Number.MAX_SAFE_INTEGER) throw badTimerTime(atNs, true);
    return Math.ceil(atNs);
  }
  if (atNs <= nowNs) return nowNs;
  throw badTimerTime(atNs, false);
}

/**
 * The error of a timer time that is NaN or past 2^53 ns. Out of line on purpose: with a template
 * string in each of timerFireNs' two throws, TurboFan computed their shared `${atNs}` (a
 * NumberToString) before the first branch, on every timer set: 6 % of the virtual engine's
 * instructions per event on the leaf-spine (callgrind, docs/performance.md).
 */
function badTimerTime(atNs: number, beyond: boolean): RangeError {
  return new RangeError(
    beyond ? `timer time ${atNs} ns is beyond 2^53 ns` : `timer time must be a number of ns, got ${atNs}`,
  );
}

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

  // Timing wheel. Bucket b holds the timers due at the one time ≡ b (mod WHEEL_SIZE) in
  // [wheelBaseNs, wheelBaseNs + WHEEL_SIZE), as a FIFO linked through their slots (slotNext).
  private readonly bucketHead = new Int32Array(WHEEL_SIZE).fill(NIL);
  private readonly bucketTail = new Int32Array(WHEEL_SIZE).fill(NIL);
  /** Bit b of word w: bucket 32w + b is non-empty. */
  private readonly bucketBits = new Int32Array(WHEEL_SIZE >>> 5);
  /** Bit w: bucketBits[w] is non-zero. */
  private wordBits = 0;
  /** Lower bound of every wheel entry's time: the time last popped (never decreases). */
  private wheelBaseNs = 0;
  /** Live wheel timers; entries of cancelled ones stay linked until they reach a bucket head. */
  private wheelLive = 0;
  private wheelEntries = 0;
  private slotNext = new Int32Array(INITIAL_CAPACITY);
  /** 1 while the slot is linked into a wheel bucket (it is not reused until unlinked). */
  private slotInWheel = new Uint8Array(INITIAL_CAPACITY);

  private nextSeq = 0;
  private liveCount = 0;

  /** Time of the entry most recently returned by `pop`. */
  poppedTimeNs = 0;
  /**
   * A lower bound of the earliest pending time: exact after `popUntil` found nothing due, only
   * lowered by pushes, so a caller may skip `popUntil(limit)` while `limit < earliestNs`.
   */
  earliestNs = Number.POSITIVE_INFINITY;

  /**
   * `smallIdSlots`: slots this queue may create while it retires them for small ids (default
   * SMALL_ID_SLOT_LIMIT). Why a parameter: a busy slot reaches its last small generation every
   * 127 reuses and is then replaced, so slots accumulate at one per 127 timers until the limit;
   * the virtual engine's windows give every switch a queue of its own, and at the full limit each
   * of the 320-host fat tree's 56 switches grew slot tables of megabytes. They share one limit.
   */
  constructor(private readonly smallIdSlots = SMALL_ID_SLOT_LIMIT) {}

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
    if (timeNs < this.earliestNs) this.earliestNs = timeNs;
    const ahead = timeNs - this.wheelBaseNs;
    if (ahead >= 0 && ahead < WHEEL_SIZE && Math.floor(timeNs) === timeNs) {
      this.wheelPush(timeNs & WHEEL_MASK, slot);
    } else {
      if (this.heapSize === this.heapTime.length) this.growHeap();
      this.siftUp(this.heapSize++, timeNs, seq, slot);
    }
    return this.slotGen[slot] * SLOT_SPACE + slot;
  }

  /** Cancel a pending timer; unknown, fired or already cancelled ids are ignored. */
  cancel(id: number): boolean {
    if (!(id >= SLOT_SPACE) || !Number.isSafeInteger(id)) return false;
    const slot = id % SLOT_SPACE;
    const gen = (id - slot) / SLOT_SPACE;
    if (slot >= this.slotCount || this.slotGen[slot] !== gen || this.slotSeq[slot] < 0) return false;
    this.liveCount--;
    if (this.slotInWheel[slot] === 1) {
      // Still linked into its bucket: mark it dead, free it when it reaches the bucket head.
      this.slotFn[slot] = undefined;
      this.slotSeq[slot] = -1;
      this.wheelLive--;
      return true;
    }
    this.releaseSlot(slot);
    const heapLive = this.liveCount - this.wheelLive;
    const tombstones = this.heapSize - heapLive;
    if (tombstones > MIN_TOMBSTONES_FOR_COMPACTION && tombstones > heapLive) this.compact();
    return true;
  }

  /** Timers pushed so far: the seq the next push gets (pushes are numbered in order from 0). */
  get pushCount(): number {
    return this.nextSeq;
  }

  /**
   * `pop()` if the earliest live timer is due at `timeNs` exactly and was pushed before push number
   * `seqLimit` (pushCount then), else undefined: the virtual engine's windows run a switch's timers
   * of one instant that were set before a global timer of that instant, and only those, before it.
   */
  popAtBefore(timeNs: number, seqLimit: number): (() => void) | undefined {
    if (this.peekTime() !== timeNs) return undefined;
    const b = this.wheelLive > 0 ? this.wheelFirst() : NIL;
    const wheelFirst =
      b !== NIL &&
      (this.heapSize === 0 ||
        this.bucketTime(b) < this.heapTime[0] ||
        (this.bucketTime(b) === this.heapTime[0] && this.slotSeq[this.bucketHead[b]] < this.heapSeq[0]));
    const seq = wheelFirst ? this.slotSeq[this.bucketHead[b]] : this.heapSeq[0];
    return seq < seqLimit ? this.popUntil(timeNs) : undefined;
  }

  /** Time of the earliest live timer, or Infinity when none is pending. */
  peekTime(): number {
    this.dropDeadTop();
    const b = this.wheelFirst();
    const ht = this.heapSize === 0 ? Number.POSITIVE_INFINITY : this.heapTime[0];
    if (b === NIL) return ht;
    const wt = this.bucketTime(b);
    return Math.min(wt, ht);
  }

  /**
   * Remove the earliest live timer and return its callback (its time is left in `poppedTimeNs`),
   * or undefined when the queue is empty.
   */
  pop(): (() => void) | undefined {
    return this.popUntil(Number.POSITIVE_INFINITY);
  }

  /**
   * `pop()` if the earliest live timer is due at or before `limitNs`, else undefined. One call
   * per event on the scheduler's hot path instead of peekTime() + pop().
   */
  popUntil(limitNs: number): (() => void) | undefined {
    this.dropDeadTop();
    const b = this.wheelLive > 0 ? this.wheelFirst() : NIL;
    if (b !== NIL) {
      const wt = this.bucketTime(b);
      const slot = this.bucketHead[b];
      // The heap may hold a timer of the same or an earlier time (pushed while the wheel's
      // window was further back): the smaller (time, seq) goes first.
      if (
        this.heapSize === 0 ||
        wt < this.heapTime[0] ||
        (wt === this.heapTime[0] && this.slotSeq[slot] < this.heapSeq[0])
      ) {
        this.earliestNs = wt;
        if (wt > limitNs) return undefined;
        this.poppedTimeNs = wt;
        this.wheelBaseNs = wt;
        const fn = this.slotFn[slot];
        this.wheelShift(b);
        this.releaseSlot(slot);
        this.wheelLive--;
        this.liveCount--;
        return fn;
      }
    }
    if (this.heapSize === 0) {
      this.earliestNs = Number.POSITIVE_INFINITY;
      return undefined;
    }
    const t = this.heapTime[0];
    this.earliestNs = t;
    if (t > limitNs) return undefined;
    const slot = this.heapSlot[0];
    this.poppedTimeNs = t;
    // Every wheel entry is due at or after t, so the window may move up to it.
    if (t > this.wheelBaseNs) this.wheelBaseNs = Math.floor(t);
    const fn = this.slotFn[slot];
    this.releaseSlot(slot);
    this.liveCount--;
    this.removeTop();
    return fn;
  }

  /** Drop every pending timer (ids issued so far stay invalid). */
  clear(): void {
    // Slots of cancelled wheel entries were held back from the free list; hand them back first.
    for (let b = 0; b < WHEEL_SIZE; b++) {
      for (let s = this.bucketHead[b]; s !== NIL; s = this.slotNext[s]) {
        if (this.slotSeq[s] < 0) this.releaseSlot(s);
      }
    }
    for (let s = 0; s < this.slotCount; s++) {
      this.slotInWheel[s] = 0;
      if (this.slotSeq[s] >= 0) this.releaseSlot(s);
    }
    this.bucketHead.fill(NIL);
    this.bucketTail.fill(NIL);
    this.bucketBits.fill(0);
    this.wordBits = 0;
    this.wheelLive = 0;
    this.wheelEntries = 0;
    this.heapSize = 0;
    this.liveCount = 0;
    this.earliestNs = Number.POSITIVE_INFINITY;
  }

  // ---------------------------------------------------------------- timing wheel

  private bucketTime(b: number): number {
    return this.wheelBaseNs + ((b - this.wheelBaseNs) & WHEEL_MASK);
  }

  private wheelPush(b: number, slot: number): void {
    this.slotNext[slot] = NIL;
    this.slotInWheel[slot] = 1;
    const tail = this.bucketTail[b];
    if (tail === NIL) {
      this.bucketHead[b] = slot;
      this.bucketBits[b >>> 5] |= 1 << (b & 31);
      this.wordBits |= 1 << (b >>> 5);
    } else {
      this.slotNext[tail] = slot;
    }
    this.bucketTail[b] = slot;
    this.wheelLive++;
    this.wheelEntries++;
  }

  /** Unlink the head entry of bucket b (non-empty). */
  private wheelShift(b: number): void {
    const slot = this.bucketHead[b];
    const next = this.slotNext[slot];
    this.slotInWheel[slot] = 0;
    this.wheelEntries--;
    this.bucketHead[b] = next;
    if (next === NIL) {
      this.bucketTail[b] = NIL;
      const w = b >>> 5;
      const bits = this.bucketBits[w] & ~(1 << (b & 31));
      this.bucketBits[w] = bits;
      if (bits === 0) this.wordBits &= ~(1 << w);
    }
  }

  /** Bucket of the earliest live wheel timer (dropping dead heads on the way), or NIL. */
  private wheelFirst(): number {
    while (this.wheelEntries > 0) {
      const b = this.firstBucket();
      const slot = this.bucketHead[b];
      if (this.slotSeq[slot] >= 0) return b;
      this.wheelShift(b);
      this.releaseSlot(slot);
    }
    return NIL;
  }

  /** First non-empty bucket in time order from the window base (the wheel is non-empty). */
  private firstBucket(): number {
    const start = this.wheelBaseNs & WHEEL_MASK;
    const w0 = start >>> 5;
    const here = this.bucketBits[w0] & (-1 << (start & 31));
    if (here !== 0) return (w0 << 5) | lowestBit(here);
    // Words after w0, else wrap around to the lowest non-empty word (possibly w0's low bits).
    let words = this.wordBits & ~((2 << w0) - 1);
    if (words === 0) words = this.wordBits;
    const w = lowestBit(words);
    return (w << 5) | lowestBit(this.bucketBits[w]);
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
    const lastGen = this.slotCount < this.smallIdSlots ? SMALL_ID_GENERATIONS : MAX_GENERATION;
    if (this.slotGen[slot] < lastGen) this.freeSlots[this.freeCount++] = slot;
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
    // Doubling, but not past the small-id allowance while below it (it is where most queues stop).
    const len = this.slotSeq.length;
    const cap = Math.min(
      len < this.smallIdSlots ? Math.min(len * 2, this.smallIdSlots) : len * 2,
      SLOT_SPACE,
    );
    const seq = new Float64Array(cap);
    seq.set(this.slotSeq);
    const gen = new Float64Array(cap);
    gen.set(this.slotGen);
    const free = new Int32Array(cap);
    free.set(this.freeSlots);
    const next = new Int32Array(cap);
    next.set(this.slotNext);
    const inWheel = new Uint8Array(cap);
    inWheel.set(this.slotInWheel);
    this.slotSeq = seq;
    this.slotGen = gen;
    this.freeSlots = free;
    this.slotNext = next;
    this.slotInWheel = inWheel;
  }
}
