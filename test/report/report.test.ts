/**
 * `rocelab compare` end to end: compare.json and report.html from real runs, the page opened
 * offline in headless Chromium (every chart drew axes and a mark per series, no console
 * errors, nothing fetched), and the numbers read back from the page agree with compare.json.
 * Screenshots go to test-artifacts/report/.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReproRow } from '../../experiments/types.js';
import { main } from '../../src/cli/app.js';
import type { CompareData } from '../../src/report/data.js';
import { reproduceHtml } from '../../src/report/reproduce-html.js';
import { type Browser, launchBrowser, type OpenedPage } from './browser.js';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixtures', 'websearch-star.yaml');
const ARTIFACTS = join(ROOT, 'test-artifacts', 'report');
const ALGS = ['dcqcn', 'hpcc'];

interface ChartCheck {
  id: string;
  hasSvg: boolean;
  axes: number;
  series: string[];
  /** Series without any mark whose ARIA label starts with "<series> — ". */
  missing: string[];
}

/** What the page shows, read with DOM APIs only (the page itself runs no script). */
async function inspectCharts(p: OpenedPage): Promise<ChartCheck[]> {
  return p.page.$$eval('figure.chart', (figs) =>
    figs.map((f) => {
      const svg = f.querySelector('svg');
      const series = JSON.parse(f.getAttribute('data-series') ?? '[]') as string[];
      const labels = svg
        ? [...svg.querySelectorAll('.role-mark [aria-label]')].map((e) => e.getAttribute('aria-label') ?? '')
        : [];
      return {
        id: f.getAttribute('data-chart') ?? '',
        hasSvg: svg !== null && svg.getBoundingClientRect().width > 0,
        // Axes with a domain line and tick labels that drew text.
        axes: svg
          ? [...svg.querySelectorAll('g.role-axis')].filter(
              (a) =>
                a.querySelector('.role-axis-domain') &&
                (a.querySelector('.role-axis-label')?.textContent ?? '') !== '',
            ).length
          : 0,
        series,
        missing: series.filter((s) => !labels.some((l) => l.startsWith(`${s} — `))),
      };
    }),
  );
}

describe('rocelab compare → compare.json + report.html', () => {
  let dir: string;
  let browser: Browser;
  let stdout = '';
  let compare: CompareData;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rocelab-report-'));
    let stderr = '';
    const code = await main(['compare', FIXTURE, '--cc', ALGS.join(','), '--out', dir], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: {},
      cwd: ROOT,
    });
    expect(stderr).not.toContain('internal error');
    expect(code).toBe(0);
    compare = JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')) as CompareData;
    browser = await launchBrowser();
    // Two runs, the report and a browser start on a loaded 2-core CI machine.
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('prints aligned tables and where the files are', () => {
    expect(stdout).toMatch(/^ +dcqcn +hpcc$/m);
    expect(stdout).toMatch(/^slowdown p99 +\d+\.\d\d +\d+\.\d\d$/m);
    expect(stdout).toContain('FCT slowdown by flow size');
    expect(stdout).toMatch(/^< 3 KiB +[\d.]+ \/ [\d.]+ \/ [\d.]+ \(\d+\)/m);
    expect(stdout).toContain(`report: ${join(dir, 'report.html')}`);
    // Columns line up: every row of the bucket table has its cells ending at the same offsets.
    const table = stdout.split('FCT slowdown by flow size\n')[1].split('\nresults:')[0].split('\n');
    const ends = (l: string) => [...l.matchAll(/\)(?= |$)/g)].map((m) => m.index);
    for (const l of table.slice(2)) expect(ends(l)).toEqual(ends(table[1]));
  });

  it('compare.json: one entry per algorithm with summary and buckets matching its results.json', () => {
    expect(compare).toMatchObject({ version: 1, scenario: 'websearch-star', seed: 7, algorithms: ALGS });
    expect(compare.bucketRule).toBe('ladder');
    for (const a of ALGS) {
      const r = JSON.parse(readFileSync(join(dir, a, 'results.json'), 'utf8'));
      const e = compare.byAlgorithm[a];
      expect(e.summary).toEqual(r.summary);
      expect(e.buckets.reduce((n, b) => n + b.count + b.unfinished, 0)).toBe(r.flows.length);
      expect(e.slowFlows.map((f) => f.flow)).toEqual(r.trace.map((t: { flow: number }) => t.flow));
      expect(e.buckets.length).toBeGreaterThanOrEqual(4);
    }
  });

  it('report.html renders offline in Chromium: every chart has axes and a mark per series, no errors', async () => {
    const p = await browser.open(pathToFileURL(join(dir, 'report.html')).href);
    mkdirSync(ARTIFACTS, { recursive: true });
    await p.page.screenshot({ path: join(ARTIFACTS, 'compare-report.png'), fullPage: true });
    expect(p.errors).toEqual([]);
    expect(p.blocked).toEqual([]);
    const charts = await inspectCharts(p);
    expect(charts.map((c) => c.id)).toEqual([
      'slowdown',
      'queue-cdf',
      'queue-time',
      'rate-0',
      'rate-1',
      'counters',
      'why-0',
      'why-1',
    ]);
    for (const c of charts) {
      expect(c.hasSvg, c.id).toBe(true);
      expect(c.axes, c.id).toBeGreaterThanOrEqual(2);
      expect(c.series.length, c.id).toBeGreaterThan(0);
      expect(c.missing, c.id).toEqual([]);
    }
    // Both algorithms appear in the comparison charts.
    for (const id of ['slowdown', 'queue-cdf', 'queue-time', 'counters'])
      expect(charts.find((c) => c.id === id)?.series).toEqual(ALGS);
    // No remote references anywhere in the file.
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<script(?![^>]*type="application\/json")/i);
    await p.page.close();
  });

  it('the numbers in the page (embedded data and visible tables) agree with compare.json', async () => {
    const p = await browser.open(pathToFileURL(join(dir, 'report.html')).href);
    const embedded = JSON.parse(await p.page.$eval('script#data', (s) => s.textContent ?? ''));
    expect(embedded).toEqual(compare);
    const cells = await p.page.$$eval('td[data-value]', (tds) =>
      tds.map((td) => {
        const data: Record<string, string> = {};
        for (const n of td.getAttributeNames())
          if (n.startsWith('data-')) data[n.slice(5)] = td.getAttribute(n) ?? '';
        return { ...data, text: td.textContent ?? '' } as Record<string, string | undefined> & {
          text: string;
        };
      }),
    );
    const value = (v: string | undefined) => (v === 'null' ? null : Number(v));
    let buckets = 0;
    let summary = 0;
    for (const c of cells) {
      const alg = compare.byAlgorithm[c.alg ?? ''];
      expect(alg, JSON.stringify(c)).toBeDefined();
      if (c.table === 'buckets') {
        const b = alg.buckets.find((x) => x.bucket === c.bucket)!;
        const expected = b[c.key as 'p50' | 'p95' | 'p99' | 'count'];
        expect(value(c.value)).toBe(expected);
        // What a reader sees: two decimals of the same number (or "–").
        if (expected === null) expect(c.text).toBe('–');
        else expect(Number.parseFloat(c.text)).toBeCloseTo(expected, c.key === 'count' ? 0 : 2);
        buckets++;
      } else if (c.table === 'summary') {
        const expected =
          c.key === 'durationNs' ? alg.durationNs : alg.summary[c.key as keyof typeof alg.summary];
        expect(value(c.value)).toBe(expected);
        if (['slowdownP50', 'slowdownP99', 'jain'].includes(c.key ?? ''))
          expect(Number.parseFloat(c.text)).toBeCloseTo(expected as number, 3);
        summary++;
      } else if (c.table === 'counters') {
        expect(value(c.value)).toBe(alg.counters[c.key as keyof typeof alg.counters]);
      } else if (c.table === 'ports') {
        const port = alg.ports.find((x) => x.port === c.port)!;
        expect(value(c.value)).toBe(port[c.key as keyof typeof port]);
      } else if (c.table === 'slowFlows') {
        const f = alg.slowFlows.find((x) => String(x.flow) === c.flow)!;
        expect(value(c.value)).toBe(f[c.key as keyof typeof f]);
      }
    }
    expect(buckets).toBe(ALGS.length * 4 * compare.byAlgorithm.dcqcn.buckets.length);
    expect(summary).toBeGreaterThanOrEqual(ALGS.length * 9);
    await p.page.close();
  });

  it('reproduce.html renders the paper-check table offline', async () => {
    const rows: ReproRow[] = [
      {
        algorithm: 'hpcc',
        id: 'A1',
        title: 'queue stays near zero',
        tier: 'default',
        paper: 'queue ≈ 0 KB',
        expected: '≤ 50 KB',
        measured: '12 KB',
        pass: true,
        wallMs: 1234,
        values: { queueKB: 12 },
      },
      {
        algorithm: 'hpcc',
        id: 'A2',
        title: '<b>escaped</b>',
        tier: 'paper',
        paper: 'x',
        expected: 'y',
        measured: '—',
        pass: false,
        wallMs: 1,
        error: 'boom',
      },
    ];
    const file = join(dir, 'reproduce.html');
    writeFileSync(file, reproduceHtml(rows));
    const p = await browser.open(pathToFileURL(file).href);
    await p.page.screenshot({ path: join(ARTIFACTS, 'reproduce.png'), fullPage: true });
    expect(p.errors).toEqual([]);
    expect(p.blocked).toEqual([]);
    const table = await p.page.$$eval('#reproduce tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
    );
    expect(table.map((r) => [r[0], r[5]])).toEqual([
      ['hpcc', 'pass'],
      ['hpcc', 'ERROR'],
    ]);
    expect(table[1][1]).toContain('<b>escaped</b>');
    expect(JSON.parse(await p.page.$eval('script#data', (s) => s.textContent ?? '')).rows).toEqual(rows);
    await p.page.close();
  });
});
