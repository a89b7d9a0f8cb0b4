/**
 * Whether the kernel lets this test's user run a program under SCHED_RR: its own answer, through
 * util-linux's chrt (CAP_SYS_NICE, or an RLIMIT_RTPRIO above 0), independent of the code under test.
 */
import { spawnSync } from 'node:child_process';

export function kernelAllowsRealtimePriority(): boolean {
  return (
    process.platform === 'linux' && spawnSync('chrt', ['--rr', '1', 'true'], { stdio: 'ignore' }).status === 0
  );
}
