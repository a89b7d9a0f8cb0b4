/**
 * The report's collectives (docs/reports.md): `rocelab compare` on a scenario with two jobs
 * prints each job's bus bandwidth per algorithm, compare.json carries results.json's
 * `collectives`, and report.html has the Collectives section: the jobs table and spine-link
 * utilisation with the exact numbers, the completion-time chart (a point per iteration and
 * algorithm, the ideal as a rule), each algorithm's slowest-rank timeline and the link chart,
 * each drawing a mark for every series it lists.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/app.js';
import { collectiveCharts, jobIterations } from '../../src/report/collective-charts.js';
import type { CompareData } from '../../src/report/data.js';
import { renderSvg } from '../../src/report/render-svg.js';
import type { Results } from '../../src/stats/results.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'collectives-leafspine.yaml');
const ALGS = ['none', 'dcqcn'];

describe('collectives in compare and the report', () => {
  let dir: string;
  let stdout = '';
  let compare: CompareData;
  let html: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rocelab-report-coll-'));
    const code = await main(['compare', FIXTURE, '--cc', ALGS.join(','), '--out', dir], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: () => {},
      env: {},
      cwd: ROOT,
    });
    expect(code).toBe(0);
    compare = JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')) as CompareData;
    html = readFileSync(join(dir, 'report.html'), 'utf8');
  }, 300_000);

  it('compare prints each job’s busbw, mean iteration and ratio to the ideal per algorithm', () => {
    const table = stdout.split('Collective jobs: bus bandwidth\n')[1].split('\nresults:')[0].split('\n');
    expect(table[0]).toMatch(/^job +none busbw \(mean CCT, ×ideal\) +dcqcn busbw/);
    for (const [i, job] of ['ring', 'moe'].entries()) {
      const cells = [...table[i + 1].matchAll(/([\d.]+) Gbit\/s \(([\d.]+) µs, ×([\d.]+)\)/g)];
      expect(table[i + 1].startsWith(job)).toBe(true);
      expect(cells).toHaveLength(2);
      cells.forEach((m, k) => {
        const j = compare.byAlgorithm[ALGS[k]].collectives!.jobs.find((x) => x.job === job)!;
        expect(Number(m[1])).toBeCloseTo(j.busbwBps! / 1e9, 0);
        expect(Number(m[3])).toBeCloseTo(j.ratio!, 3);
      });
    }
  });

  it('compare.json carries each run’s collectives exactly', () => {
    for (const a of ALGS) {
      const r = JSON.parse(readFileSync(join(dir, a, 'results.json'), 'utf8')) as Results;
      expect(compare.byAlgorithm[a].collectives).toEqual(r.collectives);
      expect(r.collectives!.ops).toHaveLength(6);
    }
  });

  it('the page has the Collectives section with the jobs and spine-link numbers', () => {
    expect(html).toContain('<h2 id="collectives">Collectives</h2>');
    expect(html).toContain('<a href="#collectives">Collectives</a>');
    for (const a of ALGS) {
      const c = compare.byAlgorithm[a].collectives!;
      for (const j of c.jobs) {
        const at = `data-alg="${a}" data-table="jobs" data-job="${j.job}"`;
        expect(html).toContain(`${at} data-key="meanCctNs" data-value="${j.meanCctNs}"`);
        expect(html).toContain(`${at} data-key="busbwBps" data-value="${j.busbwBps}"`);
        expect(html).toContain(`${at} data-key="ratio" data-value="${j.ratio}"`);
      }
      // 2 leaves × 2 uplinks + 2 spines × 2 downlinks.
      expect(c.fabricLinks).toHaveLength(8);
      for (const l of c.fabricLinks)
        expect(html).toContain(
          `data-alg="${a}" data-table="fabricLinks" data-link="${l.node}:${l.port}→${l.peer}" data-key="utilisation" data-value="${l.utilisation}"`,
        );
    }
    for (const id of ['cct', 'slowest-0', 'slowest-1', 'fabric'])
      expect(html).toContain(`data-chart="${id}"`);
  });

  it('every collectives chart draws a mark for each series it lists', async () => {
    const charts = collectiveCharts(compare);
    expect(charts.map((c) => c.id)).toEqual(['cct', 'slowest-0', 'slowest-1', 'fabric']);
    for (const c of charts) {
      const svg = await renderSvg(c.vl);
      const labels = [...svg.matchAll(/aria-label="([^"]*)"/g)].map((m) => m[1].replace(/&#39;/g, "'"));
      for (const s of c.series)
        expect(
          labels.some((l) => l.includes(`${s} — `)),
          `${c.id}: ${s}`,
        ).toBe(true);
    }
    // A point per iteration and algorithm for each job, each the job's iteration time.
    const cct = charts[0];
    const rows = (cct.vl.data as { values: Record<string, unknown>[] }).values;
    for (const a of ALGS)
      for (const job of ['ring', 'moe']) {
        const its = jobIterations(compare.byAlgorithm[a].collectives!, job);
        expect(rows.filter((r) => r.algorithm === a && r.job === job)).toHaveLength(its.length);
      }
    expect(rows.filter((r) => r.layer === 'ideal')).toHaveLength(2);
  });
});
