import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type CliIo, main } from '../../src/cli/app.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/** Every shipped scenario (scenarios/**, deploy/scenarios/**), relative to the repository. */
export function shippedScenarios(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.yaml')) out.push(relative(ROOT, p));
    }
  };
  walk(join(ROOT, 'scenarios'));
  walk(join(ROOT, 'deploy', 'scenarios'));
  return out.sort();
}

/** `rocelab argv` in-process, its output captured; `terminal` fields (stderrIsTTY, columns) as given. */
export async function cli(argv: string[], cwd = ROOT, terminal: Pick<CliIo, 'stderrIsTTY' | 'columns'> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    cwd,
    ...terminal,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
