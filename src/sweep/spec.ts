/**
 * Sweep files (docs/deploy.md "Sweeps"): a base scenario, overrides for every run, a grid
 * (cartesian product) or a list of points, and seeds. Every point is one `rocelab run`; points
 * are numbered 0…N-1 in a fixed order (grid keys in file order, the last varying fastest, then
 * seeds), which is the index a cluster task receives.
 *
 *   scenario: ../scenarios/incast-8to1.yaml     # relative to the sweep file
 *   runtime: virtual                            # virtual (default) | local | netns
 *   set: { duration: 5ms }                      # applied to every point
 *   grid: { cc: [dcqcn, hpcc], defaults.link.rate: [25Gbps, 100Gbps] }
 *   # or points: [ { cc: dcqcn }, { cc: hpcc, cc.hpcc.eta: 0.9 } ]
 *   seeds: 4                                    # 1..4, or a list [1, 7, 9]
 *
 * Keys other than `cc` are `--set` paths of the scenario.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { listAlgorithms } from '../cc/registry.js';
import { ConfigError, suggest } from '../config/errors.js';
import { loadScenario } from '../config/load.js';

const scalar = z.union([z.string(), z.number(), z.boolean()]);

const sweepSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][-a-z0-9_.]*$/, 'expected lower-case letters, digits, "-", "_", "."')
    .optional(),
  scenario: z.string().min(1),
  runtime: z.enum(['virtual', 'local', 'netns']).default('virtual'),
  set: z.record(z.string(), scalar).default({}),
  grid: z.record(z.string(), z.array(scalar).min(1)).optional(),
  points: z.array(z.record(z.string(), scalar)).min(1).optional(),
  seeds: z.union([z.number().int().min(1).max(100_000), z.array(z.number().int().min(0)).min(1)]).optional(),
});

export interface SweepPoint {
  index: number;
  /** `cc=dcqcn seed=2 defaults.link.rate=25Gbps` */
  label: string;
  /** Directory under the sweep's output, `007-cc=dcqcn_seed=2`. */
  dir: string;
  cc: string | null;
  /** `--set` overrides, base first. */
  sets: string[];
  seed: number | null;
}

export interface Sweep {
  name: string;
  /** The sweep file and the scenario, absolute. */
  file: string;
  scenario: string;
  runtime: 'virtual' | 'local' | 'netns';
  points: SweepPoint[];
}

const MAX_POINTS = 100_000;

function fmt(v: string | number | boolean): string {
  return String(v);
}

export function loadSweep(file: string): Sweep {
  const abs = resolve(file);
  if (!existsSync(abs)) throw new ConfigError('', `no such sweep file: ${file}`, undefined);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(abs, 'utf8'));
  } catch (err) {
    throw new ConfigError('', `${file}: not YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = sweepSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const iss = parsed.error.issues[0];
    const where = iss.path.map(String).join('.');
    throw new ConfigError('', `${file}: ${where === '' ? '' : `${where}: `}${iss.message}`);
  }
  const s = parsed.data;
  if (s.grid !== undefined && s.points !== undefined)
    throw new ConfigError('', `${file}: give either grid or points, not both`);
  const scenario = resolve(dirname(abs), s.scenario);
  if (!existsSync(scenario)) throw new ConfigError('', `${file}: scenario: no such file ${s.scenario}`);

  // Variations: grid → product (last key fastest), points → as listed, neither → one.
  let variations: Record<string, string | number | boolean>[] = [{}];
  if (s.grid !== undefined)
    for (const [k, values] of Object.entries(s.grid))
      variations = variations.flatMap((v) => values.map((x) => ({ ...v, [k]: x })));
  else if (s.points !== undefined) variations = s.points;
  const seeds: (number | null)[] =
    s.seeds === undefined
      ? [null]
      : typeof s.seeds === 'number'
        ? Array.from({ length: s.seeds }, (_, i) => i + 1)
        : s.seeds;
  if (variations.length * seeds.length > MAX_POINTS)
    throw new ConfigError('', `${file}: ${variations.length * seeds.length} points, more than ${MAX_POINTS}`);

  const algorithms = listAlgorithms().map((a) => a.name);
  const base = Object.entries(s.set).map(([k, v]) => `${k}=${fmt(v)}`);
  const points: SweepPoint[] = [];
  for (const v of variations) {
    for (const seed of seeds) {
      const cc = v.cc === undefined ? null : String(v.cc);
      if (cc !== null && !algorithms.includes(cc)) {
        const hint = suggest(cc, algorithms);
        throw new ConfigError(
          '',
          `${file}: unknown algorithm "${cc}"${hint !== undefined ? ` (did you mean ${hint}?)` : ''}`,
        );
      }
      const sets = [
        ...base,
        ...Object.entries(v)
          .filter(([k]) => k !== 'cc')
          .map(([k, x]) => `${k}=${fmt(x)}`),
      ];
      const parts = [
        ...(cc !== null ? [`cc=${cc}`] : []),
        ...(seed !== null ? [`seed=${seed}`] : []),
        ...Object.entries(v)
          .filter(([k]) => k !== 'cc')
          .map(([k, x]) => `${k}=${fmt(x)}`),
      ];
      const index = points.length;
      const label = parts.length > 0 ? parts.join(' ') : 'base';
      const slug = label.replace(/[^A-Za-z0-9.=-]+/g, '_').slice(0, 80);
      points.push({ index, label, dir: `${String(index).padStart(3, '0')}-${slug}`, cc, sets, seed });
    }
  }
  // Every distinct set of overrides must load (bad keys or values fail here, before any run).
  const checked = new Set<string>();
  for (const p of points) {
    const key = p.sets.join('\n');
    if (checked.has(key)) continue;
    checked.add(key);
    try {
      loadScenario(scenario, p.sets);
    } catch (err) {
      if (err instanceof ConfigError || (err as { code?: string }).code === 'ROCELAB_CONFIG')
        throw new ConfigError('', `${file}: point ${p.index} (${p.label}): ${(err as Error).message}`);
      throw err;
    }
  }
  const name = s.name ?? abs.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
  return { name, file: abs, scenario, runtime: s.runtime, points };
}

/** The point index a cluster task runs: ROCELAB_RUN_INDEX, else JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID. */
export function taskIndex(env: Record<string, string | undefined>, count: number): number {
  for (const k of ['ROCELAB_RUN_INDEX', 'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID']) {
    const v = env[k];
    if (v === undefined || v === '') continue;
    const i = Number(v);
    if (!Number.isInteger(i) || i < 0 || i >= count)
      throw new ConfigError(k, `${JSON.stringify(v)} is not a point index 0…${count - 1}`);
    return i;
  }
  throw new ConfigError('', '--task needs ROCELAB_RUN_INDEX, JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID');
}
