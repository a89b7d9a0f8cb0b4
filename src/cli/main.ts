/**
 * Process entry of `rocelab` (bin/rocelab.js imports the compiled dist/src/cli/main.js).
 * The command itself lives in app.ts so tests can run it in-process.
 */
import { main } from './app.js';

// Errors thrown later from timers or sockets of a running experiment still end as one line.
const internal = (err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(
    `rocelab: internal error: ${message.split('\n')[0]} (rerun with ROCELAB_DEBUG=1 for the stack trace)\n`,
  );
  if (process.env.ROCELAB_DEBUG === '1' && err instanceof Error && err.stack !== undefined)
    process.stderr.write(`${err.stack}\n`);
  process.exit(1);
};
process.on('uncaughtException', internal);
process.on('unhandledRejection', internal);

// A closed pipe (`rocelab list | head`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  internal(err);
});

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stderrIsTTY: process.stderr.isTTY === true,
  columns: process.stderr.columns,
});
