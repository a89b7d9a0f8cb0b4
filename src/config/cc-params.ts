/**
 * Check a scenario's algorithm choices and `cc.<algorithm>.<param>` overrides against the
 * registered algorithms (src/cc/). The scenario schema cannot do this itself because each
 * algorithm owns its parameter schema; the CLI and the runtimes call these once the registry is
 * loaded.
 */
import type { CcAlgorithm } from '../cc/types.js';
import { ConfigError, formatPath, suggest } from './errors.js';
import type { Scenario } from './scenario.js';
import { errorMessage, firstIssue } from './zod-format.js';

function unknownAlgorithm(name: string, known: readonly string[]): string {
  const s = suggest(name, known);
  const list = known.length > 0 ? `known: ${known.join(', ')}` : 'no algorithms are registered';
  return `unknown algorithm "${name}" (${s !== undefined ? `did you mean ${s}? ` : ''}${list})`;
}

/** Throw a ConfigError at the first place that names an algorithm not in `known`. */
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
 * Parameters of every algorithm the scenario uses or configures: the algorithm's defaults, then
 * its profile (`cc.<name>.profile`, else its default profile), then the scenario's overrides,
 * parsed by the algorithm's own schema. Unknown parameters and bad values throw ConfigError
 * (`cc.dcqcn.rai: expected a rate like 100Gbps, got "fast"`).
 */
export function resolveCcParams(
  s: Scenario,
  algorithms: readonly CcAlgorithm<unknown>[],
): Record<string, unknown> {
  const byName = new Map(algorithms.map((a) => [a.name, a]));
  checkCcNames(s, [...byName.keys()]);
  const used = new Set<string>([s.defaults.nic.cc, ...Object.keys(s.cc)]);
  for (const o of Object.values(s.hosts)) if (o.cc !== undefined) used.add(o.cc);
  const out: Record<string, unknown> = {};
  for (const name of [...used].sort()) {
    const algo = byName.get(name)!;
    const section = s.cc[name];
    const profiles = (algo.profiles ?? {}) as Record<string, object>;
    const profileName = section?.profile ?? algo.defaultProfile ?? null;
    let base: object = {};
    if (profileName !== null) {
      const p = profiles[profileName];
      if (p === undefined) {
        const known = Object.keys(profiles);
        const hint = suggest(profileName, known);
        throw new ConfigError(
          formatPath(['cc', name, 'profile']),
          `unknown profile "${profileName}" of ${name} (${hint !== undefined ? `did you mean ${hint}? ` : ''}known: ${known.join(', ') || 'none'})`,
        );
      }
      base = p;
    }
    const overrides = section?.params ?? {};
    const shape = (algo.params as { shape?: Record<string, unknown> }).shape;
    if (shape !== undefined) {
      // Non-strict object schemas would drop a misspelt parameter silently.
      for (const key of Object.keys(overrides)) {
        if (!(key in shape)) {
          const hint = suggest(key, Object.keys(shape));
          throw new ConfigError(
            formatPath(['cc', name, key]),
            `unknown parameter of ${name}${hint !== undefined ? ` (did you mean ${hint}?)` : ` (known: ${Object.keys(shape).join(', ')})`}`,
          );
        }
      }
    }
    const parsed = algo.params.safeParse({ ...base, ...overrides }, { error: errorMessage });
    if (!parsed.success) {
      const { path, message } = firstIssue(parsed.error.issues);
      throw new ConfigError(
        formatPath(['cc', name, ...path.map((p) => (typeof p === 'symbol' ? String(p) : p))]),
        message,
      );
    }
    out[name] = parsed.data;
  }
  return out;
}
