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
 */
import type { TimerId, TimerService } from '../../env/env.js';
import { TimerQueue, timerFireNs } from '../../time/timer-queue.js';
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

  constructor(readonly delayNs: number) {}

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

export class EngineScheduler implements TimerService {
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

  setTimer(atNs: number, fn: () => void): TimerId {
    return this.queue.push(timerFireNs(atNs, this.nowNs), fn);
  }

  cancelTimer(id: TimerId): void {
    this.queue.cancel(id);
  }

  /** The FIFO of links with this (integer, ≥ 0) delay. */
  delayClass(delayNs: number): DelayClass {
    let c = this.classes.find((x) => x.delayNs === delayNs);
    if (c === undefined) {
      c = new DelayClass(delayNs);
      this.classes.push(c);
    }
    return c;
  }

  /** Pending timers and arrivals. */
  get pending(): number {
    let n = this.queue.size;
    for (const c of this.classes) n += c.count;
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
    const requestedUntilNs = untilNs;
    const queue = this.queue;
    const classes = this.classes;
    const before = this.processed;
    try {
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
        // A timer due no later than the first arrival runs first (ties: timers before arrivals).
        // earliestNs lets a run of arrivals skip the timer queue until a timer may be due.
        untilNs = this.capped(requestedUntilNs);
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
      if (!this.stopRequested && untilNs !== Number.POSITIVE_INFINITY && untilNs > this.nowNs) {
        this.nowNs = Math.floor(untilNs);
      }
    } finally {
      this.running = false;
    }
    return this.processed - before;
  }
}
