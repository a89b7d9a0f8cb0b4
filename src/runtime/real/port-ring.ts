/**
 * The delay lines of a real node's ports (send side and receive side, node-env.ts) and the
 * per-port input queues of lockstep (lockstep.ts): the shared ring (src/port/ring.ts) of items
 * with their due time as the key, plus the timer armed for the head. Times are non-decreasing
 * per port, so the head is the earliest.
 */
import type { TimerId } from '../../env/env.js';
import { Ring } from '../../port/ring.js';

export class PortRing<T> extends Ring<T> {
  timer: TimerId | null = null;

  constructor() {
    super(64);
  }
}
