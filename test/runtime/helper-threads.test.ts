/** deprioritizeHelperThreads: every thread of the process but the main one at nice 19 (Linux). */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deprioritizeHelperThreads } from '../../src/runtime/real/helper-threads.js';

/** Nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(t), Number(fields[16]));
  }
  return out;
}

describe.runIf(process.platform === 'linux')('deprioritizeHelperThreads', () => {
  it('sets every helper thread to nice 19 and leaves the main thread as it was', () => {
    const mainBefore = niceByThread().get(process.pid);
    const set = deprioritizeHelperThreads();
    const after = niceByThread();
    const helpers = [...after.keys()].filter((tid) => tid !== process.pid);
    expect(helpers.length).toBeGreaterThan(0); // V8's platform workers at least
    expect(set).toBe(helpers.length);
    for (const tid of helpers) expect(after.get(tid)).toBe(19);
    expect(after.get(process.pid)).toBe(mainBefore);
  });
});
