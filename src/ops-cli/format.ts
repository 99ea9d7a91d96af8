/** Plain-text output of the operator CLI: aligned columns and timestamps. Pure. */

/** Rows under a header, each column as wide as its widest cell, two spaces apart; one string per line. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Epoch milliseconds as `2026-11-27 07:10:00Z`; '-' for none. */
export function time(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '-';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** A value as a cell: '-' for missing. */
export function cell(v: string | number | null | undefined): string {
  return v === undefined || v === null || v === '' ? '-' : String(v);
}
