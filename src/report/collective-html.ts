/**
 * The report's Collectives section (results.json `collectives`, docs/reports.md): per job and
 * algorithm the iteration times against the ideal and the bus bandwidth, the completion-time and
 * slowest-rank charts, and the utilisation of every switch-to-switch link.
 */
import { formatBps, formatNs } from '../stats/summary-table.js';
import { esc, fixed, int, num } from './cells.js';
import type { CompareData } from './data.js';

function jobTable(d: CompareData): string {
  const rows: string[] = [];
  for (const a of d.algorithms)
    for (const j of d.byAlgorithm[a].collectives?.jobs ?? []) {
      const at = (key: string) => ({ alg: a, table: 'jobs', job: j.job, key });
      rows.push(
        `<tr><th>${esc(a)}</th><th>${esc(j.job)}</th>${[
          num(j.ops, int, at('ops')),
          num(j.completedIterations, (v) => `${v}/${j.iterations}`, at('completedIterations')),
          num(j.meanCctNs, formatNs, at('meanCctNs')),
          num(j.p99CctNs, formatNs, at('p99CctNs')),
          num(j.idealNs, formatNs, at('idealNs')),
          num(j.ratio, fixed(3), at('ratio')),
          num(j.busbwBps, formatBps, at('busbwBps')),
        ].join('')}</tr>`,
      );
    }
  return `<table id="jobs"><thead><tr><th>algorithm</th><th>job</th><th>collectives per iteration</th><th>iterations done</th><th>mean iteration</th><th>p99 iteration</th><th>ideal</th><th>mean ÷ ideal</th><th>busbw</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function fabricTable(d: CompareData): string {
  const algs = d.algorithms.filter((a) => d.byAlgorithm[a].collectives !== undefined);
  const links = d.byAlgorithm[algs[0]].collectives!.fabricLinks;
  if (links.length === 0) return '<p class="note">No switch-to-switch links.</p>';
  const rows = links.map((l, i) => {
    const link = `${l.node}:${l.port}→${l.peer}`;
    const cells = algs.map((a) => {
      const x = d.byAlgorithm[a].collectives!.fabricLinks[i];
      return num(x?.utilisation ?? null, (v) => `${(v * 100).toFixed(1)} %`, {
        alg: a,
        table: 'fabricLinks',
        link,
        key: 'utilisation',
      });
    });
    return `<tr><th>${esc(link)}</th>${cells.join('')}</tr>`;
  });
  return `<table id="fabric-links"><thead><tr><th>link</th>${algs.map((a) => `<th>${esc(a)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The section, or '' when no run has collectives; `fig` renders the charts whose id starts so. */
export function collectiveSection(d: CompareData, fig: (prefix: string) => string): string {
  if (!d.algorithms.some((a) => d.byAlgorithm[a].collectives !== undefined)) return '';
  return `<h2 id="collectives">Collectives</h2>
<p class="meta">AI-training traffic (results.json <code>collectives</code>, docs/results.md): each job's iteration time from the first post of its first collective to the last acknowledgement of its last, against the analytic ideal (the job alone on an idle fabric, docs/scenario.md "Ideal times"); busbw as nccl-tests defines it (what each rank's link carried).</p>
${jobTable(d)}
${fig('cct')}
${fig('slowest')}
<h3>Spine links</h3>
<p class="meta">Utilisation of every switch-to-switch link over the run: txBytes × 8 ÷ (rate × emulated time).</p>
${fabricTable(d)}
${fig('fabric')}`;
}
