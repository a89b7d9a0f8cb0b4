/** The reproduction table: check, paper value, expected, measured, pass/fail. */
import Table from 'cli-table3';
import type { ReproRow } from './types.js';

export function verdict(row: ReproRow): string {
  if (row.error !== undefined) return 'ERROR';
  if (row.pass === 'finding') return 'finding';
  return row.pass ? 'pass' : 'FAIL';
}

export function formatReproTable(rows: ReproRow[], opts: { colWidths?: number[] } = {}): string {
  const table = new Table({
    head: ['algorithm', 'check', 'paper', 'expected', 'measured', 'result'],
    colWidths: opts.colWidths ?? [14, 30, 30, 30, 34, 9],
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const r of rows)
    table.push([
      r.algorithm,
      `${r.id} ${r.title}`,
      r.paper,
      r.expected,
      r.error !== undefined ? `error: ${r.error}` : r.measured,
      verdict(r),
    ]);
  return table.toString();
}

/** Markdown rendering of the same table, for closing notes and docs. */
export function formatReproMarkdown(rows: ReproRow[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = ['| check | paper | expected | measured | result |', '|---|---|---|---|---|'];
  for (const r of rows)
    lines.push(
      `| ${esc(`${r.algorithm} ${r.id} ${r.title}`)} | ${esc(r.paper)} | ${esc(r.expected)} | ${esc(r.error ?? r.measured)} | ${verdict(r)} |`,
    );
  return lines.join('\n');
}
