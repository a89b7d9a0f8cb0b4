/**
 * `node dist/src/runtime/netns/traffic-job-main.js` — the docker testbed's traffic job
 * (traffic-job.ts). Exit 0 when every flow completed, 1 when not, 2 on bad configuration.
 */
import { isConfigError } from '../../config/errors.js';
import { runTrafficJob } from './traffic-job.js';

try {
  const r = await runTrafficJob(process.env, { log: (l) => process.stdout.write(`${l}\n`) });
  process.exitCode = r.ok ? 0 : 1;
} catch (err) {
  const msg = isConfigError(err) ? err.message : `internal error: ${(err as Error).message}`;
  process.stderr.write(`rocelab: ${msg}\n`);
  process.exitCode = isConfigError(err) ? 2 : 1;
}
