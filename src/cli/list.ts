/** `rocelab list [--json]`: the registered algorithms with their parameters, and the shipped scenarios. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isConfigError } from '../config/errors.js';
import { loadScenario } from '../config/load.js';
import { formatDuration, formatRate, formatSize } from '../config/units.js';
import { packageRoot } from '../package-root.js';
import { HELP_FLAG, noExtraArgs, oneLine, parseCommandArgs, println } from './args.js';
import { type CliIo, registryOf } from './io.js';

export const LIST_HELP = `Usage: rocelab list [--json]

Registered congestion-control algorithms with their parameters and defaults, and the shipped
scenarios (scenarios/**/*.yaml).
`;

/** Format a parameter default by the unit its name carries (rateAiBps, periodNs, …Bytes). */
function formatParam(name: string, v: unknown): string {
  if (typeof v === 'number' && Number.isFinite(v)) {
    if (/Bps$/.test(name)) return formatRate(v);
    if (/Ns$/.test(name)) return formatDuration(v);
    if (/Bytes$/.test(name)) return formatSize(v);
    return String(Number(v.toPrecision(6)));
  }
  if (v === undefined) return '—';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export async function listCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('list', { json: { type: 'boolean' }, ...HELP_FLAG }, argv);
  if (values.help === true) {
    println(io, LIST_HELP);
    return 0;
  }
  noExtraArgs('list', positionals, 0);
  const algorithms = (await registryOf(io)).listAlgorithms();
  const scenarios = listScenarios();
  if (values.json === true) {
    io.stdout(`${JSON.stringify({ algorithms, scenarios }, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = ['Congestion-control algorithms:'];
  if (algorithms.length === 0) lines.push('  none registered');
  for (const a of algorithms) {
    lines.push(`  ${a.name}${a.summary ? ` — ${a.summary}` : ''}`);
    if (a.profiles !== undefined && a.profiles.length > 0)
      lines.push(
        `    profiles: ${a.profiles.map((p) => (p === a.defaultProfile ? `${p} (default)` : p)).join(', ')}`,
      );
    const aliasOf = new Map(Object.entries(a.aliases ?? {}).map(([alias, target]) => [target, alias]));
    const params = a.params ?? [];
    const names = params.map((p) => (aliasOf.has(p.name) ? `${p.name} (${aliasOf.get(p.name)})` : p.name));
    const defaults = params.map((p) => formatParam(p.name, p.default));
    const w1 = Math.max(0, ...names.map((n) => n.length));
    const w2 = Math.max(0, ...defaults.map((d) => d.length));
    params.forEach((p, i) => {
      lines.push(`    ${names[i].padEnd(w1)}  ${defaults[i].padEnd(w2)}  ${p.description ?? ''}`.trimEnd());
    });
  }
  lines.push('', 'Scenarios:');
  if (scenarios.length === 0) lines.push('  none');
  const w = Math.max(0, ...scenarios.map((s) => s.file.length));
  for (const s of scenarios)
    lines.push(
      `  ${s.file.padEnd(w)}  ${s.error !== undefined ? `(invalid: ${s.error})` : (s.description ?? s.name)}`,
    );
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

interface ScenarioListing {
  file: string;
  name?: string;
  description?: string | null;
  error?: string;
}

function listScenarios(): ScenarioListing[] {
  const root = packageRoot();
  const dir = join(root, 'scenarios');
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ya?ml$/i.test(entry)) files.push(p);
    }
  };
  walk(dir);
  return files.map((f) => {
    const rel = relative(root, f);
    try {
      const s = loadScenario(f);
      return { file: rel, name: s.name, description: s.description };
    } catch (err) {
      return { file: rel, error: isConfigError(err) ? err.message : oneLine(String(err)) };
    }
  });
}
