/**
 * One egress queue of the switch: a FIFO of frames, each with its ingress port beside it (-1 for
 * CP frames) for the MMU release at dequeue.
 *
 * Why not src/port/ring.ts: that ring keeps its numbers in a Float64Array beside the item array
 * (its real-time users store fractional due times), so a push or a dequeue touches two arrays.
 * Here the port number is a small integer and sits in the same array right after its frame, so
 * both are one cache line; on a large network, where a queue's tail is cold between two of its
 * frames, that is one miss per push and per dequeue instead of two.
 */
import type { Packet } from '../src/wire/packet.js';

export class FrameQueue {
  /** slots[2k] a frame, slots[2k + 1] its ingress port; 2·capacity entries. */
  private slots: (Packet | number | null)[];
  private head = 0;
  /** Capacity − 1 (a power of two minus one). */
  private mask: number;
  length = 0;

  constructor(initialCapacity = 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.slots = new Array<Packet | number | null>(2 * cap).fill(null);
    this.mask = cap - 1;
  }

  push(pkt: Packet, inPort: number): void {
    if (this.length > this.mask) this.grow();
    const i = ((this.head + this.length) & this.mask) << 1;
    this.slots[i] = pkt;
    this.slots[i + 1] = inPort;
    this.length++;
  }

  /** The oldest frame (length > 0). */
  peek(): Packet {
    return this.slots[this.head << 1] as Packet;
  }

  /** The ingress port of the oldest frame (length > 0). */
  peekInPort(): number {
    return this.slots[(this.head << 1) + 1] as number;
  }

  /** Remove and return the oldest frame (length > 0). */
  shift(): Packet {
    const i = this.head << 1;
    const pkt = this.slots[i] as Packet;
    this.slots[i] = null;
    this.head = (this.head + 1) & this.mask;
    this.length--;
    return pkt;
  }

  /** The ingress port of the newest frame (length > 0). */
  peekTailInPort(): number {
    return this.slots[(((this.head + this.length - 1) & this.mask) << 1) + 1] as number;
  }

  /** Remove and return the newest frame (length > 0). */
  popTail(): Packet {
    const i = ((this.head + this.length - 1) & this.mask) << 1;
    const pkt = this.slots[i] as Packet;
    this.slots[i] = null;
    this.length--;
    return pkt;
  }

  private grow(): void {
    const cap = this.mask + 1;
    const slots = new Array<Packet | number | null>(4 * cap).fill(null);
    for (let k = 0; k < this.length; k++) {
      const i = ((this.head + k) & this.mask) << 1;
      slots[2 * k] = this.slots[i];
      slots[2 * k + 1] = this.slots[i + 1];
    }
    this.slots = slots;
    this.head = 0;
    this.mask = 2 * cap - 1;
  }
}
