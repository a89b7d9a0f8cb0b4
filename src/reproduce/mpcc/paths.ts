/** rocelab's package directory, from src/ under vitest and from dist/ under the CLI. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let rootCache: string | undefined;

export function packageRoot(): string {
  if (rootCache !== undefined) return rootCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'rocelab') {
      rootCache = dir;
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find rocelab package.json');
    dir = up;
  }
}
