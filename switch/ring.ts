/**
 * FIFO of packets with an integer tag per entry (the ingress port, for MMU release at dequeue).
 * A power-of-two ring that doubles when full: push/shift are O(1), unlike Array.shift, and the
 * arrays are reused for the life of the queue.
 */
import type { Packet } from '../src/wire/packet.js';

export class PacketRing {
  private pkts: (Packet | null)[];
  private tags: Int32Array;
  private head = 0;
  private mask: number;
  length = 0;

  constructor(initialCapacity = 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.pkts = new Array<Packet | null>(cap).fill(null);
    this.tags = new Int32Array(cap);
    this.mask = cap - 1;
  }

  push(pkt: Packet, tag: number): void {
    if (this.length > this.mask) this.grow();
    const i = (this.head + this.length) & this.mask;
    this.pkts[i] = pkt;
    this.tags[i] = tag;
    this.length++;
  }

  /** Head packet; only valid when length > 0. */
  peek(): Packet {
    return this.pkts[this.head]!;
  }

  /** Tag of the head entry; only valid when length > 0. */
  peekTag(): number {
    return this.tags[this.head];
  }

  /** Remove and return the head packet; only valid when length > 0. */
  shift(): Packet {
    const pkt = this.pkts[this.head]!;
    this.pkts[this.head] = null;
    this.head = (this.head + 1) & this.mask;
    this.length--;
    return pkt;
  }

  private grow(): void {
    const cap = this.mask + 1;
    const pkts = new Array<Packet | null>(cap * 2).fill(null);
    const tags = new Int32Array(cap * 2);
    for (let k = 0; k < this.length; k++) {
      const i = (this.head + k) & this.mask;
      pkts[k] = this.pkts[i];
      tags[k] = this.tags[i];
    }
    this.pkts = pkts;
    this.tags = tags;
    this.head = 0;
    this.mask = cap * 2 - 1;
  }
}
