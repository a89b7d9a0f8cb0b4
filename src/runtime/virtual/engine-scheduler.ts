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
 * delay either, so nodes run one after another, each through a whole window of its own events.
 * Same events, same order per node, same results.
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
  /** Equal-time order among a node's arrivals: (delay class, sender key) as one number. */
  readonly rank: number;
  /** Deliver the ring's oldest frame now. */
  arriveFromRing(): void;
  /** Read the fields a node reads first of every frame due by `lastNs` (runNode). */
  touchFrames(lastNs: number): number;
}

/** A node's own events in windowed mode: its timers and the links into it. */
export class NodeEvents {
  readonly timers: TimerQueue;
  readonly inLinks: WindowLink[] = [];
  /** pushCount of `timers` when the pending global timer was set (setTimer). */
  mark = 0;

  /** `smallIdSlots`: this node's share of the slots a queue retires for small ids (TimerQueue). */
  constructor(smallIdSlots = SMALL_ID_SLOT_LIMIT) {
    this.timers = new TimerQueue(smallIdSlots);
  }

  /** Time of this node's earliest pending event, Infinity if none. */
  nextEventNs(): number {
    let t = this.timers.peekTime();
    const links = this.inLinks;
    for (let k = 0; k < links.length; k++) {
      const l = links[k];
      if (l.ringCount > 0 && l.ringHeadNs < t) t = l.ringHeadNs;
    }
    return t;
  }
}

export class EngineScheduler implements TimerService {
  /**
   * Windowed mode (runWindowed): nodes' events run node by node within windows of the least link
   * delay; global timers (the sampler) between windows. Set before any node exists (VirtualRun),
   * never changed after.
   */
  windowed = false;
  readonly hosts: NodeEvents[] = [];
  readonly switches: NodeEvents[] = [];
  /** The least link delay: no frame sent in a window arrives within it. */
  lookaheadNs = Number.POSITIVE_INFINITY;
  /**
   * Windowed mode: true when the run cannot end within the coming least link delay (VirtualRun:
   * some flow cannot complete that soon). Hosts then run host by host too; otherwise instant by
   * instant, so that the run can end at any instant. Read at each window's start, when every
   * node is at the same instant. null: never.
   */
  endIsFar: (() => boolean) | null = null;
  /** What runNode read ahead of time (kept only so that the reads stay). */
  touchedSum = 0;
  /** Windows whose hosts ran host by host, and instant by instant (tests, benches). */
  windowsHostByHost = 0;
  windowsHostsStepped = 0;
  /** Hosts are running host by host (the run must not end: finishInstant). */
  private hostsByNode = false;
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
   * A global timer (the run's sampler): in windowed mode it runs after exactly the nodes' timers
   * of its instant that were set before it, as in time order (at most one pending).
   */
  setTimer(atNs: number, fn: () => void): TimerId {
    if (!this.windowed) return this.queue.push(timerFireNs(atNs, this.nowNs), fn);
    if (this.globalId !== null)
      throw new Error('EngineScheduler: one global timer at a time in windowed mode');
    const at = timerFireNs(atNs, this.nowNs);
    for (const nodes of [this.hosts, this.switches]) for (const n of nodes) n.mark = n.timers.pushCount;
    this.globalAtNs = at;
    const id = this.queue.push(at, () => {
      this.globalId = null;
      this.globalAtNs = Number.POSITIVE_INFINITY;
      fn();
    });
    this.globalId = id;
    return id;
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
    for (const nodes of [this.hosts, this.switches])
      for (const node of nodes) {
        n += node.timers.size;
        for (const l of node.inLinks) n += l.ringCount;
      }
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
    // Other hosts may already have run past this instant: the run's results would be wrong.
    if (this.hostsByNode)
      throw new Error(
        `EngineScheduler: the run ended at ${this.nowNs} ns inside a window whose hosts ran one by one (endIsFar was wrong); ROCELAB_ENGINE=ordered runs it in time order`,
      );
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
      else this.runInOrder(untilNs);
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
   * T + L is run node by node, each node's events in its own order, while its state is warm
   * (docs/performance.md "Windows"). Each node sees exactly the events, in exactly the order, of
   * the time-ordered loop (`run` without windows): its timers and the frames reaching it, with
   * the equal-time rule (timers first, then arrivals by delay class and sender).
   *
   * What ends a run (the last flow's completion, finishInstant) happens at a host, and every node
   * must end in its state after that instant E. So hosts run host by host only while the run
   * cannot end within the window (endIsFar); otherwise instant by instant, and once the run ended
   * at E the switches run only up to E. The sampler (the one global timer) reads every node:
   * windows end before its instant, and there every node first runs its timers of that instant
   * set before it (their `mark`), as time order would have.
   */
  private runWindowed(requestedUntilNs: number): void {
    const L = this.lookaheadNs;
    for (;;) {
      if (this.stopRequested) break;
      const untilNs = this.capped(requestedUntilNs);
      // The window starts at the earliest pending event.
      const startNs = this.earliestPendingNs();
      if (startNs > untilNs || startNs === Number.POSITIVE_INFINITY) break;
      let lastNs = startNs + L - 1;
      if (untilNs < lastNs) lastNs = untilNs;
      if (this.globalAtNs === startNs) {
        this.runGlobalAt(startNs);
        if (this.stopRequested) break;
      }
      // A global timer pending within the window (the sampler's next instant) ends it before.
      const g = this.globalAtNs;
      if (g > startNs && g - 1 < lastNs) lastNs = g - 1;
      // The clock ends the window at its latest event, as the time-ordered loop would leave it.
      let latestNs = this.nowNs;
      if (this.endIsFar?.() === true) {
        this.windowsHostByHost++;
        this.hostsByNode = true;
        try {
          latestNs = this.runNodes(this.hosts, lastNs, latestNs);
        } finally {
          this.hostsByNode = false;
        }
      } else {
        this.windowsHostsStepped++;
        this.stepHosts(lastNs);
        if (this.nowNs > latestNs) latestNs = this.nowNs;
      }
      if (this.stopRequested) break;
      // A run that ended in this window ends for the switches at the same instant.
      const ended = this.stopAfterNs !== Number.POSITIVE_INFINITY;
      if (ended && this.stopAfterNs < lastNs) lastNs = this.stopAfterNs;
      this.nowNs = this.runNodes(this.switches, lastNs, latestNs);
      if (ended || lastNs >= untilNs) break;
    }
  }

  /**
   * Each of `nodes` through its events due by `lastNs`, node after node; returns the latest
   * instant any of them reached, or `latestNs` if later.
   */
  private runNodes(nodes: NodeEvents[], lastNs: number, latestNs: number): number {
    for (let i = 0; i < nodes.length && !this.stopRequested; i++) {
      this.runNode(nodes[i], lastNs);
      if (this.nowNs > latestNs) latestNs = this.nowNs;
    }
    return latestNs;
  }

  /**
   * The global timers' instant `atNs` (the sampler's): every node's timers of that instant set
   * before the pending global timer, then the global timers due.
   */
  private runGlobalAt(atNs: number): void {
    for (const nodes of [this.hosts, this.switches]) {
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i];
        for (
          let fn = n.timers.popAtBefore(atNs, n.mark);
          fn !== undefined;
          fn = n.timers.popAtBefore(atNs, n.mark)
        ) {
          this.nowNs = atNs;
          this.processed++;
          fn();
        }
      }
    }
    const queue = this.queue;
    while (!this.stopRequested && queue.earliestNs <= atNs) {
      const fn = queue.popUntil(atNs);
      if (fn === undefined) break;
      this.nowNs = atNs;
      this.processed++;
      fn();
    }
  }

  /**
   * Hosts' events due by `lastNs`, instant by instant (every host's events of one instant, then
   * the next instant), until the run ends: a window in which the run may end.
   */
  private stepHosts(lastNs: number): void {
    // Only hosts with an event in the window can have one: nothing reaches a host within it.
    const active = this.activeHosts;
    let n = 0;
    for (const h of this.hosts) if (h.nextEventNs() <= lastNs) active[n++] = h;
    while (n > 0 && !this.stopRequested && this.stopAfterNs === Number.POSITIVE_INFINITY) {
      let t = Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        const ti = active[i].nextEventNs();
        if (ti < t) t = ti;
      }
      if (t > lastNs) break;
      for (let i = 0; i < n && !this.stopRequested; i++)
        if (active[i].nextEventNs() === t) this.runNode(active[i], t);
    }
    active.length = 0;
  }

  /** runNode's next arrival time per in-link, each link's rank, and the heap of links with one (reused). */
  private heads = new Float64Array(16);
  private ranks = new Float64Array(16);
  private arrivalOrder = new Int32Array(16);
  /** stepHosts' hosts with events in its window (reused). */
  private readonly activeHosts: NodeEvents[] = [];

  /** Time of the earliest pending event of any node (windowed mode), Infinity if none. */
  private earliestPendingNs(): number {
    let t = this.queue.peekTime();
    for (const nodes of [this.hosts, this.switches]) {
      for (let i = 0; i < nodes.length; i++) {
        const tt = nodes[i].nextEventNs();
        if (tt < t) t = tt;
      }
    }
    return t;
  }

  /** Timers and delay-class arrivals due by `lastNs`, in time order: every event of `run`. */
  private runInOrder(lastNs: number): void {
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
      const untilNs = this.capped(lastNs);
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

  /** One node's events due by `lastNs`, in its own order: timers first at an instant, then arrivals. */
  private runNode(node: NodeEvents, lastNs: number): void {
    const tq = node.timers;
    const links = node.inLinks;
    // Why read every frame of the window first: each is cold (sent a window ago), and reads of
    // independent frames in one loop wait for memory together, where the node's pipeline would
    // wait for each in turn.
    let touched = 0;
    for (let k = 0; k < links.length; k++) touched = (touched + links[k].touchFrames(lastNs)) | 0;
    this.touchedSum = touched;
    // Each in-link's next arrival in the window (Infinity: none), kept here so that choosing the
    // next arrival reads arrays, not links: nothing reaches this node while it runs. The links
    // with one are a binary heap by (arrival, rank), so choosing costs log(links with frames),
    // not a scan of every in-link (a fat tree's ToR has 20: the scan was a tenth of its time).
    const n = links.length;
    if (this.heads.length < n) {
      this.heads = new Float64Array(2 * n);
      this.ranks = new Float64Array(2 * n);
      this.arrivalOrder = new Int32Array(2 * n);
    }
    const heads = this.heads;
    const ranks = this.ranks;
    const order = this.arrivalOrder;
    let m = 0;
    for (let k = 0; k < n; k++) {
      const h = dueHeadNs(links[k], lastNs);
      heads[k] = h;
      if (h !== Number.POSITIVE_INFINITY) {
        ranks[k] = links[k].rank;
        order[m++] = k;
      }
    }
    for (let i = (m >> 1) - 1; i >= 0; i--) siftDown(order, m, i, heads, ranks);
    for (;;) {
      const b = m > 0 ? order[0] : -1;
      const at = m > 0 ? heads[b] : Number.POSITIVE_INFINITY;
      const limit = at < lastNs ? at : lastNs;
      const fn = tq.earliestNs <= limit ? tq.popUntil(limit) : undefined;
      if (fn !== undefined) {
        this.nowNs = tq.poppedTimeNs;
        this.processed++;
        if ((this.processed & 0xffff) === 0 && this.onTick !== null) this.onTick();
        fn();
      } else if (b >= 0) {
        this.nowNs = at;
        this.processed++;
        if ((this.processed & 0xffff) === 0 && this.onTick !== null) this.onTick();
        const l = links[b];
        l.arriveFromRing();
        const h = dueHeadNs(l, lastNs);
        heads[b] = h;
        if (h === Number.POSITIVE_INFINITY) order[0] = order[--m];
        if (m > 1) siftDown(order, m, 0, heads, ranks);
      } else return;
      if (this.stopRequested) return;
    }
  }
}

/** Arrival time of `link`'s oldest frame if due by `lastNs`, else Infinity. */
function dueHeadNs(link: WindowLink, lastNs: number): number {
  if (link.ringCount === 0) return Number.POSITIVE_INFINITY;
  const t = link.ringHeadNs;
  return t <= lastNs ? t : Number.POSITIVE_INFINITY;
}

/**
 * Whether in-link `a`'s next arrival comes before `c`'s: earlier, or at the same instant from the
 * lower rank (then the lower index, as a scan in index order would find it first).
 */
function arrivesBefore(a: number, c: number, heads: Float64Array, ranks: Float64Array): boolean {
  const ha = heads[a];
  const hc = heads[c];
  return ha < hc || (ha === hc && (ranks[a] < ranks[c] || (ranks[a] === ranks[c] && a < c)));
}

/** Restore the heap property of `order[0, m)` below position `i` (runNode's arrival heap). */
function siftDown(order: Int32Array, m: number, i: number, heads: Float64Array, ranks: Float64Array): void {
  const x = order[i];
  for (;;) {
    let c = 2 * i + 1;
    if (c >= m) break;
    if (c + 1 < m && arrivesBefore(order[c + 1], order[c], heads, ranks)) c++;
    if (!arrivesBefore(order[c], x, heads, ranks)) break;
    order[i] = order[c];
    i = c;
  }
  order[i] = x;
}
