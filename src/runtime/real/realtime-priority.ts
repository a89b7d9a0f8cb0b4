/**
 * A node process's main thread under the kernel's round-robin real-time policy (SCHED_RR,
 * priority 1), so that under wallclock nothing at normal priority keeps it off a core it is
 * ready to run on (docs/realtime.md "Real-time priority").
 *
 * Why: wallclock incast-8to1 at timeScale 2000 in two processes on 2 cores. `perf sched` showed
 * each main thread ready to run but waiting for a core over 2 ms about 33 times a run (a window
 * is 2 ms real there), while one of its own V8 helper threads ran, at nice 19, for 4 ms
 * (helper-threads.ts): under the kernel's fair scheduler, nice is a share of CPU time, not a
 * promise to be preempted. 32 of the 48 event-loop stalls over 2.5 ms of one process had no
 * collection in them. The same runs with the main threads at nice −10 were as late (50-66 late
 * frames per 10⁴ against 50-67). Under SCHED_RR set at process start: 11, 15, 16, 18 and 29
 * against 39, 48, 57, 67 and 73 (five runs each, interleaved); set after the warm-up instead, so
 * that PreciseWake's helper thread stayed at normal priority: 20-31.
 *
 * Only where the node processes do not outnumber the cores (REALTIME_PRIORITY=auto, node.ts):
 * SCHED_RR shares a core between equal priorities in slices of 100 ms, so a node process behind
 * its clock would hold a core that long from another one that has frames due.
 *
 * Threads a thread starts inherit its policy: call this at process start, once V8's worker
 * threads exist (they stay at nice 19) and before PreciseWake's helper starts (it must wake the
 * event loop on time, so it runs under SCHED_RR too). Linux only; the policy comes from
 * util-linux's `chrt`, since Node has no sched_setscheduler, and needs CAP_SYS_NICE (root):
 * without it the run goes on at normal priority and results.json says so.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** SCHED_RR in /proc/<pid>/stat's `policy` field. */
const SCHED_RR = 2;

/** Set SCHED_RR priority 1 on this process's main thread; null when done, else why not (one line). */
export function raiseMainThreadPriority(): string | null {
  if (process.platform !== 'linux') return `not on Linux (${process.platform})`;
  try {
    execFileSync('chrt', ['--rr', '--pid', '1', String(process.pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 5000,
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') return 'chrt (util-linux) is not installed';
    const said = e.stderr?.toString().trim().split('\n').pop();
    return said !== undefined && said !== '' ? said : `chrt: ${e.message}`;
  }
  return mainThreadIsRealtime() ? null : 'chrt succeeded but the policy did not change';
}

/** Whether this process's main thread runs under SCHED_RR now (read back from the kernel). */
export function mainThreadIsRealtime(): boolean {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3,
    // policy field 41.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[41 - 3]) === SCHED_RR;
  } catch {
    return false;
  }
}
