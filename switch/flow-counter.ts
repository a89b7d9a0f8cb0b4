/**
 * Per-egress-port active-flow counter (MPCC thesis, Zheng 2024, App. A.1; docs/algorithms/mpcc.md
 * "Signals", active-flow counter): a flow counts while its last data packet entered the port's
 * queue at most `windowNs` ago.
 *
 * With `minBytes` > 0 a flow counts only once more than `minBytes` bytes of it have entered the
 * queue since it was last (re)inserted, i.e. since it appeared or came back after `windowNs` of
 * silence: flows that fit within the threshold (mice) never count, and a flow's first
 * `minBytes` do not either. 0 counts every flow from its first packet (the thesis' counter).
 * `forget` drops a flow at once (the switch calls it at the last packet of a message when asked
 * to), instead of `windowNs` after its last packet.
 *
 * Flows are keyed exactly by (srcIp, dstIp, BTH destQp): one queue pair, whatever UDP source port
 * (entropy) each of its packets carries, so a QP whose packets are sprayed over several paths
 * (docs/switch.md "Entropy") counts once on every port it uses. Without spraying this is the
 * thesis' 4-tuple (docs/algorithms/mpcc.md "Signals"): a QP's source port is fixed and the UDP
 * destination port is always 4791. There are no hash collisions. Expiry is lazy (no timer per flow): entries sit on a list ordered
 * by last-seen time and the stale ones are evicted from its head whenever the port touches or
 * reads the counter. That is deterministic, needs no timer events and costs O(1) amortised.
 * Storage is typed arrays (a chained hash table plus the LRU links), so a packet allocates nothing.
 */

const NIL = -1;

export class ActiveFlowCounter {
  private cap = 0;
  private srcIp = new Uint32Array(0);
  private dstIp = new Uint32Array(0);
  private destQp = new Uint32Array(0);
  private lastSeenNs = new Float64Array(0);
  /** Bytes of the flow that entered the queue since this entry was inserted. */
  private seenBytes = new Float64Array(0);
  private bucketOf = new Int32Array(0);
  /** Next entry in the same bucket, or in the free list. */
  private chain = new Int32Array(0);
  private lruPrev = new Int32Array(0);
  private lruNext = new Int32Array(0);
  private buckets = new Int32Array(0);
  private bucketMask = 0;
  private free = NIL;
  private lruHead = NIL;
  private lruTail = NIL;
  /** Entries in the table (flows seen within the window, counted or not). */
  size = 0;
  /** Entries past the byte threshold: what `count` reports. */
  private counted = 0;

  constructor(
    readonly windowNs: number,
    readonly minBytes = 0,
  ) {
    this.resize(64);
  }

  /** Record a data packet of the flow, `sizeBytes` long, entering the queue at `nowNs`. */
  touch(srcIp: number, dstIp: number, destQp: number, nowNs: number, sizeBytes = 1): void {
    this.evict(nowNs);
    const qp = destQp & 0xffffff;
    const b = this.hash(srcIp, dstIp, qp);
    for (let e = this.buckets[b]; e !== NIL; e = this.chain[e]) {
      if (this.srcIp[e] === srcIp >>> 0 && this.dstIp[e] === dstIp >>> 0 && this.destQp[e] === qp) {
        this.lastSeenNs[e] = nowNs;
        this.addBytes(e, sizeBytes);
        this.moveToTail(e);
        return;
      }
    }
    if (this.free === NIL) this.resize(this.cap * 2);
    const e = this.free;
    this.free = this.chain[e];
    this.srcIp[e] = srcIp;
    this.dstIp[e] = dstIp;
    this.destQp[e] = qp;
    this.lastSeenNs[e] = nowNs;
    this.seenBytes[e] = 0;
    this.addBytes(e, sizeBytes);
    const b2 = this.hash(srcIp, dstIp, qp);
    this.bucketOf[e] = b2;
    this.chain[e] = this.buckets[b2];
    this.buckets[b2] = e;
    this.lruPrev[e] = this.lruTail;
    this.lruNext[e] = NIL;
    if (this.lruTail !== NIL) this.lruNext[this.lruTail] = e;
    else this.lruHead = e;
    this.lruTail = e;
    this.size++;
  }

  /** Drop the flow from the table at once (its message ended), if it is there. */
  forget(srcIp: number, dstIp: number, destQp: number): void {
    const qp = destQp & 0xffffff;
    for (let e = this.buckets[this.hash(srcIp, dstIp, qp)]; e !== NIL; e = this.chain[e]) {
      if (this.srcIp[e] === srcIp >>> 0 && this.dstIp[e] === dstIp >>> 0 && this.destQp[e] === qp) {
        this.remove(e);
        return;
      }
    }
  }

  /** Flows seen within the window ending at `nowNs` (and past the byte threshold). */
  count(nowNs: number): number {
    this.evict(nowNs);
    return this.minBytes > 0 ? this.counted : this.size;
  }

  private addBytes(e: number, sizeBytes: number): void {
    const before = this.seenBytes[e];
    this.seenBytes[e] = before + sizeBytes;
    if (before <= this.minBytes && before + sizeBytes > this.minBytes) this.counted++;
  }

  private evict(nowNs: number): void {
    const oldest = nowNs - this.windowNs;
    while (this.lruHead !== NIL && this.lastSeenNs[this.lruHead] < oldest) this.remove(this.lruHead);
  }

  private remove(e: number): void {
    const p = this.lruPrev[e];
    const n = this.lruNext[e];
    if (p !== NIL) this.lruNext[p] = n;
    else this.lruHead = n;
    if (n !== NIL) this.lruPrev[n] = p;
    else this.lruTail = p;
    const b = this.bucketOf[e];
    if (this.buckets[b] === e) this.buckets[b] = this.chain[e];
    else {
      let k = this.buckets[b];
      while (this.chain[k] !== e) k = this.chain[k];
      this.chain[k] = this.chain[e];
    }
    this.chain[e] = this.free;
    this.free = e;
    this.size--;
    if (this.seenBytes[e] > this.minBytes) this.counted--;
  }

  private moveToTail(e: number): void {
    if (this.lruTail === e) return;
    const p = this.lruPrev[e];
    const n = this.lruNext[e];
    if (p !== NIL) this.lruNext[p] = n;
    else this.lruHead = n;
    this.lruPrev[n] = p;
    this.lruPrev[e] = this.lruTail;
    this.lruNext[e] = NIL;
    this.lruNext[this.lruTail] = e;
    this.lruTail = e;
  }

  private hash(srcIp: number, dstIp: number, destQp: number): number {
    let h = Math.imul(srcIp ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ dstIp ^ (h >>> 15), 0xc2b2ae35);
    h = Math.imul(h ^ destQp ^ (h >>> 13), 0x27d4eb2f);
    h ^= h >>> 16;
    return h & this.bucketMask;
  }

  /** Grow to `cap` entries, keeping live entries and their LRU order. */
  private resize(cap: number): void {
    const old = {
      srcIp: this.srcIp,
      dstIp: this.dstIp,
      destQp: this.destQp,
      lastSeenNs: this.lastSeenNs,
      seenBytes: this.seenBytes,
      lruNext: this.lruNext,
      head: this.lruHead,
    };
    this.cap = cap;
    this.srcIp = new Uint32Array(cap);
    this.dstIp = new Uint32Array(cap);
    this.destQp = new Uint32Array(cap);
    this.lastSeenNs = new Float64Array(cap);
    this.seenBytes = new Float64Array(cap);
    this.bucketOf = new Int32Array(cap);
    this.chain = new Int32Array(cap);
    this.lruPrev = new Int32Array(cap);
    this.lruNext = new Int32Array(cap);
    this.buckets = new Int32Array(cap).fill(NIL);
    this.bucketMask = cap - 1;
    this.lruHead = NIL;
    this.lruTail = NIL;
    let n = 0;
    for (let e = old.head; e !== NIL; e = old.lruNext[e], n++) {
      this.srcIp[n] = old.srcIp[e];
      this.dstIp[n] = old.dstIp[e];
      this.destQp[n] = old.destQp[e];
      this.lastSeenNs[n] = old.lastSeenNs[e];
      this.seenBytes[n] = old.seenBytes[e];
      const b = this.hash(old.srcIp[e], old.dstIp[e], old.destQp[e]);
      this.bucketOf[n] = b;
      this.chain[n] = this.buckets[b];
      this.buckets[b] = n;
      this.lruPrev[n] = n - 1;
      this.lruNext[n] = NIL;
      if (n > 0) this.lruNext[n - 1] = n;
    }
    if (n > 0) {
      this.lruHead = 0;
      this.lruTail = n - 1;
    }
    this.size = n;
    this.free = NIL;
    for (let e = cap - 1; e >= n; e--) {
      this.chain[e] = this.free;
      this.free = e;
    }
  }
}
