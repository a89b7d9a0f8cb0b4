/**
 * Destination IP → equal-cost egress ports, looked up once per forwarded frame.
 *
 * Why not `RoutingTable` (a Map) directly: host addresses (198.18.0.0/15) are above V8's
 * small-integer range, so every `Map.get` hashes a boxed double. This is an open-addressing
 * table over the addresses as int32 keys (linear probing, load ≤ 1/2), built once when the
 * switch is created: a multiply, a shift and usually one compare per lookup.
 *
 * Why flat typed arrays for the port lists too: with the Map's own `number[]` lists a lookup
 * chased three pointers (slot → array → its elements), each a likely cache miss on a large
 * network where a switch's table is cold between two frames; profiled on the 320-host fat tree,
 * those loads were a third of the switch's `receive`. Here a route is a (start, count) pair into
 * one Int32Array of ports, copied when the table is built (docs/switch.md: read once).
 *
 * Why one array of (key, start, count) triples rather than three arrays: a lookup reads all
 * three fields of its slot, and on the fat tree the slot is almost always cold, so three arrays
 * cost three cache misses where one interleaved slot costs one.
 */
import type { RoutingTable } from '../src/topology/model.js';

const MIN_CAPACITY = 8;
/** `count` of a slot that holds no route. */
const EMPTY = -1;

/** A port list entry as stored: itself when it can name a port (a uint32 below 2^31), else -1. */
function storedPort(e: unknown): number {
  return typeof e === 'number' && e >>> 0 === e && e <= 0x7fffffff ? e : -1;
}

/** Int32s per slot: key, start, count, and one unused (16-byte slots sit within a cache line). */
const STRIDE = 4;
const KEY = 0;
const START = 1;
const COUNT = 2;

export class RouteLookup {
  /**
   * Slot i at slots[STRIDE·i ..]: its key, and its route ports[start .. start + count); count
   * EMPTY for a free slot.
   */
  private readonly slots: Int32Array;
  private readonly ports: Int32Array;
  private readonly shift: number;
  private readonly mask: number;

  constructor(routes: RoutingTable) {
    let cap = MIN_CAPACITY;
    while (cap < 2 * routes.size) cap *= 2;
    this.slots = new Int32Array(cap * STRIDE);
    for (let i = 0; i < cap; i++) this.slots[i * STRIDE + COUNT] = EMPTY;
    this.mask = cap - 1;
    this.shift = 32 - Math.log2(cap);
    let total = 0;
    for (const ports of routes.values()) total += ports.length;
    this.ports = new Int32Array(total);
    let next = 0;
    for (const [ip, ports] of routes) {
      // Only uint32 keys can match a lookup (see find); anything else could never be found.
      if (ip >>> 0 !== ip) continue;
      let i = this.slot(ip);
      while (this.slots[i * STRIDE + COUNT] !== EMPTY && this.slots[i * STRIDE + KEY] !== (ip | 0))
        i = (i + 1) & this.mask;
      this.slots[i * STRIDE + KEY] = ip | 0;
      this.slots[i * STRIDE + START] = next;
      this.slots[i * STRIDE + COUNT] = ports.length;
      for (const e of ports) this.ports[next++] = storedPort(e);
    }
  }

  /** The slot of `ip`'s route, or -1 when it has none (also for a non-uint32 `ip`). */
  find(ip: number): number {
    if (ip >>> 0 !== ip) return -1;
    const key = ip | 0;
    for (let i = this.slot(ip); ; i = (i + 1) & this.mask) {
      if (this.slots[i * STRIDE + COUNT] === EMPTY) return -1;
      if (this.slots[i * STRIDE + KEY] === key) return i;
    }
  }

  /** How many equal-cost ports the route in slot `s` lists. */
  portCount(s: number): number {
    return this.slots[s * STRIDE + COUNT];
  }

  /** Port k (< portCount) of the route in slot `s`; -1 for a list entry that is no uint32 port number. */
  port(s: number, k: number): number {
    return this.ports[this.slots[s * STRIDE + START] + k];
  }

  private slot(ip: number): number {
    return Math.imul(ip | 0, 0x9e3779b1) >>> this.shift;
  }
}
