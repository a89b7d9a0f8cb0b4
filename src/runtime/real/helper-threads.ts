/**
 * A node process's helper threads yield the CPU to its main thread.
 *
 * V8 compiles optimized code on worker threads, and a real node keeps compiling after t=0 (code
 * paths the warm-up did not take, deoptimized functions). On a machine with no idle core those
 * threads take the CPU from the main threads of the node processes, which then fall behind their
 * clocks: incast-8to1 under wallclock at timeScale 1000 on 2 cores, 2 processes, first 600 µs
 * emulated, had the 8 V8 worker threads busier than the 2 main threads, and niced workers gave
 * 32 k / 37 k / 58 k late frames against 52 k / 47 k / 48 k (worst 143-328 µs against 175-265 µs).
 * Compilation still runs whenever a core is idle; it just never preempts packet work.
 *
 * Wallclock runs only (run-node.ts): under lockstep there is no deadline to miss, and compiling
 * late only slows the run (incast-8to1 with a process per node: lockstep dilation p50 1 060-1 120
 * with niced helpers, 898-936 without).
 *
 * Linux only (threads are /proc/self/task entries, and setpriority on a thread id sets that
 * thread's nice value); elsewhere nothing happens. Threads started later (PreciseWake's helper,
 * libuv's pool) keep the default priority.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Lowest CPU priority short of SCHED_IDLE. */
const HELPER_NICE = 19;

/** Sets every thread of this process but the main one to nice 19; returns how many it set. */
export function deprioritizeHelperThreads(): number {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let set = 0;
  for (const t of tids) {
    const tid = Number(t);
    if (!Number.isInteger(tid) || tid === process.pid) continue;
    try {
      setPriority(tid, HELPER_NICE);
      set++;
    } catch {
      // a thread that exited meanwhile, or no permission: it keeps its priority
    }
  }
  return set;
}
