/** Table cells of the report pages: escaped text, and numbers that keep their exact value. */
import { formatBytes } from '../stats/summary-table.js';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A number cell: exact value in data-value (read back by tests), formatted text for people. */
export function num(
  value: number | null,
  text: (v: number) => string,
  attrs: Record<string, string> = {},
): string {
  const a = Object.entries(attrs)
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('');
  if (value === null) return `<td class="n"${a} data-value="null">–</td>`;
  return `<td class="n"${a} data-value="${value}">${esc(text(value))}</td>`;
}

export const fixed = (d: number) => (v: number) => v.toFixed(d);
/** formatBytes, but a plain "0 B" for nothing. */
export const bytes = (v: number) => (v === 0 ? '0 B' : formatBytes(v));
export const int = (v: number) => String(v);
