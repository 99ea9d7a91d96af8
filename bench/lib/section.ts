/**
 * The shape of a benchmark's outcome, shared by the writers of results (results.ts) and the views of
 * them (terminal-table.ts, ratio-chart.ts, compare.ts).
 */
/** One benchmark's outcome: its rows (one table) and loose figures. */
export interface Section {
  readonly name: string;
  readonly params: Record<string, unknown>;
  readonly rows: readonly Record<string, unknown>[];
  readonly figures: Record<string, number | string>;
  /** Free text printed under the table (the generator check, what was not measured and why). */
  readonly notes?: readonly string[];
}
