/**
 * Links that slow down or fail mid-run (docs/switch.md "Link events"; scenario `links` entries
 * with `at`, docs/scenario.md). The switch applies each of its ports' events with its own timer,
 * so virtual time and every real runtime (the node owning the port) change the link at the same
 * emulated instant. What a failure does:
 *
 * - the port's queues are flushed and every frame counted in `linkDownDrops`, the frame on the
 *   wire is lost at its end, frames still arriving on the port are dropped;
 * - this switch stops choosing the port among equal-cost ones while another is up (local fast
 *   failover: rehash over the ports that are up). No routing protocol runs, so other switches
 *   keep sending towards the failed link; a frame whose only route is down is dropped and counted.
 */
import type { PortEvent } from './api.js';
import type { SharedBufferMmu } from './mmu.js';
import { HEADER_QUEUE, type Port } from './port.js';
import type { RouteLookup } from './route-lookup.js';
import { isUint } from './validate.js';

/** Throws RangeError for an event the switch cannot apply (the runtimes build them from a checked scenario). */
export function checkPortEvents(name: string, events: readonly PortEvent[], nPorts: number): void {
  for (const ev of events) {
    if (!isUint(ev.port, nPorts - 1)) throw new RangeError(`switch ${name}: link event on port ${ev.port}`);
    if (!(Number.isFinite(ev.atNs) && ev.atNs >= 0))
      throw new RangeError(`switch ${name}: link event at ${ev.atNs} ns`);
    if (ev.rateBps !== undefined && !(ev.rateBps > 0))
      throw new RangeError(`switch ${name}: link event rate ${ev.rateBps} bit/s`);
    if ((ev.ecn !== undefined || ev.trim !== undefined) && ev.rateBps === undefined)
      throw new RangeError(`switch ${name}: link event thresholds without a rate`);
    for (const t of [ev.ecn, ev.trim?.ecn]) {
      if (t !== undefined && !(t.kminBytes >= 0 && t.kminBytes <= t.kmaxBytes && t.pmax >= 0 && t.pmax <= 1))
        throw new RangeError(
          `switch ${name}: link event RED thresholds ${t.kminBytes}/${t.kmaxBytes}/${t.pmax}`,
        );
    }
  }
}

/**
 * The equal-cost port of route `r` (n ports, ECMP hash `hash`) when the hashed one is down: the
 * (hash mod up)-th of those that are up, or -1 when none is.
 */
export function failoverPort(routes: RouteLookup, r: number, n: number, hash: number, ports: Port[]): number {
  let up = 0;
  for (let k = 0; k < n; k++) if (!ports[routes.port(r, k)]?.down) up++;
  if (up === 0) return -1;
  let pick = hash % up;
  for (let k = 0; k < n; k++) {
    const e = routes.port(r, k);
    if (ports[e]?.down) continue;
    if (pick-- === 0) return e;
  }
  return -1;
}

/** Drop every frame queued on `port` (its link failed), releasing their buffer; returns how many. */
export function flushPort(port: Port, mmu: SharedBufferMmu, controlPrio: number, now: number): number {
  let dropped = 0;
  port.queueByteNs += port.queueBytes * (now - port.queueSinceNs);
  port.queueSinceNs = now;
  for (let q = 0; q <= HEADER_QUEUE; q++) {
    const ring = port.queues[q];
    while (ring.length > 0) {
      const inPort = ring.peekInPort();
      const s = ring.shift().sizeBytes;
      port.queueBytesOf[q] -= s;
      port.queueBytes -= s;
      if (q === controlPrio || inPort < 0) mmu.releaseControl(s);
      else mmu.release(inPort, q, s);
      dropped++;
    }
    port.deficitBytes[q] = 0;
  }
  port.nonEmptyMask = 0;
  return dropped;
}
