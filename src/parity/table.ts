/**
 * The parity table for the terminal and its JSON form: per experiment the reference's value, ours
 * and the ratio of every judged metric, and the wall time of both simulators.
 */
import Table from 'cli-table3';
import type { ExperimentOutcome } from './uet/suite.js';
import type { MetricVerdict } from './verdict.js';

const num = (x: number | null | undefined, digits = 1): string =>
  x === null || x === undefined ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(digits);

function cell(v: MetricVerdict | undefined, digits: number): string {
  if (v === undefined) return '–';
  const mark = v.pass ? '' : ' ✗';
  return `${num(v.reference, digits)} / ${num(v.ours, digits)} (${num(v.ratio, 2)})${mark}`;
}

export function parityTable(rows: readonly ExperimentOutcome[]): string {
  const t = new Table({
    head: ['experiment', 'tail FCT µs ref / ours (ratio)', 'spread', 'NACKs', 'rtx', 'wall s ref / ours'],
    style: { head: [], border: [] },
  });
  for (const r of rows) {
    const by = (m: MetricVerdict['metric']) => r.verdicts.find((v) => v.metric === m);
    const wall = `${num(r.experiment.measured?.cpuS, 2)} / ${num(r.wallS, 2)}`;
    if (r.error !== null) {
      t.push([r.experiment.id, { colSpan: 4, content: r.error }, wall]);
      continue;
    }
    t.push([
      r.experiment.id,
      cell(by('tailFct'), 1),
      cell(by('spread'), 2),
      cell(by('nacks'), 0),
      cell(by('rtx'), 0),
      wall,
    ]);
  }
  return t.toString();
}

/** Only the reference's side (`--list`): recorded and measured values and the reference's time. */
export function referenceTable(rows: readonly ExperimentOutcome['experiment'][]): string {
  const t = new Table({
    head: [
      'experiment',
      'nodes',
      'tail FCT µs recorded / measured',
      'target',
      'spread',
      'NACKs',
      'rtx',
      'ref cpu s',
    ],
    style: { head: [], border: [] },
  });
  for (const e of rows) {
    const r = e.recorded;
    const m = e.measured;
    t.push([
      e.id,
      e.nodes,
      `${num(r?.tailFctUs, 1)} / ${num(m?.tailFctUs, 1)}`,
      e.targets.tailFctUs > 0 ? e.targets.tailFctUs : '–',
      num((r ?? m)?.spread, 2),
      num((r ?? m)?.nacks, 0),
      num((r ?? m)?.rtx, 0),
      num(m?.cpuS, 2),
    ]);
  }
  return t.toString();
}

export function parityJson(rows: readonly ExperimentOutcome[]): unknown {
  return rows.map((r) => ({
    id: r.experiment.id,
    name: r.experiment.name,
    cutOf: r.experiment.cutOf,
    error: r.error,
    wallS: r.wallS,
    referenceCpuS: r.experiment.measured?.cpuS ?? null,
    metrics: r.metrics,
    verdicts: r.verdicts,
  }));
}
