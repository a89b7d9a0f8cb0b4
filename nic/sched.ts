/**
 * Data structures of the NIC's port scheduler: a FIFO ring for frames and ready QPs, and an
 * indexed min-heap of QPs waiting for their pacing time. Both are O(1)/O(log n) per operation
 * so a NIC with thousands of QPs never scans all of them per packet.
 */

/** Growable circular FIFO. */
export class RingQueue<T> {
  private buf: (T | undefined)[];
  private head = 0;
  private size = 0;

  constructor(capacity = 16) {
    this.buf = new Array(capacity);
  }

  get length(): number {
    return this.size;
  }

  push(v: T): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) % this.buf.length] = v;
    this.size++;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const v = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.size--;
    return v;
  }

  peek(): T | undefined {
    return this.size === 0 ? undefined : this.buf[this.head];
  }

  /** Elements oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.buf[(this.head + i) % this.buf.length] as T);
    return out;
  }

  private grow(): void {
    const next: (T | undefined)[] = new Array(this.buf.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.buf[(this.head + i) % this.buf.length];
    this.buf = next;
    this.head = 0;
  }
}

/** What the pacing heap needs from a QP. */
export interface HeapItem {
  /** Earliest start of the QP's next packet, ns (fractional). */
  nextAvailNs: number;
  /** Tie-break, so equal times pop in a deterministic order. */
  readonly order: number;
  /** Position in the heap, -1 when not in it. */
  heapIndex: number;
}

/** Binary min-heap on (nextAvailNs, order) with O(log n) update/remove of any member. */
export class PacingHeap<T extends HeapItem> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    item.heapIndex = this.items.length;
    this.items.push(item);
    this.up(item.heapIndex);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return top;
  }

  /** Restore the heap order after `item.nextAvailNs` changed. */
  update(item: T): void {
    const i = item.heapIndex;
    if (i < 0) return;
    this.up(i);
    this.down(item.heapIndex);
  }

  remove(item: T): void {
    if (item.heapIndex >= 0) this.removeAt(item.heapIndex);
  }

  private removeAt(i: number): void {
    const items = this.items;
    const removed = items[i];
    const last = items.pop()!;
    removed.heapIndex = -1;
    if (i < items.length) {
      items[i] = last;
      last.heapIndex = i;
      this.up(i);
      this.down(last.heapIndex);
    }
  }

  private less(a: T, b: T): boolean {
    return a.nextAvailNs < b.nextAvailNs || (a.nextAvailNs === b.nextAvailNs && a.order < b.order);
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = items[p];
      if (!this.less(item, parent)) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    items[i] = item;
    item.heapIndex = i;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.less(items[r], items[l]) ? r : l;
      if (!this.less(items[c], item)) break;
      items[i] = items[c];
      items[i].heapIndex = i;
      i = c;
    }
    items[i] = item;
    item.heapIndex = i;
  }
}
