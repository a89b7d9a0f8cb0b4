/**
 * A FIFO of (emulated time, item) per port, growing by doubling: the send-side propagation delay
 * line and the receive-side delay line of a real node (node-env.ts), and the per-port input
 * queue of lockstep (lockstep.ts). Times are non-decreasing per port, so the head is the earliest.
 */
import type { TimerId } from '../../env/env.js';

export class PortRing<T> {
  private bufs: (T | null)[] = new Array(64).fill(null);
  private times = new Float64Array(64);
  private head = 0;
  count = 0;
  timer: TimerId | null = null;

  push(atNs: number, buf: T): void {
    if (this.count === this.bufs.length) this.grow();
    const tail = (this.head + this.count) & (this.bufs.length - 1);
    this.bufs[tail] = buf;
    this.times[tail] = atNs;
    this.count++;
  }

  headTime(): number {
    return this.times[this.head];
  }

  shift(): T {
    const b = this.bufs[this.head]!;
    this.bufs[this.head] = null;
    this.head = (this.head + 1) & (this.bufs.length - 1);
    this.count--;
    return b;
  }

  private grow(): void {
    const n = this.bufs.length;
    const bufs: (T | null)[] = new Array(n * 2).fill(null);
    const times = new Float64Array(n * 2);
    for (let k = 0; k < this.count; k++) {
      const j = (this.head + k) & (n - 1);
      bufs[k] = this.bufs[j];
      times[k] = this.times[j];
    }
    this.bufs = bufs;
    this.times = times;
    this.head = 0;
  }
}
