/**
 * The `rocelab` command (docs/cli.md) as a function of (argv, io) → exit status, so tests run it
 * in-process; `main.ts` is the process entry. One file a command under src/cli/; this one picks
 * the command and turns what it throws into the exit status:
 * 0 ok; 2 bad input (unknown command, flag, runtime or algorithm, a missing or invalid scenario),
 * always exactly one line on stderr and never a stack trace; 3 a real-time run that did not keep
 * up; 1 a run that failed or an unexpected internal error (one line, plus the stack with
 * ROCELAB_DEBUG=1).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConfigError, isConfigError, suggest } from '../config/errors.js';
import { packageRoot } from '../package-root.js';
import { oneLine, UsageError } from './args.js';
import { HELP } from './help.js';
import type { CliIo } from './io.js';

export type { AlgorithmListing, CliDeps, CliIo, CliRegistry } from './io.js';

type Command = (argv: readonly string[], io: CliIo) => number | Promise<number>;

// Loaded when chosen: `rocelab node`, started once a node of every real run, loads only its own.
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./run.js')).runCommand,
  compare: async () => (await import('./compare.js')).compareCommand,
  reproduce: async () => (await import('./reproduce.js')).reproduceCommand,
  list: async () => (await import('./list.js')).listCommand,
  node: async () => (await import('./node.js')).nodeCommand,
  deploy: async () => (await import('./deploy.js')).deployCommand,
  sweep: async () => (await import('./sweep.js')).sweepCommand,
  help: async () => (await import('./help.js')).helpCommand,
};

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const fail = (line: string) => io.stderr(`rocelab: ${line}\n`);
  try {
    const first = argv[0];
    if (first === undefined) throw new UsageError('no command given (try rocelab --help)');
    if (first === '--help' || first === '-h') {
      io.stdout(HELP);
      return 0;
    }
    if (first === '--version' || first === '-V' || first === '-v') {
      io.stdout(`${packageVersion()}\n`);
      return 0;
    }
    if (first.startsWith('-'))
      throw new UsageError(`unknown option ${first.split('=')[0]} (see rocelab --help)`);
    if (!Object.hasOwn(COMMANDS, first)) {
      const s = suggest(first, Object.keys(COMMANDS));
      throw new UsageError(
        `unknown command "${first}"${s !== undefined ? ` (did you mean ${s}?)` : ''}; commands: ${Object.keys(COMMANDS).join(', ')}`,
      );
    }
    const command = await COMMANDS[first]();
    return await command(argv.slice(1), io);
  } catch (err) {
    if (err instanceof UsageError) {
      fail(err.message);
      return 2;
    }
    if (isConfigError(err)) {
      const e = err as ConfigError;
      fail(typeof e.describe === 'function' ? e.describe() : e.message);
      return 2;
    }
    if (isBadInputError(err)) {
      fail(oneLine((err as Error).message));
      return 2;
    }
    // A real run that could not give a right answer: one line, and the status says which kind.
    const errName = (err as { name?: unknown } | null)?.name;
    if (errName === 'LateRun') {
      fail(oneLine((err as Error).message));
      return 3;
    }
    if (errName === 'RunFailed') {
      fail(oneLine((err as Error).message));
      return 1;
    }
    const message = err instanceof Error ? err.message : String(err);
    fail(`internal error: ${oneLine(message)} (rerun with ROCELAB_DEBUG=1 for the stack trace)`);
    if (io.env.ROCELAB_DEBUG === '1' && err instanceof Error && err.stack !== undefined)
      io.stderr(`${err.stack}\n`);
    return 1;
  }
}

/** Input errors of other modules (topology builder, cc registry, workload) that escaped wrapping. */
function isBadInputError(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'TopologyError' || name === 'CcConfigError' || name === 'WorkloadError';
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
