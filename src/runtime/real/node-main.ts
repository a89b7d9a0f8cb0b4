/**
 * Process entry of a real-runtime node as the launchers start it (`node dist/src/runtime/real/node-main.js`
 * with the environment of docs/realtime.md). `rocelab node` runs the same `runNode`.
 * Exit status: 0 done, 2 bad configuration (one line on stderr), 1 internal error.
 */
import { isConfigError } from '../../config/errors.js';
import { runNode } from './run-node.js';

try {
  await runNode({ env: process.env });
  process.exit(0);
} catch (err) {
  if (isConfigError(err)) {
    const e = err as Error & { describe?: () => string };
    process.stderr.write(`rocelab node: ${typeof e.describe === 'function' ? e.describe() : e.message}\n`);
    process.exit(2);
  }
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`rocelab node: internal error: ${message}\n`);
  process.exit(1);
}
