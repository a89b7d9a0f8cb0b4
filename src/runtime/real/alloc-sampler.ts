/**
 * How many bytes V8 has allocated since the sampler started, sampled over real time: the used
 * heap now, minus at the start, plus what every collection in between freed (v8.GCProfiler: the
 * used heap before and after each collection). V8 itself keeps no allocation counter Node
 * exposes. A bench (`npm run bench -- realtime`) turns it on with ALLOC_SAMPLE_MS and divides
 * the bytes allocated inside its measured windows by the frames it saw forwarded: young garbage
 * per forwarded frame (docs/realtime.md "Pauses"). The profiler is stopped and started again at
 * each sample, since it reports its collections only when stopped and without their times.
 */
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { hostMonotonicNs } from './protocol.js';

/** Samples kept at most (at 50 ms, over 40 minutes). */
const MAX_SAMPLES = 50_000;

export class AllocationSampler {
  private profiler = new GCProfiler();
  private readonly usedAtStart: number;
  private freed = 0;
  /** Flat [host monotonic ns, bytes allocated since the start, ...]. */
  private readonly pts: number[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.usedAtStart = getHeapStatistics().used_heap_size;
    this.profiler.start();
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    // Sampling never keeps a finished node's process alive.
    this.timer.unref();
  }

  private sample(): void {
    for (const s of this.profiler.stop().statistics)
      this.freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
    this.profiler = new GCProfiler();
    this.profiler.start();
    if (this.pts.length >= 2 * MAX_SAMPLES) return;
    this.pts.push(hostMonotonicNs(), getHeapStatistics().used_heap_size - this.usedAtStart + this.freed);
  }

  /** The samples so far, [monoNs, allocatedBytes, ...], with one taken now. */
  samples(): number[] {
    this.sample();
    return [...this.pts];
  }

  close(): void {
    clearInterval(this.timer);
    this.profiler.stop();
  }
}

/**
 * Bytes allocated between two host monotonic instants, from `samples` (AllocationSampler): the
 * difference of the samples nearest each end, linearly interpolated between neighbours.
 */
export function allocatedBetween(samples: readonly number[], fromMonoNs: number, toMonoNs: number): number {
  return allocatedAt(samples, toMonoNs) - allocatedAt(samples, fromMonoNs);
}

function allocatedAt(s: readonly number[], monoNs: number): number {
  const n = s.length / 2;
  if (n === 0) return 0;
  if (monoNs <= s[0]) return s[1];
  for (let i = 1; i < n; i++) {
    const t1 = s[2 * i];
    if (monoNs <= t1) {
      const t0 = s[2 * i - 2];
      const a0 = s[2 * i - 1];
      const a1 = s[2 * i + 1];
      return t1 === t0 ? a1 : a0 + ((a1 - a0) * (monoNs - t0)) / (t1 - t0);
    }
  }
  return s[2 * n - 1];
}
