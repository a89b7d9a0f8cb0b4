/**
 * The recycling halves of the path policies (nic/paths.ts), after the UEC reference simulator
 * (ultraethernet/uet-htsim, htsim/sim/buffer_reps.cpp and uec_mp.cpp) and REPS (Bonato et al.,
 * "REPS: Recycled Entropy Packet Spraying for Adaptive Load Balancing and Failure Mitigation",
 * arXiv:2407.21625):
 *
 * - `RepsBuffer`: REPS's 8-entry circular buffer of entropies whose ACKs came back unmarked,
 *   reused oldest fresh first; a retransmission timeout freezes it, and frozen it cycles through
 *   the known-good entries it holds until the freeze ends (the reference's exit_freeze_after is
 *   10 s, so in practice for the rest of the run), after which 16 picks explore at random.
 * - `RecycleQueue`: the unbounded FIFO of every entropy acknowledged unmarked that the
 *   reference's `mixed` policy (its default, UecMpMixed over UecMpRepsLegacy) drains before
 *   falling back to the bitmap. It holds at most one entry per acknowledged packet in flight, so
 *   it grows only while ACKs arrive and nothing is sent (the end of a message).
 *
 * Entropies are indices 0..count−1 (nic/paths.ts maps them to source ports); a draw of -1 means
 * "nothing to recycle: choose another way".
 */

const REPS_BUFFER = 8;
const REPS_EXPLORE_AFTER_FREEZE = 16;
const REPS_EXIT_FREEZE_AFTER_NS = 10e9;

export class RepsBuffer {
  private readonly ev = new Uint16Array(REPS_BUFFER);
  private readonly fresh = new Uint8Array(REPS_BUFFER);
  private head = 0;
  private size = 0;
  private freshCount = 0;
  private frozenHead = 0;
  private frozen = false;
  private exitFreezeNs = 0;
  /** Picks left to draw at random after a freeze ended. */
  private explore = 0;

  /** True while the next pick must explore at random (after a freeze); consumes one. */
  takeExplore(): boolean {
    if (this.explore === 0) return false;
    this.explore--;
    return true;
  }

  /** The next recycled entropy, or -1 when none is fresh (frozen: none is held). */
  next(nowNs: number): number {
    if (this.frozen && nowNs > this.exitFreezeNs) this.unfreeze();
    const ev = this.ev;
    const fresh = this.fresh;
    if (this.frozen) {
      if (this.size === 0) return -1;
      const h = this.frozenHead;
      if (fresh[h] !== 0) {
        fresh[h] = 0;
        this.freshCount--;
      }
      this.frozenHead = (h + 1) % this.size;
      return ev[h];
    }
    if (this.freshCount === 0) return -1;
    // The earliest fresh entry: fresh entries are the newest freshCount ones.
    const at = (this.head - this.freshCount + REPS_BUFFER) % REPS_BUFFER;
    fresh[at] = 0;
    this.freshCount--;
    return ev[at];
  }

  /** An unmarked ACK of entropy `i` (REPS recycles it, frozen or not). */
  good(i: number, nowNs: number): void {
    this.checkFreeze(nowNs);
    const fresh = this.fresh;
    const h = this.head;
    if (fresh[h] === 0) this.freshCount = Math.min(REPS_BUFFER, this.freshCount + 1);
    this.ev[h] = i;
    fresh[h] = 1;
    this.head = (h + 1) % REPS_BUFFER;
    if (this.size < REPS_BUFFER) this.size++;
  }

  /** A retransmission timeout: freeze, unless frozen already or exploring after a freeze. */
  timeout(nowNs: number): void {
    if (!this.frozen && this.explore === 0) {
      this.frozen = true;
      this.exitFreezeNs = nowNs + REPS_EXIT_FREEZE_AFTER_NS;
    }
    this.checkFreeze(nowNs);
  }

  /** Any other feedback (ECN, NACK): REPS only lets the freeze expire. */
  checkFreeze(nowNs: number): void {
    if (this.frozen && nowNs > this.exitFreezeNs) this.unfreeze();
  }

  inspect(out: Record<string, number>): void {
    out.repsFrozen = this.frozen ? 1 : 0;
    out.repsFresh = this.freshCount;
  }

  private unfreeze(): void {
    this.frozen = false;
    this.ev.fill(0);
    this.fresh.fill(0);
    this.head = 0;
    this.size = 0;
    this.freshCount = 0;
    this.frozenHead = 0;
    this.explore = REPS_EXPLORE_AFTER_FREEZE;
  }
}

/** FIFO of entropy indices; grows by doubling, never drops one. */
export class RecycleQueue {
  private ring = new Uint16Array(16);
  private head = 0;
  private length = 0;

  push(i: number): void {
    if (this.length === this.ring.length) {
      const bigger = new Uint16Array(this.ring.length * 2);
      for (let k = 0; k < this.length; k++) bigger[k] = this.ring[(this.head + k) & (this.ring.length - 1)];
      this.ring = bigger;
      this.head = 0;
    }
    this.ring[(this.head + this.length) & (this.ring.length - 1)] = i;
    this.length++;
  }

  /** The oldest entropy queued, or -1. */
  shift(): number {
    if (this.length === 0) return -1;
    const i = this.ring[this.head];
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.length--;
    return i;
  }

  get size(): number {
    return this.length;
  }
}
