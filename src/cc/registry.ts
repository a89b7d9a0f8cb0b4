/**
 * Congestion-control algorithms by name: the one place that lists them (one `registerAlgorithm`
 * line per algorithm, below). The CLI lists them (`rocelab list`), the config layer validates
 * `cc.<name>.<param>` overrides with `resolveParams`, and the run setup hands the resolved
 * algorithm object to the NIC (NicConfig.cc / QpSetup.cc, from `resolveCc`) and asks it for its
 * switch side (CcAlgorithm.cp). Firmware never looks an algorithm up by name. docs/cc-api.md.
 */
import { dcqcn } from './dcqcn/index.js';
import { dcqcnPlus } from './dcqcn-plus/index.js';
import { dctcp } from './dctcp/index.js';
import { dolceRc } from './dolce-rc/index.js';
import { dolceRcPlus } from './dolce-rc-plus/index.js';
import { hpcc } from './hpcc/index.js';
import { mpcc } from './mpcc/index.js';
import { none } from './none/index.js';
import { nscc } from './nscc/index.js';
import { rcc, rccSender } from './rcc/index.js';
import {
  type AnyAlgorithm,
  CcConfigError,
  type ResolvedCc,
  resolveAlgorithm,
  resolveAlgorithmParams,
  shapeOf,
} from './resolve.js';
import { srcc } from './srcc/index.js';
import { swift } from './swift/index.js';
import { timely } from './timely/index.js';
import type { CcAlgorithm } from './types.js';

export { CcConfigError, type ResolvedCc } from './resolve.js';

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
  return resolveAlgorithmParams(getAlgorithm(name), overrides, profile);
}

/** A NicConfig.cc / QpSetup.cc value: the algorithm object, the profile used and resolved params. */
export function resolveCc(
  name: string,
  overrides: Record<string, unknown> = {},
  profile?: string,
): ResolvedCc {
  return resolveAlgorithm(getAlgorithm(name), overrides, profile);
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
registerAlgorithm(nscc);
