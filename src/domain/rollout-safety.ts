/**
 * The safety controls of a rollout that act on its actions once released (issue 25): `abort`
 * (whole-rollout failure criteria, then cancel or let run, and an optional rollback set). Every
 * field is optional: a rollout without them has none of them in its record or its JSON and behaves
 * as hawkBit's. When the criteria hold: rollout-abort.ts.
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
