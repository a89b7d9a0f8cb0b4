/**
 * `node dist/src/runtime/netns/container-main.js` — run by deploy/entrypoint.sh before
 * `rocelab node`: shapes the container's links and waits at the start gate (container.ts).
 * Prints `export START_AT_MONO_NS=…` for the entrypoint to eval; everything else on stderr.
 * Bad configuration: one line, exit 2 (the node would refuse it the same way).
 */
import { isConfigError } from '../../config/errors.js';
import { prepareContainerNode } from './container.js';

try {
  const t0 = await prepareContainerNode(process.env, { log: (l) => process.stderr.write(`${l}\n`) });
  if (t0 !== null) process.stdout.write(`export START_AT_MONO_NS=${t0}\n`);
} catch (err) {
  const msg = isConfigError(err) ? err.message : `internal error: ${(err as Error).message}`;
  process.stderr.write(`rocelab: ${msg}\n`);
  process.exitCode = isConfigError(err) ? 2 : 1;
}
