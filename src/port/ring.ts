/**
 * The FIFO ring of the NIC and the real runtime: items with a number beside each (the due time
 * of a frame on a real link's delay line; the NIC's queues leave it 0). A power-of-two ring that
 * doubles when full: push and shift are O(1), unlike Array.shift, and its arrays live as long as
 * the ring.
 *
 * Two queues keep their own: the virtual engine's delay classes
 * (src/runtime/virtual/engine-scheduler.ts) order equal-time arrivals on insert, which a FIFO does
 * not; the switch's egress queues (switch/frame-queue.ts) keep a frame and its ingress port in one
 * array, one cache line where this ring touches two.
 */
export class Ring<T> {
  private items: (T | undefined)[];
  private keys: Float64Array;
  private head = 0;
  private mask: number;
  length = 0;

  constructor(initialCapacity = 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.items = new Array<T | undefined>(cap).fill(undefined);
    this.keys = new Float64Array(cap);
    this.mask = cap - 1;
  }

  push(item: T, key = 0): void {
    if (this.length > this.mask) this.grow();
    const i = (this.head + this.length) & this.mask;
    this.items[i] = item;
    this.keys[i] = key;
    this.length++;
  }

  /** The oldest item; undefined when empty. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  /** The number beside the oldest item; only meaningful when length > 0. */
  peekKey(): number {
    return this.keys[this.head];
  }

  /** Remove and return the oldest item; undefined when empty. */
  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.length--;
    return item;
  }

  /** Items oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    for (let k = 0; k < this.length; k++) out.push(this.items[(this.head + k) & this.mask] as T);
    return out;
  }

  private grow(): void {
    const cap = this.mask + 1;
    const items = new Array<T | undefined>(cap * 2).fill(undefined);
    const keys = new Float64Array(cap * 2);
    for (let k = 0; k < this.length; k++) {
      const i = (this.head + k) & this.mask;
      items[k] = this.items[i];
      keys[k] = this.keys[i];
    }
    this.items = items;
    this.keys = keys;
    this.head = 0;
    this.mask = cap * 2 - 1;
  }
}
