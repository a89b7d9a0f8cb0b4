/**
 * Lockstep: conservative synchronisation of the real runtime's nodes (docs/realtime.md
 * "Lockstep"), after Chandy and Misra, "Distributed Simulation: A Case Study in Design and
 * Verification of Distributed Programs" (null messages), and SimBricks' pairwise coupling of
 * simulators by timestamped messages.
 *
 * A node handles emulated time T only when every input link has promised that nothing earlier
 * than or at T will still arrive. A frame promises its own arrival stamp (links are FIFO and
 * stamps grow along a link); a quiet link promises with control datagrams. A node's promise on
 * an output link is its frontier (the earliest time any future event of it can have: its next
 * timer, its next queued frame, or what its inputs still allow) plus the link's propagation
 * delay, the lookahead: whatever it sends from the frontier on arrives no earlier.
 *
 * Nodes also never run ahead of the wall clock ÷ timeScale. So when the host keeps up, a run is
 * real time at timeScale, and when it does not, emulated time slows down (adaptive dilation)
 * while every node still sees exactly the events, in exactly the order, it would see unloaded.
 *
 * Equal-time order (docs/realtime.md; independent of when datagrams reached the socket): the
 * virtual engine's rule (src/runtime/virtual/engine-scheduler.ts), so a lockstep run handles the
 * same events in the same order as virtual time: at one instant, due timers first in the order
 * they were set (re-checked after every frame), then frames in `inputOrder` and link order.
 *
 * The end bound: a run ends when its last flow completes, and every node must report its state at
 * exactly that instant. A host with a flow still to complete cannot complete it before its own
 * frontier, so that frontier is a lower bound of the run's end; bounds ride on the control
 * datagrams, and a node that sends no unfinished flow handles no event after the largest bound it
 * has heard. Because the bound never lowers a promise, it adds no latency to the promise chain.
 */
import type { TimerId, TimerService } from '../../env/env.js';
import type { RealClock } from '../../time/real-clock.js';
import { TimerQueue, timerFireNs } from '../../time/timer-queue.js';
import { PortRing } from './port-ring.js';

export interface LockstepOptions<F> {
  clock: RealClock;
  /** Propagation delay of each input port's link, ns: nothing can arrive on it before that. */
  inputDelaysNs: number[];
  /** Input ports in equal-time order (inputOrderOf); default: by port index. */
  inputOrder?: number[];
  /** Hand a frame that is due to firmware. */
  deliver(port: number, frame: F): void;
  /** After every turn (sending trains and promises). */
  afterTurn(): void;
  onError(err: unknown): void;
  /** Most events handled in one turn before yielding to I/O. Default 5 000. */
  batchLimit?: number;
}

/** Why a frame broke the promise of its link (a sender or network bug; the run cannot be right). */
export class SyncViolation extends Error {
  override name = 'SyncViolation';
}

/**
 * Turns queued (setImmediate) by the lockstep schedulers of this process and not yet run. When a
 * turn ends with none left, the process has nothing more to do before it polls its sockets again:
 * the moment to send what its nodes bundled (process-bundles.ts).
 */
let queuedTurns = 0;

/** Lockstep turns of this process queued and not yet run. */
export function queuedLockstepTurns(): number {
  return queuedTurns;
}

export class LockstepScheduler<F> implements TimerService {
  readonly clock: RealClock;
  private readonly queue = new TimerQueue();
  private readonly rx: PortRing<F>[];
  /** Input rings in equal-time order. */
  private readonly rxOrdered: PortRing<F>[];
  private readonly portOrdered: number[];
  /** Every future frame on port p has a stamp ≥ channelNs[p] (+∞: the link is down). */
  readonly channelNs: Float64Array;
  private readonly opts: LockstepOptions<F>;
  private readonly batchLimit: number;
  private dispatching = false;
  private eventNs = 0;
  private lastNs = Number.NEGATIVE_INFINITY;
  /** True while this node sends a flow that has not completed: it is not held by the bound. */
  unbounded = false;
  /** The largest end bound heard or made here (what this node passes on). */
  private knownEndBoundNs = 0;
  /** Hard cap: the scenario's duration, or the end the launcher announced. */
  private capNs = Number.POSITIVE_INFINITY;
  private turnQueued = false;
  private wallTimer: NodeJS.Timeout | null = null;
  private wallForNs = Number.POSITIVE_INFINITY;
  private closed = false;
  private started = false;
  /** Events handled, turns, and turns that stopped on peers / on the wall clock / on the bound. */
  readonly stats = { events: 0, turns: 0, blockedOnPeers: 0, blockedOnWall: 0, blockedOnBound: 0 };

  constructor(opts: LockstepOptions<F>) {
    this.opts = opts;
    this.clock = opts.clock;
    this.batchLimit = opts.batchLimit ?? 5000;
    this.rx = opts.inputDelaysNs.map(() => new PortRing<F>());
    this.portOrdered = opts.inputOrder ?? opts.inputDelaysNs.map((_, p) => p);
    this.rxOrdered = this.portOrdered.map((p) => this.rx[p]);
    this.channelNs = Float64Array.from(opts.inputDelaysNs, (d) => Math.max(0, d));
  }

  // --- TimerService ---------------------------------------------------------------------------

  /** Inside an event: its time; outside: the last event's time (0 before the first). */
  now(): number {
    if (this.dispatching) return this.eventNs;
    return this.lastNs > 0 ? this.lastNs : 0;
  }

  setTimer(atNs: number, fn: () => void): TimerId {
    if (this.closed) return 0;
    const id = this.queue.push(timerFireNs(atNs, this.now()), fn);
    if (!this.dispatching) this.schedule();
    return id;
  }

  cancelTimer(id: TimerId): void {
    this.queue.cancel(id);
  }

  // --- inputs ---------------------------------------------------------------------------------

  /** A frame arrived on `port` with arrival stamp `stampNs`. */
  frame(port: number, stampNs: number, frame: F): void {
    if (this.closed) return;
    const promised = this.channelNs[port];
    if (!(stampNs >= promised) && promised !== Number.POSITIVE_INFINITY) {
      this.opts.onError(
        new SyncViolation(
          `a frame on port ${port} arrives at ${stampNs} ns, before the ${promised} ns its link promised`,
        ),
      );
      return;
    }
    this.rx[port].push(frame, stampNs);
    if (stampNs > promised) this.channelNs[port] = stampNs;
    this.schedule();
  }

  /** A promise (and the sender's end bound) arrived on `port`. */
  promise(port: number, promiseNs: number, endBoundNs: number): void {
    if (this.closed) return;
    if (promiseNs > this.channelNs[port]) this.channelNs[port] = promiseNs;
    if (endBoundNs > this.knownEndBoundNs) this.knownEndBoundNs = endBoundNs;
    this.schedule();
  }

  /** The link behind `port` is down: it promises +∞ (fault handling, docs/realtime.md). */
  linkDown(port: number): void {
    this.channelNs[port] = Number.POSITIVE_INFINITY;
    this.schedule();
  }

  /** The run cannot end before `ns` (heard from the launcher rather than from a neighbour). */
  raiseEndBound(ns: number): void {
    if (ns > this.knownEndBoundNs) this.knownEndBoundNs = ns;
    this.schedule();
  }

  /** No event after `capNs` will run (the scenario's duration). */
  capAt(capNs: number): void {
    this.capNs = Math.min(this.capNs, capNs);
    this.schedule();
  }

  /** The run ends at `endNs` (every flow completed, or the duration): handle everything up to it. */
  endAt(endNs: number): void {
    this.capNs = Math.min(this.capNs, endNs);
    if (endNs > this.knownEndBoundNs) this.knownEndBoundNs = endNs;
    this.schedule();
  }

  /** The end bound this node passes on (≥ every bound it heard; its frontier while unbounded). */
  endBoundOut(): number {
    const own = this.unbounded ? this.frontierNs() : Number.NEGATIVE_INFINITY;
    return Math.min(Math.max(this.knownEndBoundNs, own), this.capNs);
  }

  // --- state ----------------------------------------------------------------------------------

  /** Every frame before this instant has arrived: min over input links of their promises. */
  horizonNs(): number {
    let h = Number.POSITIVE_INFINITY;
    const c = this.channelNs;
    for (let p = 0; p < c.length; p++) if (c[p] < h) h = c[p];
    return h;
  }

  /** Earliest pending local event (timer or queued frame). */
  nextEventNs(): number {
    let t = this.queue.peekTime();
    for (let p = 0; p < this.rx.length; p++) {
      const r = this.rx[p];
      if (r.length > 0 && r.peekKey() < t) t = r.peekKey();
    }
    return t;
  }

  /** The earliest instant any future event of this node can have. */
  frontierNs(): number {
    const n = this.nextEventNs();
    const h = this.horizonNs();
    return n < h ? n : h;
  }

  /** Time of the last event handled (−∞ before the first). */
  get lastEventNs(): number {
    return this.lastNs;
  }

  get pending(): number {
    return this.queue.size;
  }

  /** Queued frames not yet due. */
  get queuedFrames(): number {
    let n = 0;
    for (const r of this.rx) n += r.length;
    return n;
  }

  /** Where the scheduler stands (for a stall's log line). */
  state(): Record<string, unknown> {
    return {
      lastEventNs: this.lastNs,
      nextTimerNs: this.queue.peekTime(),
      nextFrameNs: this.rx.map((r) => (r.length > 0 ? r.peekKey() : null)),
      channelNs: [...this.channelNs],
      knownEndBoundNs: this.knownEndBoundNs,
      capNs: this.capNs,
      unbounded: this.unbounded,
      wallNs: this.clock.now(),
      turnQueued: this.turnQueued,
      wallTimerForNs: this.wallTimer !== null ? this.wallForNs : null,
    };
  }

  /** True once every event up to the announced end (or the cap) has been handled. */
  reachedCap(): boolean {
    return this.capNs !== Number.POSITIVE_INFINITY && this.frontierNs() > this.capNs;
  }

  // --- running --------------------------------------------------------------------------------

  /**
   * Begin handling events (emulated 0 is the clock's epoch). A restarted node resumes at
   * `fromNs`: what its neighbours heard from its previous incarnation (nothing earlier may run).
   */
  start(fromNs = 0): void {
    if (fromNs > 0) this.lastNs = fromNs;
    this.started = true;
    this.schedule();
  }

  /** Run a turn soon (after the I/O already pending), once however often asked. */
  schedule(): void {
    if (this.turnQueued || this.closed || !this.started) return;
    this.turnQueued = true;
    queuedTurns++;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.turnQueued = false;
    queuedTurns--;
    if (this.closed) return;
    this.stats.turns++;
    const horizon = this.horizonNs();
    let wall = this.clock.now();
    let ran = 0;
    let waitWallNs = Number.POSITIVE_INFINITY;
    const rx = this.rxOrdered;
    const queue = this.queue;
    this.dispatching = true;
    try {
      while (ran < this.batchLimit) {
        let fp = -1;
        let ft = Number.POSITIVE_INFINITY;
        for (let p = 0; p < rx.length; p++) {
          const r = rx[p];
          if (r.length > 0 && r.peekKey() < ft) {
            ft = r.peekKey();
            fp = p;
          }
        }
        const tt = queue.peekTime();
        const t = tt <= ft ? tt : ft;
        if (!(t < horizon)) {
          if (t !== Number.POSITIVE_INFINITY) this.stats.blockedOnPeers++;
          break;
        }
        // Re-read every event: completing its last flow makes a host bounded at once.
        if (t > this.capNs) break;
        if (!this.unbounded && t > this.knownEndBoundNs) {
          this.stats.blockedOnBound++;
          break;
        }
        if (t > wall) {
          wall = this.clock.now();
          if (t > wall) {
            this.stats.blockedOnWall++;
            waitWallNs = t;
            break;
          }
        }
        ran++;
        this.eventNs = t > this.lastNs ? t : this.lastNs;
        this.lastNs = this.eventNs;
        if (tt <= ft) {
          const fn = queue.pop()!;
          fn();
        } else {
          this.opts.deliver(this.portOrdered[fp], rx[fp].shift()!);
        }
      }
    } catch (err) {
      this.dispatching = false;
      this.opts.onError(err);
      return;
    }
    this.dispatching = false;
    this.stats.events += ran;
    this.opts.afterTurn();
    if (ran >= this.batchLimit) this.schedule();
    else if (waitWallNs !== Number.POSITIVE_INFINITY) this.wakeAtWall(waitWallNs);
  };

  /** Wake when the wall clock reaches emulated `tNs`. */
  wakeAtWall(tNs: number): void {
    if (this.closed) return;
    if (this.wallTimer !== null) {
      if (this.wallForNs <= tNs) return;
      clearTimeout(this.wallTimer);
    }
    this.wallForNs = tNs;
    const ms = (this.clock.toRealNs(tNs) - this.clock.realNowNs()) / 1e6;
    // Sleeping (never spinning): 17 node processes share two cores, and waking up to a
    // millisecond late only delays when an event runs, never what it sees.
    this.wallTimer = setTimeout(this.onWall, Math.max(1, Math.ceil(ms)));
  }

  private readonly onWall = (): void => {
    this.wallTimer = null;
    this.wallForNs = Number.POSITIVE_INFINITY;
    this.schedule();
  };

  close(): void {
    this.closed = true;
    this.queue.clear();
    if (this.wallTimer !== null) clearTimeout(this.wallTimer);
    this.wallTimer = null;
  }
}

/**
 * A node's input ports in the virtual engine's equal-time order: by the delay class of the link
 * (classes numbered in the order the virtual fabric meets the delays: nodes in topology order,
 * ports in order), then by the sending node's place in the topology, then its port.
 */
export function inputOrderOf(
  nodes: readonly {
    name: string;
    ports: readonly { index: number; delayNs: number; peerNode: string; peerPort: number }[];
  }[],
  me: string,
): number[] {
  const classOf = new Map<number, number>();
  const ordinal = new Map<string, number>();
  nodes.forEach((n, i) => {
    ordinal.set(n.name, i);
    for (const p of n.ports) if (!classOf.has(p.delayNs)) classOf.set(p.delayNs, classOf.size);
  });
  const node = nodes.find((n) => n.name === me);
  if (node === undefined) return [];
  // The link into port p is the peer's link out of its port, with the same delay.
  const key = (p: (typeof node.ports)[number]) => [
    classOf.get(p.delayNs)!,
    ordinal.get(p.peerNode)!,
    p.peerPort,
  ];
  return node.ports
    .map((p) => ({ port: p.index, k: key(p) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.k[2] - b.k[2])
    .map((x) => x.port);
}
