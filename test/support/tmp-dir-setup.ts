/**
 * Vitest global setup (vitest.config.ts, vitest.realtime.config.ts): the run's test processes,
 * and the node processes they start (which inherit TMPDIR; the local launcher passes it on), make
 * their temporary files under one directory of this run, removed when the run ends. Tests make
 * scenario, result and log directories with mkdtemp under os.tmpdir() and leave them: a day of
 * CI runs had left some 4 700 of them, 7.8 GB, in /tmp.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'rocelab-tests-'));
  // As /tmp: the netns suite runs the CLI as an unprivileged user on files made here.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(dir, { recursive: true, force: true });
  };
}
