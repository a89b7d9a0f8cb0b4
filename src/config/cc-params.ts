/**
 * Check a scenario's algorithm choices and `cc.<algorithm>.<param>` overrides against the
 * congestion-control registry (src/cc/registry.ts). The scenario schema cannot do this itself
 * because each algorithm owns its parameter schema (with aliases and profiles); the CLI calls
 * this once the registry is loaded, so a typo exits 2 with the key that holds it.
 */
import { ConfigError, formatPath, suggest } from './errors.js';
import type { Scenario } from './scenario.js';

/** The part of the registry this needs (src/cc/registry.ts provides it). */
export interface CcRegistryLike {
  /** Registered algorithm names. */
  names: readonly string[];
  /**
   * Complete parameters of `name` under `profile` (or its default profile) and `overrides`;
   * throws with a one-line message on an unknown profile/parameter or a bad value.
   */
  resolveParams(name: string, overrides: Record<string, unknown>, profile?: string): Record<string, unknown>;
}

function unknownAlgorithm(name: string, known: readonly string[]): string {
  const s = suggest(name, known);
  const list = known.length > 0 ? `known: ${known.join(', ')}` : 'no algorithms are registered';
  return `unknown algorithm "${name}" (${s !== undefined ? `did you mean ${s}? ` : ''}${list})`;
}

/** Throw a ConfigError at the first key that names an algorithm not in `known`. */
export function checkCcNames(s: Scenario, known: readonly string[]): void {
  const set = new Set(known);
  if (!set.has(s.defaults.nic.cc))
    throw new ConfigError('defaults.nic.cc', unknownAlgorithm(s.defaults.nic.cc, known));
  for (const [h, o] of Object.entries(s.hosts)) {
    if (o.cc !== undefined && !set.has(o.cc))
      throw new ConfigError(formatPath(['hosts', h, 'cc']), unknownAlgorithm(o.cc, known));
  }
  for (const name of Object.keys(s.cc)) {
    if (!set.has(name)) throw new ConfigError(formatPath(['cc', name]), unknownAlgorithm(name, known));
  }
}

/**
 * Resolved parameters of every algorithm the scenario runs or configures. Errors become
 * ConfigError at `cc.<name>` (the registry's message, minus its own `cc <name>: ` prefix).
 */
export function resolveCcParams(
  s: Scenario,
  registry: CcRegistryLike,
): Record<string, Record<string, unknown>> {
  checkCcNames(s, registry.names);
  const used = new Set<string>([s.defaults.nic.cc, ...Object.keys(s.cc)]);
  for (const o of Object.values(s.hosts)) if (o.cc !== undefined) used.add(o.cc);
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of [...used].sort()) {
    const section = s.cc[name];
    try {
      out[name] = registry.resolveParams(name, section?.params ?? {}, section?.profile ?? undefined);
    } catch (err) {
      const msg = (err instanceof Error ? err.message : String(err)).split('\n')[0];
      const detail = msg.startsWith(`cc ${name}: `) ? msg.slice(`cc ${name}: `.length) : msg;
      throw new ConfigError(formatPath(['cc', name]), detail);
    }
  }
  return out;
}
