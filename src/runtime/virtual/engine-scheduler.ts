/**
 * The deterministic discrete-event scheduler of virtual time, the one the engine and the unit
 * tests' benches run on: one clock in integer emulated nanoseconds, the project's timer queue
 * (src/time/timer-queue.ts, a (time, seq) heap) plus one FIFO per distinct link delay. Timers:
 * integer ns, past times clamp to now, fractional times round up, FIFO among equal times.
 *
 * Why FIFOs beside the heap: half of all events are frame arrivals, and on a link of constant
 * delay d a frame sent at t arrives at t + d. Frames enter the network in time order, so all
 * arrivals over links of the same delay come out in the order they were sent: a FIFO per delay
 * class is already sorted. Keeping them out of the heap saves a heap push and pop per
 * packet-hop.
 *
 * Equal-time order (docs/realtime.md "Equal-time order"), a rule every node can apply on its
 * own, so a lockstep real-time run (src/runtime/real/lockstep.ts) handles exactly the same events
 * in exactly the same order: at one instant a node runs its due timers first (in the order they
 * were set, re-checked after every arrival), then the frames arriving at it, by the delay class
 * of their link (classes in order of creation), then by the sending node's place in the topology
 * and its port. Nodes never affect each other within one instant (links have a delay), so the
 * order among different nodes' events does not matter.
 *
 * Windowed mode (`windowed`, runWindowed; docs/development.md "The virtual engine's windows")
 * takes that further on large networks: nodes cannot affect each other within the least link
 * delay either, so switches run one after another, each through a whole window of its own
 * events, while hosts and the sampler keep the time-ordered loop. Same events, same order per
 * node, same results.
 */
import type { TimerId, TimerService } from '../../env/env.js';
import { SMALL_ID_SLOT_LIMIT, TimerQueue, timerFireNs } from '../../time/timer-queue.js';
import type { Packet } from '../../wire/packet.js';

/** Something that has frames in flight on links of one delay class. */
export interface ArrivalSink {
  /** Deliver `pkt`, the oldest frame this sink pushed into the class. */
  arrive(pkt: Packet | null): void;
}

/**
 * The arrivals of one delay class, in order: a ring of (sink, time, frame). The frame rides
 * here rather than in a second FIFO per link, so an arrival is one ring shift.
 */
export class DelayClass {
  private sinks: (ArrivalSink | null)[] = new Array(64).fill(null);
  private pkts: (Packet | null)[] = new Array(64).fill(null);
  private times = new Float64Array(64);
  /** Sender order of each entry (equalTimeKey): arrivals due at one instant leave in this order. */
  private keys = new Float64Array(64);
  private head = 0;
  count = 0;

  constructor(
    readonly delayNs: number,
    /** Its place among the scheduler's classes (creation order): equal-time arrivals go by it first. */
    readonly index = 0,
  ) {}

  /** Time of the oldest pending arrival (valid when count > 0). */
  get headTimeNs(): number {
    return this.times[this.head];
  }

  /**
   * Queue an arrival at `atNs` (never before the latest one queued). `key` orders arrivals due at
   * the same instant (equalTimeKey of the sending port), whatever order they were sent in.
   */
  push(sink: ArrivalSink, atNs: number, pkt: Packet | null = null, key = 0): void {
    if (this.count === this.sinks.length) this.grow();
    const mask = this.sinks.length - 1;
    let at = (this.head + this.count) & mask;
    // Insertion sort within the run of equal times at the tail (usually zero steps).
    for (let k = this.count; k > 0; k--) {
      const prev = (at - 1) & mask;
      if (this.times[prev] !== atNs || this.keys[prev] <= key) break;
      this.sinks[at] = this.sinks[prev];
      this.pkts[at] = this.pkts[prev];
      this.times[at] = this.times[prev];
      this.keys[at] = this.keys[prev];
      at = prev;
    }
    this.sinks[at] = sink;
    this.pkts[at] = pkt;
    this.times[at] = atNs;
    this.keys[at] = key;
    this.count++;
  }

  /** Remove the oldest arrival and deliver it to its sink (count > 0). */
  arriveHead(): void {
    const i = this.head;
    const s = this.sinks[i]!;
    const pkt = this.pkts[i];
    this.sinks[i] = null;
    this.pkts[i] = null;
    this.head = (i + 1) & (this.sinks.length - 1);
    this.count--;
    s.arrive(pkt);
  }

  private grow(): void {
    const n = this.sinks.length;
    const sinks: (ArrivalSink | null)[] = new Array(n * 2).fill(null);
    const pkts: (Packet | null)[] = new Array(n * 2).fill(null);
    const times = new Float64Array(n * 2);
    const keys = new Float64Array(n * 2);
    for (let k = 0; k < this.count; k++) {
      const j = (this.head + k) & (n - 1);
      sinks[k] = this.sinks[j];
      pkts[k] = this.pkts[j];
      times[k] = this.times[j];
      keys[k] = this.keys[j];
    }
    this.sinks = sinks;
    this.pkts = pkts;
    this.times = times;
    this.keys = keys;
    this.head = 0;
  }
}

/**
 * A link in windowed mode (runWindowed): its frames wait in its own ring, in the order sent,
 * which is their order of arrival.
 */
export interface WindowLink {
  /** Frames waiting in the ring. */
  readonly ringCount: number;
  /** Arrival time of the ring's oldest frame (ringCount > 0). */
  readonly ringHeadNs: number;
  /** Arrival time of the ring's k-th oldest frame (k < ringCount). */
  ringNs(k: number): number;
  /** Equal-time order among a node's arrivals: (delay class, sender key) as one number. */
  readonly rank: number;
  /** Deliver the ring's oldest frame now (a switch's arrival). */
  arriveFromRing(): void;
  /** Put the ring's oldest frame into its delay class, due at `atNs` (a host's arrival). */
  ringToClass(atNs: number): void;
  /** Read the fields a switch reads first of every frame due by `lastNs` (runSwitch). */
  touchFrames(lastNs: number): number;
}

/** A switch's own events in windowed mode: its timers and the links into it. */
export class SwitchEvents {
  readonly timers: TimerQueue;
  readonly inLinks: WindowLink[] = [];
  /** pushCount of `timers` when the pending global timer was set (setTimer). */
  mark = 0;

  /** `smallIdSlots`: this switch's share of the slots a queue retires for small ids (TimerQueue). */
  constructor(smallIdSlots = SMALL_ID_SLOT_LIMIT) {
    this.timers = new TimerQueue(smallIdSlots);
  }
}

export class EngineScheduler implements TimerService {
  /**
   * Windowed mode (runWindowed): switches' events run switch by switch within windows of the
   * least link delay; hosts' events and global timers in time order, as ever. Set before any
   * node exists (VirtualRun), never changed after.
   */
  windowed = false;
  readonly switches: SwitchEvents[] = [];
  readonly hostInLinks: WindowLink[] = [];
  /** The least link delay: no frame sent in a window arrives within it. */
  lookaheadNs = Number.POSITIVE_INFINITY;
  /** What runSwitch read ahead of time (kept only so that the reads stay). */
  touchedSum = 0;
  /** Fire time of the pending global timer (windowed mode: at most one, the sampler). */
  private globalAtNs = Number.POSITIVE_INFINITY;
  private globalId: TimerId | null = null;
  private readonly queue = new TimerQueue();
  private readonly classes: DelayClass[] = [];
  private nowNs = 0;
  private processed = 0;
  private running = false;
  private stopRequested = false;
  /** No event after this instant runs in the current run() (finishInstant). */
  private stopAfterNs = Number.POSITIVE_INFINITY;
  /**
   * Called from the loop every 65 536 events (a mask test per event, no clock read), for
   * progress reporting; it must not schedule or run events.
   */
  onTick: (() => void) | null = null;

  now(): number {
    return this.nowNs;
  }

  /**
   * A global timer (the run's sampler): in windowed mode it runs after exactly the switches'
   * timers of its instant that were set before it, as in time order (at most one pending).
   */
  setTimer(atNs: number, fn: () => void): TimerId {
    if (!this.windowed) return this.queue.push(timerFireNs(atNs, this.nowNs), fn);
    if (this.globalId !== null)
      throw new Error('EngineScheduler: one global timer at a time in windowed mode');
    const at = timerFireNs(atNs, this.nowNs);
    for (const sw of this.switches) sw.mark = sw.timers.pushCount;
    this.globalAtNs = at;
    const id = this.queue.push(at, () => {
      this.globalId = null;
      this.globalAtNs = Number.POSITIVE_INFINITY;
      fn();
    });
    this.globalId = id;
    return id;
  }

  /** A host's timer (same queue as global timers, in time order). */
  setHostTimer(atNs: number, fn: () => void): TimerId {
    return this.queue.push(timerFireNs(atNs, this.nowNs), fn);
  }

  cancelTimer(id: TimerId): void {
    if (id === this.globalId) {
      this.globalId = null;
      this.globalAtNs = Number.POSITIVE_INFINITY;
    }
    this.queue.cancel(id);
  }

  /** The FIFO of links with this (integer, ≥ 0) delay. */
  delayClass(delayNs: number): DelayClass {
    let c = this.classes.find((x) => x.delayNs === delayNs);
    if (c === undefined) {
      c = new DelayClass(delayNs, this.classes.length);
      this.classes.push(c);
    }
    return c;
  }

  /** Pending timers and arrivals. */
  get pending(): number {
    let n = this.queue.size;
    for (const c of this.classes) n += c.count;
    for (const sw of this.switches) {
      n += sw.timers.size;
      for (const l of sw.inLinks) n += l.ringCount;
    }
    for (const l of this.hostInLinks) n += l.ringCount;
    return n;
  }

  /** Callbacks and arrivals run since construction. */
  get eventsProcessed(): number {
    return this.processed;
  }

  /** Make the current `run()` return after the event that is running now. */
  stop(): void {
    this.stopRequested = true;
  }

  /**
   * End the current run() once every event due at the current instant has run (the end of a
   * run: all nodes are then in their state at that instant, as lockstep nodes stop).
   */
  finishInstant(): void {
    this.stopAfterNs = this.nowNs;
  }

  /** The earliest `untilNs` a run may use (finishInstant's cap, reset by every run()). */
  private capped(untilNs: number): number {
    return untilNs < this.stopAfterNs ? untilNs : this.stopAfterNs;
  }

  /**
   * Run events in order until none is left, the next one lies after `untilNs`, or `stop()` is
   * called. When the run ends because of `untilNs`, the clock advances to `untilNs`.
   */
  run(untilNs: number = Number.POSITIVE_INFINITY): number {
    if (this.running) throw new Error('EngineScheduler.run() called from inside an event');
    if (Number.isNaN(untilNs)) throw new RangeError('run(untilNs): untilNs is NaN');
    this.running = true;
    this.stopRequested = false;
    this.stopAfterNs = Number.POSITIVE_INFINITY;
    const before = this.processed;
    try {
      if (this.windowed) this.runWindowed(untilNs);
      else this.runInOrder(Number.NEGATIVE_INFINITY, untilNs);
      // A run that ends because of untilNs leaves the clock there.
      const cappedNs = this.capped(untilNs);
      if (!this.stopRequested && cappedNs !== Number.POSITIVE_INFINITY && cappedNs > this.nowNs) {
        this.nowNs = Math.floor(cappedNs);
      }
    } finally {
      this.running = false;
    }
    return this.processed - before;
  }

  /**
   * Windowed mode. Why: on a large network every event touches a cold node (its ports, queues,
   * route table), while within a stretch of time shorter than the least link delay L nodes cannot
   * affect each other: a frame sent at t arrives at t + delay ≥ t + L. So the time from T to
   * T + L is run switch by switch, each switch's events in its own order, while its state is warm
   * (the 320-host fat tree: 705 → 456 ns per event, docs/performance.md "Windows"). Each switch sees exactly
   * the events, in exactly the order, of the time-ordered loop (`run` without windows): its timers
   * and the frames reaching it, with the equal-time rule (timers first, then arrivals by delay
   * class and sender).
   *
   * Hosts stay in time order, all together, as before, first in each window: what ends a run (the
   * last flow's completion, finishInstant) happens at a host, and applications of different hosts
   * may reach each other directly. When the run ends at instant E, the hosts stop after E and the
   * switches then run only up to E, so every node ends in its state after E. The sampler (the one
   * global timer) reads every node: windows end at its instant, and there the switches first run
   * their timers of that instant set before it (their `mark`), as time order would have.
   *
   * Host-bound frames wait in their links' rings until the window they arrive in, then move into
   * their delay classes in (time, class, sender) order, which the time-ordered loop reads.
   */
  private runWindowed(requestedUntilNs: number): void {
    const switches = this.switches;
    const L = this.lookaheadNs;
    for (;;) {
      if (this.stopRequested) break;
      const untilNs = this.capped(requestedUntilNs);
      // The window starts at the earliest pending event.
      const startNs = this.earliestPendingNs();
      if (startNs > untilNs || startNs === Number.POSITIVE_INFINITY) break;
      let lastNs = startNs + L - 1;
      if (untilNs < lastNs) lastNs = untilNs;
      const g = this.globalAtNs;
      if (g > startNs && g - 1 < lastNs) lastNs = g - 1;
      if (g === startNs) {
        // The sampler's instant: each switch's timers set before it, first.
        for (let i = 0; i < switches.length; i++) {
          const sw = switches[i];
          for (
            let fn = sw.timers.popAtBefore(g, sw.mark);
            fn !== undefined;
            fn = sw.timers.popAtBefore(g, sw.mark)
          ) {
            this.nowNs = g;
            this.processed++;
            fn();
          }
        }
      }
      this.gatherHostArrivals(startNs, lastNs);
      this.runInOrder(startNs, lastNs);
      if (this.stopRequested) break;
      // The sampler may have set its next instant within this window: the window ends before it.
      if (this.globalAtNs > startNs && this.globalAtNs - 1 < lastNs) lastNs = this.globalAtNs - 1;
      // A run that ended in this window ends for the switches at the same instant.
      const ended = this.stopAfterNs !== Number.POSITIVE_INFINITY;
      if (ended && this.stopAfterNs < lastNs) lastNs = this.stopAfterNs;
      // The clock ends the window at its latest event, as the time-ordered loop would leave it.
      let latestNs = this.nowNs;
      for (let i = 0; i < switches.length && !this.stopRequested; i++) {
        this.runSwitch(switches[i], lastNs);
        if (this.nowNs > latestNs) latestNs = this.nowNs;
      }
      this.nowNs = latestNs;
      if (ended || lastNs >= untilNs) break;
    }
  }

  /** Time of the earliest pending event of any node (windowed mode), Infinity if none. */
  private earliestPendingNs(): number {
    let t = this.queue.peekTime();
    const classes = this.classes;
    for (let i = 0; i < classes.length; i++) {
      const c = classes[i];
      if (c.count > 0 && c.headTimeNs < t) t = c.headTimeNs;
    }
    const hostLinks = this.hostInLinks;
    for (let i = 0; i < hostLinks.length; i++) {
      const l = hostLinks[i];
      if (l.ringCount > 0 && l.ringHeadNs < t) t = l.ringHeadNs;
    }
    const switches = this.switches;
    for (let i = 0; i < switches.length; i++) {
      const sw = switches[i];
      const tt = sw.timers.peekTime();
      if (tt < t) t = tt;
      const links = sw.inLinks;
      for (let k = 0; k < links.length; k++) {
        const l = links[k];
        if (l.ringCount > 0 && l.ringHeadNs < t) t = l.ringHeadNs;
      }
    }
    return t;
  }

  /**
   * A window's host arrivals: link and time of each, and their order once sorted. Reused from
   * window to window, never shortened: arrays rebuilt per window lived long enough to be promoted
   * and raised the 320-host fat tree's peak memory.
   */
  private gathered: WindowLink[] = [];
  private gatheredNs = new Float64Array(1024);
  private gatheredOrder = new Int32Array(1024);
  private gatheredCount = 0;
  /** Counts per ns of a window (sortGathered). */
  private counts = new Int32Array(0);

  /**
   * Hand every host-bound frame due by `lastNs` to its delay class, in (time, class, sender)
   * order: the order in which `run`'s loop would have had them, since links then pushed in time
   * order. A link's own frames arrive at distinct times, in the order sent.
   */
  private gatherHostArrivals(startNs: number, lastNs: number): void {
    const links = this.hostInLinks;
    let n = 0;
    let touched = 0;
    for (let i = 0; i < links.length; i++) {
      const l = links[i];
      const before = n;
      for (let k = 0, count = l.ringCount; k < count; k++) {
        const t = l.ringNs(k);
        if (t > lastNs) break;
        if (n === this.gatheredNs.length) this.growGathered();
        this.gathered[n] = l;
        this.gatheredNs[n++] = t;
      }
      // Read the frames ahead, as a switch does (runSwitch).
      if (n > before) touched = (touched + l.touchFrames(lastNs)) | 0;
    }
    this.touchedSum = touched;
    this.gatheredCount = n;
    if (n === 0) return;
    const order = this.sortGathered(startNs, lastNs);
    const got = this.gathered;
    const times = this.gatheredNs;
    for (let k = 0; k < n; k++) {
      const i = order[k];
      got[i].ringToClass(times[i]);
    }
  }

  private growGathered(): void {
    const n = this.gatheredNs.length * 2;
    const times = new Float64Array(n);
    times.set(this.gatheredNs);
    this.gatheredNs = times;
    this.gatheredOrder = new Int32Array(n);
  }

  /**
   * The gathered arrivals' indices in (time, rank) order. Gathered link by link, in the order
   * hosts' in-links were made, which is their senders' order (rank within a delay class), so a
   * stable sort by time leaves equal times in sender order but for delay classes: a counting sort
   * over the window's ns when the window is short (the usual case), then equal times by rank.
   */
  private sortGathered(startNs: number, lastNs: number): Int32Array {
    const got = this.gathered;
    const times = this.gatheredNs;
    const n = this.gatheredCount;
    const order = this.gatheredOrder;
    const span = lastNs - startNs + 1;
    if (!(span <= 4 * n + 4096) || !Number.isInteger(startNs) || !Number.isInteger(lastNs)) {
      for (let i = 0; i < n; i++) order[i] = i;
      order.subarray(0, n).sort((a, b) => times[a] - times[b] || got[a].rank - got[b].rank || a - b);
      return order;
    }
    if (this.counts.length < span + 1)
      this.counts = new Int32Array(Math.max(span + 1, 2 * this.counts.length));
    const counts = this.counts;
    counts.fill(0, 0, span + 1);
    for (let i = 0; i < n; i++) counts[times[i] - startNs + 1]++;
    for (let b = 1; b <= span; b++) counts[b] += counts[b - 1];
    for (let i = 0; i < n; i++) order[counts[times[i] - startNs]++] = i;
    // Equal times by rank (insertion sort, stable: runs are short, and already in order within
    // one delay class).
    for (let k = 1; k < n; k++) {
      const i = order[k];
      const t = times[i];
      const r = got[i].rank;
      let j = k - 1;
      while (j >= 0 && times[order[j]] === t && got[order[j]].rank > r) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
    }
    return order;
  }

  /**
   * Timers and delay-class arrivals due by `lastNs`, in time order: every event of `run`, and in
   * windowed mode the hosts' events and global timers of a window that began at `startNs` (a
   * global timer set within it, the sampler's next instant, ends it before that instant).
   */
  private runInOrder(startNs: number, lastNs: number): void {
    const queue = this.queue;
    const classes = this.classes;
    while (!this.stopRequested) {
      if ((this.processed & 0xffff) === 0 && this.onTick !== null) this.onTick();
      let classT = Number.POSITIVE_INFINITY;
      let next: DelayClass | null = null;
      for (let i = 0; i < classes.length; i++) {
        const c = classes[i];
        if (c.count > 0 && c.headTimeNs < classT) {
          classT = c.headTimeNs;
          next = c;
        }
      }
      let untilNs = this.capped(lastNs);
      const g = this.globalAtNs;
      if (g > startNs && g - 1 < untilNs) untilNs = g - 1;
      // A timer due no later than the first arrival runs first (ties: timers before arrivals).
      // earliestNs lets a run of arrivals skip the timer queue until a timer may be due.
      const limit = Math.min(classT, untilNs);
      const fn = queue.earliestNs <= limit ? queue.popUntil(limit) : undefined;
      if (fn !== undefined) {
        this.nowNs = queue.poppedTimeNs;
        this.processed++;
        fn();
      } else if (next !== null && classT <= untilNs) {
        this.nowNs = classT;
        this.processed++;
        next.arriveHead();
      } else break;
    }
  }

  /** One switch's events due by `lastNs`, in its own order: timers first at an instant, then arrivals. */
  private runSwitch(sw: SwitchEvents, lastNs: number): void {
    const tq = sw.timers;
    const links = sw.inLinks;
    // Why read every frame of the window first: each is cold (sent a window ago), and reads of
    // independent frames in one loop wait for memory together, where the switch's pipeline would
    // wait for each in turn.
    let touched = 0;
    for (let k = 0; k < links.length; k++) touched = (touched + links[k].touchFrames(lastNs)) | 0;
    this.touchedSum = touched;
    for (;;) {
      let at = Number.POSITIVE_INFINITY;
      let best: WindowLink | null = null;
      for (let k = 0; k < links.length; k++) {
        const l = links[k];
        if (l.ringCount > 0) {
          const h = l.ringHeadNs;
          if (h < at || (h === at && l.rank < best!.rank)) {
            at = h;
            best = l;
          }
        }
      }
      const limit = at < lastNs ? at : lastNs;
      const fn = tq.earliestNs <= limit ? tq.popUntil(limit) : undefined;
      if (fn !== undefined) {
        this.nowNs = tq.poppedTimeNs;
        this.processed++;
        if ((this.processed & 0xffff) === 0 && this.onTick !== null) this.onTick();
        fn();
      } else if (best !== null && at <= lastNs) {
        this.nowNs = at;
        this.processed++;
        if ((this.processed & 0xffff) === 0 && this.onTick !== null) this.onTick();
        best.arriveFromRing();
      } else return;
      if (this.stopRequested) return;
    }
  }
}
