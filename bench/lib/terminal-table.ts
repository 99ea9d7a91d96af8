/**
 * Tables for the terminal, at most WIDTH columns wide: the wide tables go to the markdown file, the terminal
 * gets the label columns and as many figure columns as fit, each cell cut to its column's width.
 */
import type { Section } from './section.js';

export const WIDTH = 100;
const MAX_LABEL = 44;
const MAX_FIGURE = 16;

/** A value as the markdown table shows it. */
export const cell = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v === undefined || v === null ? '' : JSON.stringify(v);
};

/** A value for the terminal: fractions to two places. */
export const short = (v: unknown): string => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : cell(v));

const cut = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}~`);

/** Rows as fixed-width lines (header, rule, rows); every line at most WIDTH characters. */
export function narrowTable(header: readonly string[], rows: readonly (readonly string[])[], widest: readonly number[]): string[] {
  const widths = header.map((h, i) => Math.min(widest[i] ?? MAX_FIGURE, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const line = (cells: readonly string[]): string => cut(cells.map((c, i) => cut(c, widths[i]!).padEnd(widths[i]!)).join('  ').trimEnd(), WIDTH);
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** A section for the terminal: its text columns (the row's names) first, then the figure columns that fit. */
export function sectionTerminal(s: Section): string {
  const cols = [...new Set(s.rows.flatMap((r) => Object.keys(r)))];
  const labels = cols.filter((c) => s.rows.some((r) => typeof r[c] === 'string') && s.rows.every((r) => typeof r[c] !== 'number'));
  // the ratio first: it is what the chart shows; columns empty in every row are left out
  const figures = cols.filter((c) => !labels.includes(c) && s.rows.some((r) => typeof r[c] === 'number')).sort((a, b) => Number(b === 'ratio') - Number(a === 'ratio'));
  const width = (c: string, max: number): number => Math.min(max, Math.max(c.length, ...s.rows.map((r) => short(r[c]).length)));
  let used = labels.reduce((sum, c) => sum + width(c, MAX_LABEL) + 2, 0);
  const shown = [...labels];
  for (const c of figures) {
    if (used + width(c, MAX_FIGURE) > WIDTH) break;
    used += width(c, MAX_FIGURE) + 2;
    shown.push(c);
  }
  const widest = (c: string): number => (labels.includes(c) ? MAX_LABEL : MAX_FIGURE);
  const hidden = labels.length + figures.length - shown.length;
  const text = (line: string): string => cut(line, WIDTH);
  return [
    `== ${s.name}`,
    ...(shown.length === 0 ? [] : narrowTable(shown, s.rows.map((r) => shown.map((c) => short(r[c]))), shown.map((c) => widest(c)))),
    ...(hidden > 0 ? [`(${hidden} more column${hidden === 1 ? '' : 's'} in latest.md)`] : []),
    ...Object.entries(s.figures).map(([k, v]) => text(`- ${k}: ${short(v)}`)),
    ...(s.notes ?? []).map((n) => text(`- ${n}`)),
    '',
  ].join('\n');
}
