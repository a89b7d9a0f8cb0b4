/**
 * `node dist/src/runtime/netns/container-main.js` — run by deploy/entrypoint.sh before
 * `rocelab node`: shapes the container's links and waits at the start gate (container.ts).
 * Prints `export START_AT_MONO_NS=…` (and, when the address map names peers by DNS, the
 * resolved `export ADDRESS_MAP=…`) for the entrypoint to eval; everything else on stderr.
 * Bad configuration: one line, exit 2 (the node would refuse it the same way).
 */
import { isConfigError } from '../../config/errors.js';
import { prepareContainer, shellExports } from './container.js';

try {
  const vars = await prepareContainer(process.env, { log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(shellExports(vars));
} catch (err) {
  const msg = isConfigError(err) ? err.message : `internal error: ${(err as Error).message}`;
  process.stderr.write(`rocelab: ${msg}\n`);
  process.exitCode = isConfigError(err) ? 2 : 1;
}
