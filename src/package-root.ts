/**
 * The directory of rocelab's package.json, found by walking up from this module: the same answer
 * from src/ under vitest and from dist/ under the CLI, whatever the working directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let rootCache: string | undefined;

export function packageRoot(): string {
  if (rootCache !== undefined) return rootCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'rocelab') {
          rootCache = dir;
          return dir;
        }
      } catch {
        // not ours; keep looking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find rocelab package.json');
    dir = up;
  }
}
