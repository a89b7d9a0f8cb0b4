/**
 * Destination IP → equal-cost egress ports, looked up once per forwarded frame.
 *
 * Why not `RoutingTable` (a Map) directly: host addresses (198.18.0.0/15) are above V8's
 * small-integer range, so every `Map.get` hashes a boxed double. This is an open-addressing
 * table over the addresses as int32 keys (linear probing, load ≤ 1/2), built once when the
 * switch is created: a multiply, a shift and usually one compare per lookup. Results are the
 * Map's own port lists, so lookups answer exactly what `routes.get(ip)` answered.
 */
import type { RoutingTable } from '../src/topology/model.js';

const MIN_CAPACITY = 8;

export class RouteLookup {
  private readonly keys: Int32Array;
  private readonly vals: (number[] | undefined)[];
  private readonly shift: number;
  private readonly mask: number;

  constructor(routes: RoutingTable) {
    let cap = MIN_CAPACITY;
    while (cap < 2 * routes.size) cap *= 2;
    this.keys = new Int32Array(cap);
    this.vals = new Array<number[] | undefined>(cap).fill(undefined);
    this.mask = cap - 1;
    this.shift = 32 - Math.log2(cap);
    for (const [ip, ports] of routes) {
      // Only uint32 keys can match a lookup (see get); anything else could never be found.
      if (ip >>> 0 !== ip) continue;
      let i = this.slot(ip);
      while (this.vals[i] !== undefined && this.keys[i] !== (ip | 0)) i = (i + 1) & this.mask;
      this.keys[i] = ip | 0;
      this.vals[i] = ports;
    }
  }

  /** The ports of `ip`, or undefined when it has no route (also for a non-uint32 `ip`). */
  get(ip: number): number[] | undefined {
    if (ip >>> 0 !== ip) return undefined;
    const key = ip | 0;
    for (let i = this.slot(ip); ; i = (i + 1) & this.mask) {
      const v = this.vals[i];
      if (v === undefined || this.keys[i] === key) return v;
    }
  }

  private slot(ip: number): number {
    return Math.imul(ip | 0, 0x9e3779b1) >>> this.shift;
  }
}
