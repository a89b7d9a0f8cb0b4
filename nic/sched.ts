/**
 * The NIC's pacing heap: an indexed min-heap of QPs waiting for their pacing time, O(log n) per
 * operation so a NIC with thousands of QPs never scans all of them per packet (the FIFOs of
 * frames and ready QPs are the shared ring, src/port/ring.ts).
 */

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
