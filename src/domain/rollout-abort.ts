/**
 * When a rollout's abort criteria hold (rollout-safety.ts), over its action counts (rollout-counts.ts).
 * Pure: the engine (src/scheduler/rollouts.ts) reads the counts and acts.
 * @see issue 25
 */
import type { StatusCounts } from './rollout-counts.js';
import { TIMED_OUT, type AbortConfig, type FailureType, type StopReason } from './rollout-safety.js';

/** Actions in a final state: finished, error, canceled (and downloaded for download-only rollouts). */
function finalCount(counts: StatusCounts, downloadOnly: boolean): number {
  const n = (s: string): number => counts[s] ?? 0;
  return n('finished') + n('error') + n('canceled') + (downloadOnly ? n('downloaded') : 0);
}

function failures(counts: StatusCounts, type: FailureType): number {
  const n = (s: string): number => counts[s] ?? 0;
  switch (type) {
    case 'error': return n('error');
    case 'canceled': return n('canceled');
    case 'timedOut': return n(TIMED_OUT);
    case 'any': return n('error') + n('canceled');
  }
}

/**
 * The first criterion that holds over the rollout's counts, or undefined: at least `minFinished`
 * actions final, at least one failure of its type, and failures / final >= threshold.
 */
export function evaluateAbort(abort: AbortConfig, counts: StatusCounts, downloadOnly: boolean, at: number): StopReason | undefined {
  const final = finalCount(counts, downloadOnly);
  for (const criterion of abort.criteria) {
    if (final < criterion.minFinished) continue;
    const failed = failures(counts, criterion.failureType);
    const observed = (failed * 100) / final;
    if (failed > 0 && observed >= criterion.thresholdPercentage) {
      return { kind: 'abort', criterion, observedPercentage: Math.round(observed * 100) / 100, at };
    }
  }
  return undefined;
}
