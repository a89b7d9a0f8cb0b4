/**
 * Where a node's garbage comes from (HEAP_SAMPLING_FILE; benches and diagnosis): V8's sampling
 * heap profiler over the node's run, counting the objects already collected too (young garbage
 * is exactly those), written as a `.heapprofile` (Chrome DevTools' format;
 * `scripts/heapprofile-sites.mjs` sums it by allocation site) when the node closes.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/** One sample per this many bytes allocated on average: fine enough for per-frame objects. */
const SAMPLING_INTERVAL_BYTES = 1024;

export class HeapSampling {
  private readonly session = new Session();
  private open = true;

  constructor(private readonly file: string) {
    this.session.connect();
    inspectorPost(this.session, 'HeapProfiler.enable');
    inspectorPost(this.session, 'HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  /** Stop and write the profile (idempotent). */
  close(): void {
    if (!this.open) return;
    this.open = false;
    const { profile } = inspectorPost<{ profile: unknown }>(this.session, 'HeapProfiler.stopSampling');
    writeFileSync(this.file, JSON.stringify(profile));
    this.session.disconnect();
  }
}

/** One inspector command on an in-process session, which answers synchronously (also bench/anatomy.ts). */
export function inspectorPost<T>(session: Session, method: string, params: object = {}): T {
  let out: { err: Error | null; res: T } | undefined;
  session.post(method, params, (err, res) => {
    out = { err, res: res as T };
  });
  if (out === undefined) throw new Error(`inspector ${method}: no synchronous reply`);
  if (out.err !== null) throw out.err;
  return out.res;
}
