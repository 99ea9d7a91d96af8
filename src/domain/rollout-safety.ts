import type { ActionRecord } from './action.js';

/**
 * The safety controls of a rollout that act on its actions once released (issue 25): `abort`
 * (whole-rollout failure criteria, then cancel or let run, and an optional rollback set) and
 * `actionTimeout` (an action running too long, or silent too long, is closed as an error). Every
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

export interface ActionTimeout {
  /** 1..10080: an action running longer than this since its group started it is closed as timed out. */
  readonly inProgressMinutes: number;
  /** 1..10080 or null: an action with no report from its device for this long is closed as timed out. */
  readonly stepMinutes: number | null;
}

export interface Backoff {
  readonly initialSeconds: number;
  readonly factor: number;
  readonly maxSeconds: number;
}

/** hawkBit has no retries; AWS IoT Jobs retries at once. Default: 60 s, doubling, at most an hour. */
export const DEFAULT_BACKOFF: Backoff = { initialSeconds: 60, factor: 2, maxSeconds: 3600 };
/** The most retries of one target, failed and timedOut together. */
export const MAX_RETRIES = 10;

export interface RetryConfig {
  /** Retries of a target whose action failed (the device reported failure). */
  readonly failed: number;
  /** Retries of a target whose action timed out (actionTimeout). */
  readonly timedOut: number;
  readonly backoff: Backoff;
  /** Only failures with one of these codes (the device's result code) are retried; null: every failure. */
  readonly onlyCodes: readonly number[] | null;
}

/** verifyInstall with the device attribute that names the version it runs (install-check.ts). */
export interface VerifyInstall {
  readonly attribute: string;
}

/** The optional safety fields of a rollout record (absent on a rollout created without them). */
export interface RolloutSafety {
  readonly retry?: RetryConfig;
  readonly abort?: AbortConfig;
  readonly actionTimeout?: ActionTimeout;
  /**
   * An action closed with success counts as finished only once its device shows the set: the running
   * version it reports, or (with `attribute`) the version attribute it reports; another set or version,
   * or a failure report (A/B fallback), closes it as an error (install-check.ts). A poll alone confirms
   * nothing. Until then it counts as `verifying` (rollout-counts.ts), open, shown as running.
   */
  readonly verifyInstall?: boolean | VerifyInstall;
  readonly stopReason?: StopReason;
  /** Aborted, but its actions are not handled yet (scheduled ones removed, running ones canceled, rollback): the engine resumes it. */
  readonly abortPending?: boolean;
}

/** The store counter field of actions closed as a timeout (a subset of `error`), under rolloutTimeoutKey. */
export const TIMED_OUT = 'timedout';
/** The counter of a rollout's timed-out actions (apart from its per-status counts, which it would disturb). */
export const rolloutTimeoutKey = (rollout: number): string => `rt:${rollout}`;

/** Where a timed-out action's history says so: a rollout's timeouts are recognisable by this text. */
export const TIMEOUT_MESSAGE = 'Action timed out';

const MINUTE = 60_000;

/**
 * Why an open action of a rollout with `actionTimeout` is timed out at `now`, or undefined: running
 * (running, retrieved, or closed with success and not confirmed yet: verifyInstall) for longer than
 * inProgressMinutes since its start, or with nothing from its device for stepMinutes (its last change). Actions waiting for confirmation or canceling are left alone.
 */
export function timeoutOf(a: ActionRecord, timeout: ActionTimeout, now: number): string | undefined {
  // verifyInstall: an action whose device never polled again after its success feedback times out as a running one
  const verifying = a.status === 'finished' && a.verifying === true;
  if (a.status !== 'running' && a.status !== 'retrieved' && !verifying) return undefined;
  const started = a.startedAt ?? a.createdAt;
  if (now - started > timeout.inProgressMinutes * MINUTE) {
    return `${TIMEOUT_MESSAGE}: not finished within ${timeout.inProgressMinutes} minute(s) of its start (actionTimeout.inProgressMinutes)`;
  }
  if (timeout.stepMinutes !== null && now - a.lastModifiedAt > timeout.stepMinutes * MINUTE) {
    return `${TIMEOUT_MESSAGE}: no report from the device for ${timeout.stepMinutes} minute(s) (actionTimeout.stepMinutes)`;
  }
  return undefined;
}

/** The wait before retry number `n` (1-based), in ms: initial x factor^(n-1), at most maxSeconds. */
export function backoffMs(b: Backoff, n: number): number {
  return Math.min(b.initialSeconds * b.factor ** (n - 1), b.maxSeconds) * 1000;
}

/**
 * Whether a closed action of a rollout with `retry` gets another attempt: in error, not a rollback, not
 * retried already, with retries of its kind left (a timeout counts against `timedOut`, a failure against
 * `failed`, and only with one of `onlyCodes` when given). Answers the kind, or undefined.
 */
export function retryKind(a: ActionRecord, retry: RetryConfig): 'failed' | 'timedOut' | undefined {
  if (a.status !== 'error' || a.rollback === true || a.retried === true || a.retryStopped === true) return undefined;
  const used = a.retriesUsed ?? { failed: 0, timedOut: 0 };
  if (a.timedOut === true) return used.timedOut < retry.timedOut ? 'timedOut' : undefined;
  if (retry.onlyCodes !== null && (a.lastStatusCode === null || !retry.onlyCodes.includes(a.lastStatusCode))) return undefined;
  return used.failed < retry.failed ? 'failed' : undefined;
}
