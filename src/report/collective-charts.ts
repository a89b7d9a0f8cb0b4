/**
 * The report's charts of collectives (results.json `collectives`, docs/reports.md): completion
 * time per iteration of every job, each algorithm's slowest rank as a timeline, and the
 * utilisation of the switch-to-switch links. Built like ./charts.ts: vega-lite specs whose marks
 * carry a `desc` starting with their series.
 */
import type { CollectiveOpResult, CollectivesResult } from '../stats/collectives.js';
import { algColor, type ChartSpec, r3, timeUnit, top } from './charts.js';
import type { CompareData } from './data.js';

/** The runs that have collectives, in the report's order. */
function withCollectives(data: CompareData): [string, CollectivesResult][] {
  return data.algorithms.flatMap((a) => {
    const c = data.byAlgorithm[a].collectives;
    return c === undefined ? [] : [[a, c] as [string, CollectivesResult]];
  });
}

/** A job's iterations: from the first post of its first collective to the last acknowledgement of its last. */
export function jobIterations(
  c: CollectivesResult,
  job: string,
): { iteration: number; cctNs: number | null }[] {
  const its = new Map<number, CollectiveOpResult[]>();
  for (const o of c.ops) if (o.job === job) its.set(o.iteration, [...(its.get(o.iteration) ?? []), o]);
  return [...its].map(([iteration, ops]) => ({
    iteration,
    cctNs: ops.some((o) => o.endNs === null)
      ? null
      : Math.max(...ops.map((o) => o.endNs!)) - Math.min(...ops.map((o) => o.startNs)),
  }));
}

export function cctChart(data: CompareData): ChartSpec | null {
  const runs = withCollectives(data);
  if (runs.length === 0) return null;
  const jobs = [...new Set(runs.flatMap(([, c]) => c.jobs.map((j) => j.job)))];
  let maxNs = 0;
  for (const [, c] of runs) for (const j of c.jobs) maxNs = Math.max(maxNs, j.p99CctNs ?? 0, j.idealNs);
  const unit = timeUnit(maxNs);
  const rows: Record<string, unknown>[] = [];
  for (const [alg, c] of runs)
    for (const job of jobs) {
      const ideal = c.jobs.find((j) => j.job === job)?.idealNs;
      for (const it of jobIterations(c, job)) {
        if (it.cctNs === null) continue;
        const y = r3(it.cctNs / unit.ns);
        rows.push({
          algorithm: alg,
          job,
          layer: 'cct',
          iteration: it.iteration,
          y,
          desc: `${alg} — job ${job}, iteration ${it.iteration}: ${y} ${unit.name}${ideal === undefined ? '' : ` (×${r3(it.cctNs / ideal)} ideal)`}`,
        });
      }
      if (ideal !== undefined && !rows.some((r) => r.layer === 'ideal' && r.job === job))
        rows.push({
          job,
          layer: 'ideal',
          y: r3(ideal / unit.ns),
          desc: `ideal — job ${job}: ${r3(ideal / unit.ns)} ${unit.name}`,
        });
    }
  const series = runs.map(([a]) => a).filter((a) => rows.some((r) => r.algorithm === a));
  if (series.length === 0) return null;
  return {
    id: 'cct',
    title: 'Collective completion time per iteration',
    caption:
      'One panel per job: each iteration\'s time, from the first post of its first collective to the last acknowledgement of its last (results.json collectives). The dashed line is the job\'s analytic ideal (docs/scenario.md "Ideal times"): what the iteration takes alone on an idle fabric.',
    series: [...series, 'ideal'],
    vl: top({
      data: { values: rows },
      vconcat: jobs.map((job) => ({
        title: { text: `job ${job}`, fontSize: 12, fontWeight: 'normal', anchor: 'start' },
        width: 640,
        height: 170,
        transform: [{ filter: { field: 'job', equal: job } }],
        layer: [
          {
            transform: [{ filter: "datum.layer === 'cct'" }],
            mark: { type: 'line', point: { size: 40, filled: true }, strokeWidth: 1.5 },
            encoding: {
              x: { field: 'iteration', type: 'quantitative', title: 'iteration', axis: { tickMinStep: 1 } },
              y: { field: 'y', type: 'quantitative', title: `time (${unit.name})`, scale: { zero: false } },
              color: algColor(data),
              description: { field: 'desc' },
            },
          },
          {
            transform: [{ filter: "datum.layer === 'ideal'" }],
            mark: { type: 'rule', strokeDash: [5, 4], color: '#555' },
            encoding: { y: { field: 'y', type: 'quantitative' }, description: { field: 'desc' } },
          },
        ],
      })),
      resolve: { scale: { y: 'independent' } },
    }),
  };
}

/** Each job's slowest rank of one algorithm: its sends as bars from post to acknowledgement. */
export function slowestRankChart(data: CompareData, alg: string, index: number): ChartSpec | null {
  const c = data.byAlgorithm[alg].collectives;
  if (c === undefined || c.slowest.every((s) => s.sends.length === 0)) return null;
  const rows: Record<string, unknown>[] = [];
  const labels: string[] = [];
  let maxNs = 0;
  for (const s of c.slowest) {
    const t0 = Math.min(...s.sends.map((x) => x[3]));
    for (const [, , , , end] of s.sends) maxNs = Math.max(maxNs, (end ?? t0) - t0);
  }
  const unit = timeUnit(maxNs);
  for (const s of c.slowest) {
    if (s.sends.length === 0) continue;
    const label = `job ${s.job}: ${s.host} (rank ${s.rank}), iteration ${s.iteration}`;
    labels.push(label);
    const t0 = Math.min(...s.sends.map((x) => x[3]));
    const entries = new Set(s.sends.map((x) => x[0])).size;
    for (const [entry, step, peer, start, end, bytes] of s.sends) {
      const from = r3((start - t0) / unit.ns);
      const to = end === null ? null : r3((end - t0) / unit.ns);
      rows.push({
        rank: label,
        // One lane per step and peer (an all-to-all step sends to every peer at once).
        lane: `${entries > 1 ? `entry ${entry} ` : ''}step ${step} → ${peer}`,
        peer,
        t: from,
        t2: to ?? from,
        desc: `${label} — entry ${entry} step ${step} to ${peer}: ${bytes} B posted at ${from}, ${to === null ? 'never acknowledged' : `acknowledged at ${to}`} ${unit.name}`,
      });
    }
  }
  return {
    id: `slowest-${index}`,
    title: `Slowest rank's timeline — ${alg}`,
    caption:
      "Per job, in its slowest iteration, the rank whose last send was acknowledged last: each message it sent, from its post to its acknowledgement, one lane per step and peer (time from the rank's first post). A gap between a step's start and the previous step's is the rank waiting for data from its peers.",
    series: labels,
    vl: top({
      data: { values: rows },
      vconcat: labels.map((label) => ({
        title: { text: label, fontSize: 12, fontWeight: 'normal', anchor: 'start' },
        width: 640,
        height: { step: 12 },
        transform: [{ filter: { field: 'rank', equal: label } }],
        mark: { type: 'bar', opacity: 0.8 },
        encoding: {
          y: { field: 'lane', type: 'ordinal', title: null, sort: null },
          x: { field: 't', type: 'quantitative', title: `time since the rank's first post (${unit.name})` },
          x2: { field: 't2' },
          color: { field: 'peer', type: 'nominal', title: 'to', scale: { scheme: 'tableau10' } },
          description: { field: 'desc' },
        },
      })),
      resolve: { scale: { color: 'independent' } },
    }),
  };
}

/** Utilisation of every switch-to-switch link, per algorithm. */
export function fabricChart(data: CompareData): ChartSpec | null {
  const runs = withCollectives(data);
  const links = runs[0]?.[1].fabricLinks ?? [];
  if (links.length === 0) return null;
  const rows: Record<string, unknown>[] = [];
  for (const [alg, c] of runs)
    for (const l of c.fabricLinks) {
      const link = `${l.node}:${l.port}→${l.peer}`;
      rows.push({
        algorithm: alg,
        link,
        u: r3(l.utilisation * 100),
        desc: `${alg} — ${link}: ${r3(l.utilisation * 100)} % of ${r3(l.rateBps / 1e9)} Gbit/s`,
      });
    }
  return {
    id: 'fabric',
    title: 'Switch-to-switch link utilisation',
    caption:
      "Bytes each switch port sent towards another switch (leaf uplinks, spine downlinks) over what its link could carry in the run's emulated time. Uneven bars are ECMP putting several flows on one spine while others idle.",
    series: runs.map(([a]) => a),
    vl: top({
      data: { values: rows },
      width: { step: 9 },
      height: 180,
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'link',
          type: 'nominal',
          title: null,
          sort: null,
          axis: { labelAngle: -60, labelFontSize: 9 },
        },
        xOffset: { field: 'algorithm', sort: data.algorithms },
        y: { field: 'u', type: 'quantitative', title: 'utilisation (%)' },
        color: algColor(data),
        description: { field: 'desc' },
      },
    }),
  };
}

/** The collectives' charts, in page order (none without collectives). */
export function collectiveCharts(data: CompareData): ChartSpec[] {
  return [
    cctChart(data),
    ...data.algorithms.map((a, i) => slowestRankChart(data, a, i)),
    fabricChart(data),
  ].filter((c): c is ChartSpec => c !== null);
}
