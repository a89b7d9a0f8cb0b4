/**
 * zod issues → our one-line messages. Used for the scenario schema and for algorithm parameter
 * schemas, so both read the same.
 */
import type { z } from 'zod';
import { suggest } from './errors.js';
import { showValue } from './units.js';

type RawIssue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  object: 'a map',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
};

/** Per-parse error map: every zod issue as our one-line style (schema-level messages win). */
export function errorMessage(iss: RawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'required';
      return `expected ${TYPE_NAMES[iss.expected] ?? iss.expected}, got ${showValue(iss.input)}`;
    case 'invalid_value':
      if (iss.values.length === 1) return `expected ${showValue(iss.values[0])}, got ${showValue(iss.input)}`;
      return `expected one of ${iss.values.map(String).join('|')}, got ${showValue(iss.input)}`;
    case 'unrecognized_keys': {
      const shape = (iss.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
      const known = shape !== undefined ? Object.keys(shape) : [];
      const s = suggest(iss.keys[0], known);
      if (s !== undefined) return `unknown key (did you mean ${s}?)`;
      return known.length > 0 ? `unknown key (expected one of ${known.join(', ')})` : 'unknown key';
    }
    case 'invalid_union': {
      const disc = (iss as { discriminator?: string }).discriminator;
      const options = (iss as { options?: unknown[] }).options;
      if (disc !== undefined && options !== undefined) {
        const input = iss.input as Record<string, unknown> | null | undefined;
        if (input === null || typeof input !== 'object' || Array.isArray(input))
          return input === undefined
            ? 'required'
            : `expected a map with a ${disc} key, got ${showValue(input)}`;
        const v = input[disc];
        const list = options.map(String).join('|');
        if (v === undefined) return `required (one of ${list})`;
        const s = typeof v === 'string' ? suggest(v, options.map(String)) : undefined;
        return `expected one of ${list}, got ${showValue(v)}${s !== undefined ? ` (did you mean ${s}?)` : ''}`;
      }
      return undefined;
    }
    case 'too_small':
      if (iss.origin === 'array')
        return `expected at least ${iss.minimum} ${iss.minimum === 1 ? 'entry' : 'entries'}`;
      if (iss.origin === 'string') return 'must not be empty';
      return undefined;
    case 'custom':
      return iss.message;
    default:
      return undefined;
  }
}

export function firstIssue(issues: z.core.$ZodIssue[]): { path: PropertyKey[]; message: string } {
  const iss = issues[0];
  // A bad record key: the key's own schema says what is wrong with it.
  if (iss.code === 'invalid_key' && iss.issues.length > 0)
    return { path: iss.path, message: iss.issues[0].message };
  if (iss.code === 'unrecognized_keys') return { path: [...iss.path, iss.keys[0]], message: iss.message };
  if (iss.code === 'invalid_union' && iss.errors.length > 0) {
    // Plain unions: report the branch that got furthest into the value.
    let best: z.core.$ZodIssue[] | undefined;
    for (const branch of iss.errors) {
      if (branch.length > 0 && (best === undefined || branch[0].path.length > best[0].path.length))
        best = branch;
    }
    if (best !== undefined) {
      const inner = firstIssue(best);
      return { path: [...iss.path, ...inner.path], message: inner.message };
    }
  }
  return { path: iss.path, message: iss.message };
}
