/**
 * A local sweep's pool worker: a long-lived process that runs the points its parent sends, one
 * after another, through the same `runPoint` a cluster task (`rocelab sweep FILE --task`) runs.
 * One process for many points pays Node start-up, module loading and JIT warm-up once instead of
 * once a point (docs/deploy.md "Sweeps").
 *
 * Protocol (IPC): parent → `{ init }` once (the sweep and its output directory), then `{ index }`
 * runs that point and `{ stop: true }` ends the worker; worker → `{ index, ok, error }` a point,
 * and `{ cpuMs }` (its process CPU time, for the benchmark) just before it ends.
 */
import { isConfigError } from '../config/errors.js';
import { runPoint } from './run.js';
import type { Sweep } from './spec.js';

export interface WorkerInit {
  sweep: Sweep;
  out: string;
}
export type ToWorker = { init: WorkerInit } | { index: number } | { stop: true };
export type FromWorker = { index: number; ok: boolean; error: string } | { cpuMs: number };

const send = (m: FromWorker, then?: () => void) => process.send?.(m, undefined, undefined, then);

function describe(err: unknown): string {
  if (isConfigError(err)) return err.describe();
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0];
}

if (process.send === undefined) {
  process.stderr.write('rocelab: sweep worker: must be started by a local sweep (IPC channel missing)\n');
  process.exit(2);
}
let init: WorkerInit | null = null;
// An error thrown later from a timer or socket of a running point ends the worker with one line
// on stderr; the pool fails that point with it and starts a fresh worker for the rest.
process.on('uncaughtException', (err) => {
  process.stderr.write(`rocelab: ${describe(err)}\n`);
  process.exit(1);
});
// Points run strictly one at a time: the next message waits for the running point.
let chain: Promise<void> = Promise.resolve();
process.on('message', (m: ToWorker) => {
  chain = chain.then(async () => {
    if ('init' in m) {
      init = m.init;
      return;
    }
    if ('stop' in m) {
      const cpu = process.cpuUsage();
      send({ cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.disconnect());
      return;
    }
    try {
      if (init === null) throw new Error('sweep worker: a point before init');
      await runPoint(init.sweep, m.index, init.out);
      send({ index: m.index, ok: true, error: '' });
    } catch (err) {
      send({ index: m.index, ok: false, error: describe(err) });
    }
  });
});
