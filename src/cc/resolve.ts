/**
 * Parameters of an algorithm object: profile under the user's overrides, validated by its zod
 * schema. Works on the object itself, not on a name, so the NIC can re-resolve the parameters it
 * is handed without the registry (the registry's `resolveParams` looks the name up and calls this).
 */
import { z } from 'zod';
import type { CcAlgorithm } from './types.js';

/** Bad algorithm name, profile or parameter. The message is one line naming the problem. */
export class CcConfigError extends Error {
  override name = 'CcConfigError';
}

// biome-ignore lint/suspicious/noExplicitAny: algorithms of any parameter type
export type AnyAlgorithm = CcAlgorithm<any>;

/**
 * An algorithm with its resolved parameters: NicConfig.cc / QpSetup.cc (nic/api.ts CcSpec).
 * `name` is `algorithm.name`, kept for results and messages.
 */
export interface ResolvedCc {
  name: string;
  algorithm: AnyAlgorithm;
  profile?: string;
  params: Record<string, unknown>;
}

export function shapeOf(alg: AnyAlgorithm): Record<string, z.ZodType> {
  return alg.params instanceof z.ZodObject ? (alg.params.shape as Record<string, z.ZodType>) : {};
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * Complete, validated parameters of `alg`: the profile's values (the `profile` argument, or an
 * override key `profile`, or the algorithm's default profile) under the user's overrides.
 * Override keys may be aliases (`rai`); values may carry units (`40Mbps`, `55us`).
 * Idempotent: resolving an already-resolved parameter set returns the same values.
 * Throws CcConfigError with a one-line message naming the bad profile/parameter.
 */
export function resolveAlgorithmParams(
  alg: AnyAlgorithm,
  overrides: Record<string, unknown> = {},
  profile?: string,
): Record<string, unknown> {
  const name = alg.name;
  const shape = shapeOf(alg);
  const known = Object.keys(shape);
  const canonical: Record<string, unknown> = {};
  let chosen = profile;
  for (const [key, value] of Object.entries(overrides)) {
    if (key === 'profile') {
      chosen = String(value);
      continue;
    }
    const target = alg.aliases?.[key] ?? key;
    if (!(target in shape))
      throw new CcConfigError(
        `cc ${name}: unknown parameter "${key}" (known: ${known.length > 0 ? known.join(', ') : 'none'})`,
      );
    if (value !== undefined) canonical[target] = value;
  }
  chosen ??= alg.defaultProfile;
  let base: Record<string, unknown> = {};
  if (chosen !== undefined) {
    const p = alg.profiles?.[chosen];
    if (p === undefined) {
      const names = Object.keys(alg.profiles ?? {});
      throw new CcConfigError(
        `cc ${name}: unknown profile "${chosen}" (profiles: ${names.length > 0 ? names.join(', ') : 'none'})`,
      );
    }
    base = p as Record<string, unknown>;
  }
  const input = { ...base, ...canonical };
  const r = alg.params.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const key = issue.path.map(String).join('.');
    throw new CcConfigError(
      `cc ${name}: parameter "${key}": ${issue.message}` + (key in input ? ` (got ${show(input[key])})` : ''),
    );
  }
  return r.data as Record<string, unknown>;
}

/** `alg` with its resolved parameters and the profile they came from. */
export function resolveAlgorithm(
  alg: AnyAlgorithm,
  overrides: Record<string, unknown> = {},
  profile?: string,
): ResolvedCc {
  const chosen =
    typeof overrides.profile === 'string' ? overrides.profile : (profile ?? alg.defaultProfile ?? undefined);
  const params = resolveAlgorithmParams(alg, overrides, profile);
  return chosen === undefined
    ? { name: alg.name, algorithm: alg, params }
    : { name: alg.name, algorithm: alg, profile: chosen, params };
}
