/**
 * Time-binned series in emulated nanoseconds: sums per bin (bytes, frame counts) and a queue kept
 * as max, min and integral per bin, so long runs stay small and window statistics stay exact to
 * a bin. Used by the Probe (probe.ts) and by experiments that bin their own quantities.
 */

/** Growable array of numbers indexed by time bin; bins never written read as `fill`. */
export class Bins {
  data: Float64Array;
  length = 0;
  constructor(private readonly fill = 0) {
    this.data = new Float64Array(64).fill(fill);
  }

  ensure(i: number): void {
    if (i < this.data.length) {
      if (i >= this.length) this.length = i + 1;
      return;
    }
    let n = this.data.length;
    while (n <= i) n *= 2;
    const d = new Float64Array(n).fill(this.fill);
    d.set(this.data.subarray(0, this.length));
    this.data = d;
    this.length = i + 1;
  }

  get(i: number): number {
    return i < this.length ? this.data[i] : this.fill;
  }

  add(i: number, v: number): void {
    this.ensure(i);
    this.data[i] += v;
  }

  /** Sum of bins [a, b). */
  sum(a: number, b: number): number {
    let s = 0;
    for (let i = Math.max(0, a); i < b; i++) s += this.get(i);
    return s;
  }

  /** The first `n` bins as a plain array. */
  toArray(n: number): number[] {
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.get(i);
    return out;
  }
}

/** A queue recorded at every change: per bin its max, min and integral (byte·ns). */
export class QueueBins {
  readonly max = new Bins(0);
  readonly min = new Bins(Number.POSITIVE_INFINITY);
  readonly area = new Bins(0);
  private cur = 0;
  private lastNs = 0;
  constructor(readonly binNs: number) {}

  update(tNs: number, bytes: number): void {
    if (bytes === this.cur) return;
    this.carry(tNs);
    this.cur = bytes;
    this.mark(Math.floor(tNs / this.binNs), bytes);
  }

  /** Account the current value up to `tNs` (call once at the end of the run). */
  carry(tNs: number): void {
    const bin = this.binNs;
    let t = this.lastNs;
    while (t < tNs) {
      const b = Math.floor(t / bin);
      const edge = Math.min(tNs, (b + 1) * bin);
      this.mark(b, this.cur);
      this.area.add(b, this.cur * (edge - t));
      t = edge;
    }
    this.lastNs = Math.max(this.lastNs, tNs);
  }

  private mark(b: number, v: number): void {
    this.max.ensure(b);
    this.min.ensure(b);
    if (v > this.max.data[b]) this.max.data[b] = v;
    if (v < this.min.data[b]) this.min.data[b] = v;
  }
}

/** Bins [from, to) covering a time window (edges rounded to the nearest bin). */
export function binRange(binNs: number, fromNs: number, toNs: number): [number, number] {
  return [Math.max(0, Math.round(fromNs / binNs)), Math.max(0, Math.round(toNs / binNs))];
}
