/**
 * Wakes the event loop at a real instant with sub-millisecond precision, without spinning.
 *
 * Node's timers count whole milliseconds: setTimeout wakes up to 1 ms after the instant it was
 * meant for, which is a whole time window at timeScale 1000 over 1 µs links. One helper thread
 * per process sleeps in Atomics.wait until the earliest instant any subscriber asked for (the
 * futex timeout is precise to tens of µs), then posts a message, which wakes the main loop through
 * its async handle. The main thread never blocks and never polls.
 */
import { Worker } from 'node:worker_threads';

/** The helper: sleeps until target[0] (host monotonic ns) or until seq[0] changes; posts on time. */
const HELPER = `
const { workerData, parentPort } = require('node:worker_threads');
const seq = new Int32Array(workerData, 0, 1);
const target = new Float64Array(workerData, 8, 1);
for (;;) {
  const s = Atomics.load(seq, 0);
  const at = target[0];
  if (at === Infinity) { Atomics.wait(seq, 0, s); continue; }
  const waitMs = (at - Number(process.hrtime.bigint())) / 1e6;
  if (waitMs > 0) { Atomics.wait(seq, 0, s, waitMs); continue; }
  parentPort.postMessage(s);
  Atomics.wait(seq, 0, s);
}
`;

/** A subscriber's wake callback. */
type WakeFn = () => void;

export class PreciseWake {
  private static shared: PreciseWake | null = null;
  private readonly worker: Worker;
  private readonly seq: Int32Array;
  private readonly target: Float64Array;
  /** Subscribers and the real instant (host monotonic ns) each wants, Infinity when none. */
  private readonly wants = new Map<WakeFn, number>();
  private armedNs = Number.POSITIVE_INFINITY;

  /** The process's one instance (its helper thread is started on first use). */
  static get(): PreciseWake {
    PreciseWake.shared ??= new PreciseWake();
    return PreciseWake.shared;
  }

  private constructor() {
    const sab = new SharedArrayBuffer(16);
    this.seq = new Int32Array(sab, 0, 1);
    this.target = new Float64Array(sab, 8, 1);
    this.target[0] = Number.POSITIVE_INFINITY;
    this.worker = new Worker(HELPER, { eval: true, workerData: sab });
    this.worker.unref();
    this.worker.on('message', () => this.fire());
  }

  /** Calls `fn` once at host monotonic `atNs` (or soon after); replaces fn's earlier request. */
  at(fn: WakeFn, atNs: number): void {
    this.wants.set(fn, atNs);
    if (atNs < this.armedNs) this.arm(atNs);
  }

  cancel(fn: WakeFn): void {
    this.wants.delete(fn);
  }

  private arm(atNs: number): void {
    this.armedNs = atNs;
    this.target[0] = atNs;
    Atomics.add(this.seq, 0, 1);
    Atomics.notify(this.seq, 0);
  }

  /**
   * fire's due requests, earliest first (equal instants in the order asked), and the earliest
   * instant not yet due: kept between calls, so a wake allocates nothing (a Map's `for…of` makes
   * an entry array per subscriber, and fire runs at every wake).
   */
  private readonly dueFns: (WakeFn | null)[] = [];
  private readonly dueAtNs: number[] = [];
  private dueCount = 0;
  private nowNs = 0;
  private nextNs = Number.POSITIVE_INFINITY;
  private readonly collect = (atNs: number, fn: WakeFn): void => {
    if (atNs > this.nowNs) {
      if (atNs < this.nextNs) this.nextNs = atNs;
      return;
    }
    // Several are due at once when the host ran this thread late: earliest first, not in the
    // order they asked (a node asking for 4.5 ms before one asking for 1.5 ms ran first in CI).
    let i = this.dueCount++;
    while (i > 0 && this.dueAtNs[i - 1] > atNs) {
      this.dueFns[i] = this.dueFns[i - 1];
      this.dueAtNs[i] = this.dueAtNs[i - 1];
      i--;
    }
    this.dueFns[i] = fn;
    this.dueAtNs[i] = atNs;
  };

  private fire(): void {
    this.nowNs = Number(process.hrtime.bigint());
    this.nextNs = Number.POSITIVE_INFINITY;
    this.dueCount = 0;
    this.wants.forEach(this.collect);
    const n = this.dueCount;
    const fns = this.dueFns;
    for (let i = 0; i < n; i++) this.wants.delete(fns[i]!);
    this.armedNs = Number.POSITIVE_INFINITY;
    this.arm(this.nextNs);
    for (let i = 0; i < n; i++) {
      const fn = fns[i]!;
      fns[i] = null;
      fn();
    }
  }
}
