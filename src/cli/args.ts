/**
 * Flag parsing shared by the commands: node:util parseArgs in strict mode, its errors turned
 * into one-line UsageErrors (exit 2, docs/cli.md "Exit status and errors").
 */
import { parseArgs } from 'node:util';
import { suggest } from '../config/errors.js';

/** Bad input: the dispatcher prints `rocelab: <message>` and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Flags = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>;
export type ArgValues = Record<string, string | boolean | string[] | undefined>;

export const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

export function oneLine(s: string): string {
  return s.split('\n')[0].trim();
}

export function parseCommandArgs(
  command: string,
  options: Flags,
  args: readonly string[],
): { values: ArgValues; positionals: string[] } {
  try {
    const r = parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
    return { values: r.values as ArgValues, positionals: r.positionals };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const flag = /'(-{1,2}[^' ]+)/.exec(e.message)?.[1];
    switch (e.code) {
      case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
        const name = flag?.replace(/^-+/, '') ?? '';
        const s = suggest(name, Object.keys(options));
        throw new UsageError(
          `unknown option ${flag ?? ''} for ${command}${s !== undefined ? ` (did you mean --${s}?)` : ''} (see rocelab ${command} --help)`,
        );
      }
      case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
        if (/argument missing/.test(e.message)) throw new UsageError(`${flag ?? 'option'} needs a value`);
        throw new UsageError(`${flag ?? 'option'} does not take a value`);
      default:
        throw new UsageError(oneLine(e.message));
    }
  }
}

export function noExtraArgs(command: string, positionals: string[], allowed: number): void {
  if (positionals.length > allowed)
    throw new UsageError(
      `unexpected argument "${positionals[allowed]}" for ${command} (see rocelab ${command} --help)`,
    );
}

/** Writes `text` with a trailing newline. */
export function println(io: { stdout(text: string): void }, text: string): void {
  io.stdout(text.endsWith('\n') ? text : `${text}\n`);
}
