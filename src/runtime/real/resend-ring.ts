/**
 * What an output link keeps for overlay retransmission (docs/realtime.md "Overlay
 * retransmission"): the bytes of its last sequenced datagrams, until the peer acknowledges them,
 * copied into one byte ring per link.
 *
 * A Buffer per datagram held until the ack (20 ms real, or more) outlived young collections and
 * was promoted, and every one of them was also an ArrayBuffer whose backing store V8 counts as
 * young external memory: a busy switch node collected every 32 MB of them ("external memory
 * pressure"), and its old generation filled with dead Buffers that full collections then compacted.
 * Here a datagram is a copy into a buffer allocated once (it grows, by doubling, only when the
 * unacknowledged bytes do not fit) and the socket sends a view of it.
 *
 * The socket may still hold a view when its record is released: a send the kernel did not take
 * at once waits in libuv's queue. Every send has a ticket (the node's count of sends issued before
 * it); sends complete in issue order (libuv queues a socket's sends in order and tries a send at
 * once only while that queue is empty; peers are IPv4 literals, so no send waits on a name lookup:
 * node.ts literalFirstLookup), so ticket t is done once more than t sends completed.
 * Bytes of a released record whose last send is not done are not written again until it is.
 */
export class ResendRing {
  private readonly mask: number;
  /** Per sequence slot: the sequence kept there (−1: none), its bytes, and its last send's ticket. */
  private readonly slotSeq: Float64Array;
  private readonly slotOff: Int32Array;
  private readonly slotLen: Int32Array;
  private readonly slotTicket: Float64Array;
  private bytes: Buffer | null = null;
  /** Where the next datagram goes. */
  private head = 0;
  /** The oldest sequence that may still be kept, and one past the newest recorded. */
  private tailSeq = 0;
  private endSeq = 0;
  /** Records kept. */
  private kept = 0;
  /** Byte ranges of released records a pending send still reads: offset, length, ticket. */
  private busy: number[] = [];
  /** Times the ring grew (each a copy of what it keeps). */
  grows = 0;

  /** `slots` (a power of two): how many of the last datagrams are kept at most. */
  constructor(
    readonly slots: number,
    private readonly initialBytes = 64 * 1024,
  ) {
    if (!(slots > 0 && (slots & (slots - 1)) === 0))
      throw new RangeError(`slots ${slots} is not a power of two`);
    this.mask = slots - 1;
    this.slotSeq = new Float64Array(slots).fill(-1);
    this.slotOff = new Int32Array(slots);
    this.slotLen = new Int32Array(slots);
    this.slotTicket = new Float64Array(slots).fill(-1);
  }

  /** Bytes allocated for the ring. */
  get capacityBytes(): number {
    return this.bytes?.length ?? 0;
  }

  /** Records kept. */
  get size(): number {
    return this.kept;
  }

  /**
   * Keeps the first `n` bytes of `src` as sequence `seq`'s datagram (sequences come in increasing
   * order, gaps allowed), dropping the record `slots` sequences older; `done`: sends completed.
   */
  record(seq: number, src: Uint8Array, n: number, done: number): void {
    const slot = seq & this.mask;
    const old = this.slotSeq[slot];
    // The same slot `slots` sequences ago: it and everything older leave (the last `slots` are kept).
    if (old >= 0) this.dropThrough(old, done);
    if (this.kept === 0) {
      this.tailSeq = seq;
      if (this.busy.length === 0) this.head = 0;
    }
    const at = this.place(n, done);
    const bytes = this.bytes!;
    if (src.length === n) bytes.set(src, at);
    else bytes.set(src.subarray(0, n), at);
    this.slotSeq[slot] = seq;
    this.slotOff[slot] = at;
    this.slotLen[slot] = n;
    this.slotTicket[slot] = -1;
    this.head = at + n;
    this.endSeq = (seq + 1) >>> 0;
    this.kept++;
  }

  /** A view of sequence `seq`'s datagram (for the socket), or null when it is not kept. */
  view(seq: number): Buffer | null {
    const slot = seq & this.mask;
    if (this.slotSeq[slot] !== seq) return null;
    const off = this.slotOff[slot];
    return this.bytes!.subarray(off, off + this.slotLen[slot]);
  }

  /** Sequence `seq`'s datagram was handed to the socket as send `ticket`. */
  sent(seq: number, ticket: number): void {
    const slot = seq & this.mask;
    if (this.slotSeq[slot] === seq) this.slotTicket[slot] = ticket;
  }

  /** The peer has every sequence before `ackSeq`: those records go. */
  releaseBefore(ackSeq: number, done: number): void {
    let s = this.tailSeq;
    // Nothing kept is older than `slots` before the newest, and acks never pass the newest.
    if (((ackSeq - s) | 0) > this.slots) s = (ackSeq - this.slots) >>> 0;
    for (let n = 0; this.kept > 0 && s !== ackSeq && n < this.slots; n++) {
      this.forget(s, done);
      s = (s + 1) >>> 0;
    }
    if (this.kept === 0) this.tailSeq = this.endSeq;
    else if (((ackSeq - this.tailSeq) | 0) > 0) this.tailSeq = ackSeq;
  }

  /** Drops every record from the oldest through sequence `last`. */
  private dropThrough(last: number, done: number): void {
    let s = this.tailSeq;
    for (let n = 0; this.kept > 0 && n < this.slots; n++) {
      this.forget(s, done);
      if (s === last) break;
      s = (s + 1) >>> 0;
    }
    this.tailSeq = (last + 1) >>> 0;
  }

  private forget(seq: number, done: number): void {
    const slot = seq & this.mask;
    if (this.slotSeq[slot] !== seq) return;
    const ticket = this.slotTicket[slot];
    if (ticket >= done) this.busy.push(this.slotOff[slot], this.slotLen[slot], ticket);
    this.slotSeq[slot] = -1;
    this.kept--;
  }

  /** Offset of the oldest kept record's bytes (kept > 0). */
  private tailOffset(): number {
    let s = this.tailSeq;
    while (this.slotSeq[s & this.mask] !== s) s = (s + 1) >>> 0;
    this.tailSeq = s;
    return this.slotOff[s & this.mask];
  }

  /**
   * Where `n` bytes go: after the newest record, or from the start when they do not fit before
   * the end, never over a kept record or bytes a pending send reads; the ring grows otherwise.
   */
  private place(n: number, done: number): number {
    if (this.busy.length > 0) this.pruneBusy(done);
    for (;;) {
      const bytes = this.bytes;
      if (bytes !== null) {
        const cap = bytes.length;
        const head = this.head;
        let at = -1;
        if (this.kept === 0) at = head + n <= cap ? head : 0;
        else {
          const t = this.tailOffset();
          if (t < head) at = head + n <= cap ? head : n <= t ? 0 : -1;
          else if (t > head) at = head + n <= t ? head : -1;
        }
        if (at >= 0 && at + n <= cap && !this.overlapsBusy(at, n)) return at;
      }
      this.grow(n);
    }
  }

  private pruneBusy(done: number): void {
    const b = this.busy;
    let w = 0;
    for (let r = 0; r < b.length; r += 3) {
      if (b[r + 2] < done) continue;
      b[w] = b[r];
      b[w + 1] = b[r + 1];
      b[w + 2] = b[r + 2];
      w += 3;
    }
    b.length = w;
  }

  private overlapsBusy(at: number, n: number): boolean {
    const b = this.busy;
    for (let r = 0; r < b.length; r += 3) if (at < b[r] + b[r + 1] && b[r] < at + n) return true;
    return false;
  }

  /**
   * A buffer twice as large (at least the kept bytes and `n` more), the kept records copied to its
   * start in order. Pending sends keep their views of the old one alive, so nothing is busy here.
   */
  private grow(n: number): void {
    const old = this.bytes;
    let keptBytes = 0;
    if (old !== null && this.kept > 0) {
      for (let s = this.tailSeq, left = this.kept; left > 0; s = (s + 1) >>> 0) {
        const slot = s & this.mask;
        if (this.slotSeq[slot] !== s) continue;
        keptBytes += this.slotLen[slot];
        left--;
      }
    }
    let cap = Math.max(this.initialBytes, old === null ? 0 : old.length * 2);
    while (cap < 2 * (keptBytes + n)) cap *= 2;
    const bytes = Buffer.allocUnsafeSlow(cap);
    let at = 0;
    if (old !== null) {
      for (let s = this.tailSeq, left = this.kept; left > 0; s = (s + 1) >>> 0) {
        const slot = s & this.mask;
        if (this.slotSeq[slot] !== s) continue;
        const off = this.slotOff[slot];
        const len = this.slotLen[slot];
        old.copy(bytes, at, off, off + len);
        this.slotOff[slot] = at;
        at += len;
        left--;
      }
      this.grows++;
    }
    this.bytes = bytes;
    this.head = at;
    this.busy.length = 0;
  }
}
