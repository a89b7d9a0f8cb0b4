/**
 * The self-contained report page: inline CSS, the charts as inline SVG, small tables of the
 * numbers, and the compare data as a JSON block (id="data") for tools and tests. No scripts run
 * and nothing is fetched, so it opens offline from a file.
 */
import { formatBps, formatNs } from '../stats/summary-table.js';
import { bytes, esc, fixed, int, num } from './cells.js';
import type { ChartSpec } from './charts.js';
import { collectiveSection } from './collective-html.js';
import type { AlgorithmReport, CompareData, SlowFlow } from './data.js';

export { esc };

export interface RenderedChart {
  spec: ChartSpec;
  svg: string;
}

/** JSON that can sit inside <script>: no "</script>" or "<!--" can be formed. */
export function scriptJson(x: unknown): string {
  return JSON.stringify(x).replace(/</g, '\\u003c');
}

export const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; margin: 0; background: #fafafa; }
main { max-width: 1180px; margin: 0 auto; padding: 16px 28px 48px; background: #fff; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.meta { color: #555; margin: 0 0 8px; }
nav a { margin-right: 14px; color: #2a5d9f; text-decoration: none; }
figure.chart { margin: 12px 0 20px; overflow-x: auto; }
figure.chart figcaption { color: #555; font-size: 13px; max-width: 900px; }
figure.chart .title { font-weight: bold; font-size: 14px; margin-bottom: 4px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f0f0f0; text-align: left; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #f9f9f9; }
details { margin: 2px 0; }
summary { cursor: pointer; color: #2a5d9f; }
code, .mono { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; }
ul.warnings { color: #8a5300; }
.note { color: #777; font-style: italic; }
`;

export function page(title: string, body: string, data: unknown): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<script type="application/json" id="data">${scriptJson(data)}</script>
</body>
</html>
`;
}

function figure(c: RenderedChart): string {
  return `<figure class="chart" id="chart-${esc(c.spec.id)}" data-chart="${esc(c.spec.id)}" data-series="${esc(JSON.stringify(c.spec.series))}">
<div class="title">${esc(c.spec.title)}</div>
${c.svg}
<figcaption>${esc(c.spec.caption)}</figcaption>
</figure>`;
}

/** Summary keys every results.json has (the trim and link-event sums are in the counters table). */
type SummaryKey = Exclude<keyof AlgorithmReport['summary'], 'trims' | 'headerDrops' | 'linkDownDrops'>;

const SUMMARY_ROWS: [SummaryKey, string, (v: number) => string][] = [
  ['flowsCompleted', 'flows completed', int],
  ['flowsTotal', 'flows', int],
  ['slowdownP50', 'slowdown p50', fixed(3)],
  ['slowdownP99', 'slowdown p99', fixed(3)],
  ['goodputBps', 'goodput', formatBps],
  ['jain', "Jain's fairness", fixed(3)],
  ['maxQueueBytes', 'max switch queue', bytes],
  ['pfcPauseTx', 'PFC pauses sent', int],
  ['drops', 'drops', int],
];

function summaryTable(d: CompareData): string {
  const head = `<tr><th></th>${d.algorithms.map((a) => `<th>${esc(a)}</th>`).join('')}</tr>`;
  const rows = SUMMARY_ROWS.map(
    ([key, label, f]) =>
      `<tr><th>${esc(label)}</th>${d.algorithms.map((a) => num(d.byAlgorithm[a].summary[key], f, { alg: a, table: 'summary', key })).join('')}</tr>`,
  );
  rows.push(
    `<tr><th>emulated time</th>${d.algorithms.map((a) => num(d.byAlgorithm[a].durationNs, formatNs, { alg: a, table: 'summary', key: 'durationNs' })).join('')}</tr>`,
  );
  return `<table id="summary"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

function bucketTable(d: CompareData): string {
  const first = d.byAlgorithm[d.algorithms[0]].buckets;
  const head = `<tr><th rowspan="2">flow size</th>${d.algorithms.map((a) => `<th colspan="4">${esc(a)}</th>`).join('')}</tr>
<tr>${d.algorithms.map(() => '<th>flows</th><th>p50</th><th>p95</th><th>p99</th>').join('')}</tr>`;
  const rows = first.map((b, i) => {
    const cells = d.algorithms.map((a) => {
      const s = d.byAlgorithm[a].buckets[i];
      const at = (key: string) => ({ alg: a, table: 'buckets', bucket: s.bucket, key });
      return [
        num(
          s.count,
          (v) => (s.unfinished > 0 ? `${v} (+${s.unfinished} unfinished)` : String(v)),
          at('count'),
        ),
        num(s.p50, fixed(2), at('p50')),
        num(s.p95, fixed(2), at('p95')),
        num(s.p99, fixed(2), at('p99')),
      ].join('');
    });
    return `<tr><th>${esc(b.bucket)}</th>${cells.join('')}</tr>`;
  });
  return `<table id="buckets"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

function portTable(d: CompareData): string {
  if (d.busiestPorts.length === 0) return '';
  const rows: string[] = [];
  for (const a of d.algorithms)
    for (const p of d.byAlgorithm[a].ports) {
      const at = (key: string) => ({ alg: a, table: 'ports', port: p.port, key });
      rows.push(
        `<tr><th>${esc(a)}</th><th>${esc(p.port)}</th>${[
          num(p.meanQueueBytes, bytes, at('meanQueueBytes')),
          num(p.p50Bytes, bytes, at('p50Bytes')),
          num(p.p90Bytes, bytes, at('p90Bytes')),
          num(p.p99Bytes, bytes, at('p99Bytes')),
          num(p.maxQueueBytes, bytes, at('maxQueueBytes')),
          num(p.ecnMarked, int, at('ecnMarked')),
          num(p.pfcPauseTx, int, at('pfcPauseTx')),
          num(p.pausedNs, formatNs, at('pausedNs')),
        ].join('')}</tr>`,
      );
    }
  return `<table id="ports"><thead><tr><th>algorithm</th><th>port</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>ECN marks</th><th>PFC pauses sent</th><th>paused</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const COUNTER_ROWS: [keyof AlgorithmReport['counters'], string, (v: number) => string][] = [
  ['pfcPausedNs', 'PFC paused time (Σ ports)', formatNs],
  ['pfcPauseTx', 'PFC pause frames sent', int],
  ['pfcPauseRx', 'PFC pause frames received', int],
  ['cnpTx', 'CNPs sent (receivers)', int],
  ['cnpRx', 'CNPs received (senders)', int],
  ['cnmTx', 'CNMs sent (switches)', int],
  ['ecnMarked', 'ECN-marked packets', int],
  ['nackTx', 'NAKs sent', int],
  ['retransmits', 'retransmitted packets', int],
  ['drops', 'drops', int],
  ['dataBytesTx', 'data payload sent (spraying / selective repeat hosts)', bytes],
  ['retransmittedBytes', 'of it retransmitted', bytes],
  ['trimmedRx', 'trimmed packets received (NACKed)', int],
  ['outOfOrderRx', 'packets received out of order', int],
  ['reorderMaxPackets', 'deepest reorder buffer (packets)', int],
  ['entropyLoadMaxOverMean', 'entropy load max / mean (worst host)', fixed(2)],
  ['trims', 'trimmed packets (switches)', int],
  ['headerDrops', 'trimmed headers dropped', int],
  ['linkDownDrops', 'frames lost to failed links', int],
];

function counterTable(d: CompareData): string {
  const head = `<tr><th></th>${d.algorithms.map((a) => `<th>${esc(a)}</th>`).join('')}</tr>`;
  // Rows of counters no run has (trimming, link events) are left out.
  const shown = COUNTER_ROWS.filter(([key]) =>
    d.algorithms.some((a) => d.byAlgorithm[a].counters[key] !== undefined),
  );
  const rows = shown.map(
    ([key, label, f]) =>
      `<tr><th>${esc(label)}</th>${d.algorithms.map((a) => num(d.byAlgorithm[a].counters[key] ?? null, f, { alg: a, table: 'counters', key })).join('')}</tr>`,
  );
  return `<table id="counters"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

function causes(drops: Record<string, number>): string {
  const e = Object.entries(drops).sort((a, b) => b[1] - a[1]);
  return e.length === 0 ? '<span class="note">none</span>' : e.map(([w, n]) => `${esc(w)} ×${n}`).join(', ');
}

function changesList(f: SlowFlow): string {
  if (f.changes.length === 0) return '<span class="note">no changes</span>';
  const items = f.changes
    .map(
      ([t, r, w, why]) =>
        `<tr><td class="n">${esc(formatNs(t))}</td><td class="n">${esc(formatBps(r))}</td><td class="n">${w === null ? '–' : esc(bytes(w))}</td><td>${esc(why)}</td></tr>`,
    )
    .join('');
  return `<details><summary>last ${f.changes.length} of ${f.changeCount}</summary><table><thead><tr><th>time</th><th>rate</th><th>window</th><th>cause</th></tr></thead><tbody>${items}</tbody></table></details>`;
}

function slowFlowTable(alg: string, flows: readonly SlowFlow[]): string {
  if (flows.length === 0)
    return `<p class="note">${esc(alg)}: no rate-change trace (the runtime did not record one).</p>`;
  const rows = flows.map((f) => {
    const at = (key: string) => ({ alg, table: 'slowFlows', flow: String(f.flow), key });
    return `<tr><th>${f.flow}</th><td>${esc(f.src)}→${esc(f.dst)}</td>${num(f.sizeBytes, bytes, at('sizeBytes'))}${num(f.fctNs, formatNs, at('fctNs'))}${num(f.slowdown, fixed(2), at('slowdown'))}<td>${causes(f.drops)}</td><td>${changesList(f)}</td></tr>`;
  });
  return `<h3>${esc(alg)}</h3><table class="slow-flows" data-alg="${esc(alg)}"><thead><tr><th>flow</th><th>path</th><th>size</th><th>FCT</th><th>slowdown</th><th>rate/window cuts by cause</th><th>changes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Real runs: how emulated time was kept, one row per algorithm (results.json `realtime`). */
function realtimeTable(d: CompareData): string {
  const rows: string[] = [];
  for (const a of d.algorithms) {
    const rt = d.byAlgorithm[a].realtime;
    if (rt === undefined) continue;
    const at = (key: string) => ({ alg: a, table: 'realtime', key });
    const worst = rt.worstLate;
    rows.push(
      `<tr><th>${esc(a)}</th><td>${esc(rt.sync)}</td>${[
        num(rt.timeScale, int, at('timeScale')),
        num(rt.processes, int, at('processes')),
        num(rt.dilation?.p50 ?? null, fixed(0), at('dilationP50')),
        num(rt.lateFrames, int, at('lateFrames')),
        num(worst?.maxLateNs ?? null, formatNs, at('worstLateNs')),
        num(rt.pauses.gcOver1Ms, int, at('gcOver1Ms')),
        num(rt.pauses.gcMaxMs, fixed(2), at('gcMaxMs')),
        num(rt.pauses.eventLoopMaxMs, fixed(2), at('eventLoopMaxMs')),
        num(rt.resentDatagrams, int, at('resentDatagrams')),
        num(rt.linksDown.length, int, at('linksDown')),
      ].join('')}</tr>`,
    );
  }
  return `<table id="realtime"><thead><tr><th>algorithm</th><th>sync</th><th>timeScale</th><th>processes</th><th>dilation p50</th><th>late frames</th><th>worst late</th><th>GCs over 1 ms</th><th>longest GC (ms)</th><th>longest event-loop delay (ms)</th><th>datagrams resent</th><th>links down</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The full report page for compare data and its rendered charts. */
export function reportHtml(d: CompareData, charts: readonly RenderedChart[], generated: string): string {
  const fig = (prefix: string) =>
    charts
      .filter((c) => c.spec.id === prefix || c.spec.id.startsWith(`${prefix}-`))
      .map(figure)
      .join('\n');
  const title = `rocelab report — ${d.scenario}`;
  const warnings = d.algorithms.flatMap((a) => d.byAlgorithm[a].warnings.map((w) => `${a}: ${w}`));
  const results = d.algorithms
    .map((a) => d.byAlgorithm[a].resultsFile)
    .filter((f): f is string => f !== null)
    .map((f) => `<code>${esc(f)}</code>`)
    .join(', ');
  const real = d.algorithms.some((a) => d.byAlgorithm[a].realtime !== undefined);
  const collectives = d.algorithms.some((a) => d.byAlgorithm[a].collectives !== undefined);
  const realSection = real
    ? `<h2 id="realtime">Real time</h2>
<p class="meta">How the real runtime kept emulated time (results.json <code>realtime</code>, docs/realtime.md): under lockstep the achieved dilation (real ns per emulated ns) and never a late frame; under wallclock the frames that reached firmware after their emulated arrival instant, and the pauses of the node processes (real ms).</p>
${realtimeTable(d)}
${fig('late')}`
    : '';
  const body = `<h1>${esc(title)}</h1>
<p class="meta">seed ${d.seed} · ${esc(d.runtime)} runtime · ${d.algorithms.length === 1 ? 'algorithm' : 'algorithms'}: <b>${d.algorithms.map(esc).join(', ')}</b>${results !== '' ? ` · results: ${results}` : ''} · ${esc(generated)}</p>
<nav><a href="#fct">FCT slowdown</a><a href="#queues">Queues</a><a href="#rates">Rates</a><a href="#pfc">PFC &amp; notifications</a><a href="#why">Why rates dropped</a>${collectives ? '<a href="#collectives">Collectives</a>' : ''}${real ? '<a href="#realtime">Real time</a>' : ''}</nav>
<h2 id="overview">Overview</h2>
${summaryTable(d)}
<h2 id="fct">FCT slowdown by flow size</h2>
${fig('slowdown') || '<p class="note">No flow completed.</p>'}
<p class="meta">Buckets: ${d.bucketRule === 'ladder' ? 'sizes ×4 apart from 3 KiB (the HPCC paper’s WebSearch buckets; KiB = 1024 B), rungs without flows left out' : 'one per distinct flow size'}. Percentiles as src/stats computes them (the element at ⌊n·p⌋ of the sorted slowdowns).</p>
${bucketTable(d)}
<h2 id="queues">Queues</h2>
${d.busiestPorts.length === 0 ? '<p class="note">No switch queue ever built up.</p>' : `${fig('queue-cdf')}\n${fig('queue-time')}\n${portTable(d)}`}
<h2 id="rates">Per-flow rates</h2>
${fig('rate') || '<p class="note">No rate samples.</p>'}
<h2 id="pfc">PFC pauses and congestion notifications</h2>
${fig('counters')}
${counterTable(d)}
<h2 id="why">Why did the rate drop</h2>
<p class="meta">The slowest flows (by slowdown; unfinished flows by the slowdown they had at least) with the events that cut their rate or window and their last rate changes, from the NIC's rate trace (results.json <code>trace</code>).</p>
${fig('why')}
${d.algorithms.map((a) => slowFlowTable(a, d.byAlgorithm[a].slowFlows)).join('\n')}
${collectiveSection(d, fig)}
${realSection}
${warnings.length > 0 ? `<h2 id="warnings">Warnings</h2><ul class="warnings">${warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>` : ''}`;
  return page(title, body, d);
}
