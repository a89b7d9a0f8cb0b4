/**
 * The receiver's last-hop test B_R ≥ η·C·T_s (RCC paper Alg. 1 line 10). B_R counts the wire
 * bytes of every data packet received, whatever its QP.
 *
 * `literal`: bytes whose arrival lies in (now − T_s, now]. `busy` [OURS]: the same once the
 * current busy period is at least T_s old; before that, the rate since the busy period began
 * (bytes after its first packet over the time since that packet), so an incast onto an idle
 * receiver is seen as last-hop congestion at once instead of after T_s (P5 in docs/algorithms/rcc.md).
 * `recent` [OURS]: `busy`, or the last `recentPackets` + 1 arrivals came at ≥ η·C, i.e. the
 * very packets whose delays eq. (1) just counted arrived back to back: a last-hop queue that
 * builds inside a busy period (a flow joining a receiver that was already receiving) is seen at
 * once instead of after T_s.
 */

export type RxEstimatorMode = 'busy' | 'literal' | 'recent';

export class RxRateEstimator {
  /** Arrival times and sizes of the packets in the trailing window, as a growable ring. */
  private times = new Float64Array(64);
  private sizes = new Float64Array(64);
  /** The destination QP of each packet (−1: not given). */
  private qps = new Int32Array(64);
  private head = 0;
  private count = 0;
  private windowBytes = 0;
  private busyStartNs = Number.NEGATIVE_INFINITY;
  private busyBytes = 0;
  private busyPackets = 0;
  private lastRxNs = Number.NEGATIVE_INFINITY;

  /**
   * @param sampleNs T_s, the sample duration.
   * @param fullBytesPerNs η·C in bytes per ns: the rate at which the last hop counts as full.
   */
  constructor(
    readonly sampleNs: number,
    readonly fullBytesPerNs: number,
    readonly mode: RxEstimatorMode,
  ) {}

  onBytes(nowNs: number, bytes: number, qp = -1): void {
    if (this.busyPackets === 0 || nowNs - this.lastRxNs > this.sampleNs) {
      this.busyStartNs = nowNs;
      this.busyBytes = 0;
      this.busyPackets = 1;
    } else {
      this.busyBytes += bytes;
      this.busyPackets++;
    }
    this.lastRxNs = nowNs;
    this.evict(nowNs);
    if (this.count === this.times.length) this.grow();
    const i = (this.head + this.count) % this.times.length;
    this.times[i] = nowNs;
    this.sizes[i] = bytes;
    this.qps[i] = qp;
    this.count++;
    this.windowBytes += bytes;
  }

  /** B_R: bytes received in (now − T_s, now]. */
  trailingBytes(nowNs: number): number {
    this.evict(nowNs);
    return this.windowBytes;
  }

  lastHopFull(nowNs: number, recentPackets = 0): boolean {
    if (this.mode !== 'literal' && nowNs - this.busyStartNs < this.sampleNs) {
      if (this.busyPackets < 2) return false;
      if (this.busyBytes >= this.fullBytesPerNs * (nowNs - this.busyStartNs)) return true;
    } else if (this.trailingBytes(nowNs) >= this.fullBytesPerNs * this.sampleNs) {
      return true;
    }
    return this.mode === 'recent' && recentPackets > 0 && this.recentFull(recentPackets);
  }

  /**
   * The last-hop test for a delay sample (pidLastHop hold): B_R over the last round, or, under
   * `recent`, the last `k` + 1 arrivals came at ≥ η·C *and belong to more than one QP*. Packets of
   * several flows arriving back to back at line rate left one queue together, the last hop's;
   * a back-to-back run of one flow's own packets only says it was queued somewhere upstream.
   */
  lastHopShared(nowNs: number, k: number): boolean {
    if (this.lastHopFull(nowNs, 0)) return true;
    return this.mode === 'recent' && k > 0 && this.recentFull(k) && this.recentMixed(k);
  }

  private recentMixed(k: number): boolean {
    const cap = this.times.length;
    const last = (this.head + this.count - 1) % cap;
    const qp = this.qps[last];
    for (let j = 1; j <= k; j++) if (this.qps[(last - j + cap) % cap] !== qp) return true;
    return false;
  }

  /** The last `k` + 1 arrivals in the window: bytes after the first of them over their span ≥ η·C. */
  private recentFull(k: number): boolean {
    if (this.count < k + 1) return false;
    const cap = this.times.length;
    const last = (this.head + this.count - 1) % cap;
    const first = (this.head + this.count - 1 - k) % cap;
    let bytes = 0;
    for (let j = 0; j < k; j++) bytes += this.sizes[(last - j + cap) % cap];
    // Arrivals handled at one instant (a batch after the host stalled, in real time) came faster
    // than any rate: the span is 0 and the test holds.
    const spanNs = this.times[last] - this.times[first];
    return bytes >= this.fullBytesPerNs * spanNs;
  }

  private evict(nowNs: number): void {
    const edge = nowNs - this.sampleNs;
    const cap = this.times.length;
    while (this.count > 0 && this.times[this.head] <= edge) {
      this.windowBytes -= this.sizes[this.head];
      this.head = (this.head + 1) % cap;
      this.count--;
    }
    // Float sums of many adds and subtracts drift; an empty window is exactly zero.
    if (this.count === 0) this.windowBytes = 0;
  }

  private grow(): void {
    const cap = this.times.length;
    const times = new Float64Array(cap * 2);
    const sizes = new Float64Array(cap * 2);
    const qps = new Int32Array(cap * 2);
    for (let k = 0; k < this.count; k++) {
      times[k] = this.times[(this.head + k) % cap];
      sizes[k] = this.sizes[(this.head + k) % cap];
      qps[k] = this.qps[(this.head + k) % cap];
    }
    this.times = times;
    this.sizes = sizes;
    this.qps = qps;
    this.head = 0;
  }
}
