/** Human-readable summaries of results.json for the terminal (cli-table3). */
import Table from 'cli-table3';
import type { Results } from './results.js';

function si(x: number, unit: string): string {
  const abs = Math.abs(x);
  const [div, prefix] =
    abs >= 1e12
      ? [1e12, 'T']
      : abs >= 1e9
        ? [1e9, 'G']
        : abs >= 1e6
          ? [1e6, 'M']
          : abs >= 1e3
            ? [1e3, 'k']
            : [1, ''];
  const v = x / div;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${prefix}${unit}`;
}

export function formatNs(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(3)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(3)} µs`;
  return `${ns} ns`;
}

export function formatBytes(b: number): string {
  return si(b, 'B');
}

export function formatBps(bps: number): string {
  return si(bps, 'bit/s');
}

const opt = (x: number | null, f: (v: number) => string) => (x === null ? '–' : f(x));

/** `dcqcn ×8, none ×1` */
function ccList(ccByHost: Record<string, string>): string {
  const counts = new Map<string, number>();
  for (const cc of Object.values(ccByHost)) counts.set(cc, (counts.get(cc) ?? 0) + 1);
  return [...counts].map(([cc, n]) => `${cc} ×${n}`).join(', ');
}

/** One run: key figures, then warnings. */
export function formatSummaryTable(r: Results, extra: Record<string, string> = {}): string {
  const s = r.summary;
  const t = new Table({ style: { head: [], border: [] } });
  const rows: [string, string][] = [
    ['scenario', `${r.scenario} (seed ${r.seed}, ${r.runtime})`],
    ['congestion control', ccList(r.ccByHost)],
    ['emulated time', formatNs(r.durationNs)],
    ['flows completed', `${s.flowsCompleted} / ${s.flowsTotal}`],
    [
      'slowdown p50 / p99',
      `${opt(s.slowdownP50, (v) => v.toFixed(2))} / ${opt(s.slowdownP99, (v) => v.toFixed(2))}`,
    ],
    ['goodput', formatBps(s.goodputBps)],
    ["Jain's fairness", opt(s.jain, (v) => v.toFixed(3))],
    ['max switch queue', formatBytes(s.maxQueueBytes)],
    ['PFC pauses sent', String(s.pfcPauseTx)],
    ['drops', String(s.drops)],
    ...multipathRows(r),
    ...(s.trims !== undefined
      ? ([['trimmed / headers dropped', `${s.trims} / ${s.headerDrops ?? 0}`]] as [string, string][])
      : []),
    ...(s.linkDownDrops !== undefined
      ? ([['lost to failed links', String(s.linkDownDrops)]] as [string, string][])
      : []),
    ...Object.entries(extra),
  ];
  for (const row of rows) t.push(row);
  let out = t.toString();
  if (r.warnings.length > 0) out += `\nwarnings:\n${r.warnings.map((w) => `  - ${w}`).join('\n')}`;
  return `${out}\n`;
}

/** Spraying / selective-repeat rows, when some host has them (hosts[].multipath). */
function multipathRows(r: Results): [string, string][] {
  const mp = r.hosts.flatMap((h) => (h.multipath === undefined ? [] : [h.multipath]));
  if (mp.length === 0) return [];
  const sent = mp.reduce((a, m) => a + m.dataBytesTx, 0);
  const resent = mp.reduce((a, m) => a + m.retransmittedBytes, 0);
  const pct = sent > 0 ? ` (${((100 * resent) / sent).toFixed(2)} % of data sent)` : '';
  const transports = [...new Set(mp.map((m) => `${m.transport}/${m.policy}`))].join(', ');
  return [
    ['transport / paths', transports],
    ['retransmitted', `${formatBytes(resent)}${pct}`],
    [
      'NACKs / trimmed rx',
      `${mp.reduce((a, m) => a + m.nackRx, 0)} / ${mp.reduce((a, m) => a + m.trimmedRx, 0)}`,
    ],
    ['max reorder depth', `${Math.max(...mp.map((m) => m.reorderMaxPackets))} packets`],
  ];
}

/** Several runs side by side (rocelab compare): one row per run. */
export function formatCompareTable(runs: { label: string; results: Results }[]): string {
  // Trimming columns only when some run trims, so other comparisons look as before.
  const trims = runs.some((r) => r.results.summary.trims !== undefined);
  const t = new Table({
    head: [
      'cc',
      'done',
      'slowdown p50',
      'p99',
      'goodput',
      'Jain',
      'max queue',
      'PFC tx',
      'drops',
      ...(trims ? ['trims', 'hdr drops'] : []),
    ],
    style: { head: [], border: [] },
  });
  for (const { label, results: r } of runs) {
    const s = r.summary;
    t.push([
      label,
      `${s.flowsCompleted}/${s.flowsTotal}`,
      opt(s.slowdownP50, (v) => v.toFixed(2)),
      opt(s.slowdownP99, (v) => v.toFixed(2)),
      formatBps(s.goodputBps),
      opt(s.jain, (v) => v.toFixed(3)),
      formatBytes(s.maxQueueBytes),
      String(s.pfcPauseTx),
      String(s.drops),
      ...(trims ? [opt(s.trims ?? null, String), opt(s.headerDrops ?? null, String)] : []),
    ]);
  }
  return `${t.toString()}\n`;
}
