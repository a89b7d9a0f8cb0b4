/**
 * Congestion-control algorithms by name. The CLI lists them (`rocelab list`), the config layer
 * validates `cc.<name>.<param>` overrides with `resolveParams`, runtimes hand the result to the
 * NIC (NicConfig.cc / QpSetup.cc), and the NIC looks the hooks up with `getAlgorithm`.
 */
import { z } from 'zod';
import { dcqcn } from './dcqcn/index.js';
import { dcqcnPlus } from './dcqcn-plus/index.js';
import { dctcp } from './dctcp/index.js';
import { dolceRc } from './dolce-rc/index.js';
import { dolceRcPlus } from './dolce-rc-plus/index.js';
import { hpcc } from './hpcc/index.js';
import { mpcc } from './mpcc/index.js';
import { none } from './none/index.js';
import { rcc, rccSender } from './rcc/index.js';
import { srcc } from './srcc/index.js';
import { swift } from './swift/index.js';
import { timely } from './timely/index.js';
import type { CcAlgorithm } from './types.js';

/** Bad algorithm name, profile or parameter. The message is one line naming the problem. */
export class CcConfigError extends Error {
  override name = 'CcConfigError';
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds algorithms of any parameter type
type AnyAlgorithm = CcAlgorithm<any>;

const algorithms = new Map<string, AnyAlgorithm>();

/** Add an algorithm (each algorithm folder's index exports one; built-ins are registered below). */
export function registerAlgorithm<P>(alg: CcAlgorithm<P>): void {
  if (algorithms.has(alg.name)) throw new Error(`congestion control "${alg.name}" registered twice`);
  if (alg.defaultProfile !== undefined && alg.profiles?.[alg.defaultProfile] === undefined)
    throw new Error(
      `congestion control "${alg.name}": default profile "${alg.defaultProfile}" is not defined`,
    );
  algorithms.set(alg.name, alg as AnyAlgorithm);
}

export function hasAlgorithm(name: string): boolean {
  return algorithms.has(name);
}

export function getAlgorithm(name: string): AnyAlgorithm {
  const alg = algorithms.get(name);
  if (alg === undefined)
    throw new CcConfigError(
      `unknown congestion control "${name}" (known: ${[...algorithms.keys()].join(', ')})`,
    );
  return alg;
}

export interface ParamInfo {
  name: string;
  description: string;
  /** Value under the algorithm's default profile (schema default when it has no profiles). */
  default: unknown;
  /** Value under each named profile. */
  byProfile: Record<string, unknown>;
}

export interface AlgorithmInfo {
  name: string;
  summary: string;
  profiles: string[];
  defaultProfile: string | null;
  /** Short names accepted in overrides, alias → parameter. */
  aliases: Record<string, string>;
  params: ParamInfo[];
}

function shapeOf(alg: AnyAlgorithm): Record<string, z.ZodType> {
  return alg.params instanceof z.ZodObject ? (alg.params.shape as Record<string, z.ZodType>) : {};
}

export function listAlgorithms(): AlgorithmInfo[] {
  return [...algorithms.values()].map((alg) => {
    const shape = shapeOf(alg);
    const profiles = Object.keys(alg.profiles ?? {});
    const resolved: Record<string, Record<string, unknown>> = {};
    for (const p of profiles) resolved[p] = resolveParams(alg.name, {}, p);
    const defaults = resolveParams(alg.name, {});
    return {
      name: alg.name,
      summary: alg.summary,
      profiles,
      defaultProfile: alg.defaultProfile ?? null,
      aliases: { ...(alg.aliases ?? {}) },
      params: Object.keys(shape).map((key) => ({
        name: key,
        description: shape[key].description ?? '',
        default: defaults[key],
        byProfile: Object.fromEntries(profiles.map((p) => [p, resolved[p][key]])),
      })),
    };
  });
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v) : String(v);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/**
 * Complete, validated parameters of algorithm `name`: the profile's values (the `profile`
 * argument, or an override key `profile`, or the algorithm's default profile) under the user's
 * overrides. Override keys may be aliases (`rai`); values may carry units (`40Mbps`, `55us`).
 * Idempotent: resolving an already-resolved parameter set returns the same values.
 * Throws CcConfigError with a one-line message naming the bad algorithm/profile/parameter.
 */
export function resolveParams(
  name: string,
  overrides: Record<string, unknown> = {},
  profile?: string,
): Record<string, unknown> {
  const alg = getAlgorithm(name);
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

/** A NicConfig.cc / QpSetup.cc value: the algorithm, the profile used and resolved params. */
export function resolveCc(
  name: string,
  overrides: Record<string, unknown> = {},
  profile?: string,
): { name: string; profile?: string; params: Record<string, unknown> } {
  const alg = getAlgorithm(name);
  const chosen =
    typeof overrides.profile === 'string' ? overrides.profile : (profile ?? alg.defaultProfile ?? undefined);
  const params = resolveParams(name, overrides, profile);
  return chosen === undefined ? { name, params } : { name, profile: chosen, params };
}

registerAlgorithm(none);
registerAlgorithm(dcqcn);
registerAlgorithm(hpcc);
registerAlgorithm(timely);
registerAlgorithm(dctcp);
registerAlgorithm(swift);
registerAlgorithm(dcqcnPlus);
registerAlgorithm(srcc);
registerAlgorithm(mpcc);
registerAlgorithm(rcc);
registerAlgorithm(rccSender);
registerAlgorithm(dolceRc);
registerAlgorithm(dolceRcPlus);
