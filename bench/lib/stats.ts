/** Summaries of a benchmark's repeated measurements. */

export interface Stats {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const stats = (xs: readonly number[]): Stats => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

/**
 * Percentiles of integer samples given as counts per value (value -> how often it was seen), e.g. lags
 * in ms gathered by several processes and added up; the smallest value with at least p % of the samples
 * at or below it. NaN when there are none.
 */
export function percentilesOfCounts(counts: Iterable<readonly [number, number]>): { n: number; p50: number; p99: number; max: number } {
  const sorted = [...counts].filter(([, c]) => c > 0).sort(([a], [b]) => a - b);
  const n = sorted.reduce((sum, [, c]) => sum + c, 0);
  const at = (p: number): number => {
    const rank = Math.ceil((p / 100) * n);
    let seen = 0;
    for (const [value, c] of sorted) {
      seen += c;
      if (seen >= rank) return value;
    }
    return NaN;
  };
  return { n, p50: at(50), p99: at(99), max: n === 0 ? NaN : sorted[sorted.length - 1]![0] };
}
