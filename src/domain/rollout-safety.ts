import type { StatusCounts } from './rollout-counts.js';

/**
 * The safety controls of a rollout that act on its actions once released (issue 25): `abort`
 * (whole-rollout failure criteria, then cancel or let run, and an optional rollback set). Every
 * field is optional: a rollout without them has none of them in its record or its JSON and behaves
 * as hawkBit's. Pure: the engine (src/scheduler/rollouts.ts) reads the counts and acts.
 * @see issue 25; AWS IoT Jobs `abortConfig` (criteria with failureType, thresholdPercentage, minNumberOfExecutedThings)
 */

export const FAILURE_TYPES = ['error', 'canceled', 'timedOut', 'any'] as const;
export type FailureType = (typeof FAILURE_TYPES)[number];
export const ON_ABORT = ['cancel', 'finishRunning'] as const;
export type OnAbort = (typeof ON_ABORT)[number];

export interface AbortCriterion {
  readonly failureType: FailureType;
  /** 0..100: the criterion holds once this share of the finished actions failed so (>=, at least one such failure). */
  readonly thresholdPercentage: number;
  /** >= 1: nothing fires before this many actions of the rollout reached a final state. */
  readonly minFinished: number;
}

export interface AbortConfig {
  readonly criteria: readonly AbortCriterion[];
  /** cancel (default): running actions are canceled softly; finishRunning: they are left to finish. */
  readonly onAbort: OnAbort;
  /** A complete set assigned (soft, the rollout's weight) to each target whose action failed or was canceled by the abort. */
  readonly rollbackTo: number | null;
}

/** Why the engine stopped a rollout (shown as `stopReason` in the rollout JSON). */
export interface StopReason {
  readonly kind: 'abort';
  readonly criterion: AbortCriterion;
  readonly observedPercentage: number;
  /** When the abort fired (ms): actions canceled from then on were canceled by it. */
  readonly at: number;
}

/** The optional safety fields of a rollout record (absent on a rollout created without them). */
export interface RolloutSafety {
  readonly abort?: AbortConfig;
  readonly stopReason?: StopReason;
  /** Aborted, but its actions are not handled yet (scheduled ones removed, running ones canceled, rollback): the engine resumes it. */
  readonly abortPending?: boolean;
}

/** The store counter field of actions closed as a timeout (a subset of `error`). */
export const TIMED_OUT = 'timedout';

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
