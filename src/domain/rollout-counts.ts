import type { ActionRecord } from './action.js';
import type { Conditions } from './rollout.js';
import { TIMED_OUT, rolloutTimeoutKey } from './rollout-safety.js';

/**
 * The counts of a rollout and of its groups, kept as commutative store counters (Commit.counters):
 * every commit that creates, changes the status of, or removes an action of a rollout moves one
 * unit from the old status's field to the new one's, under the group's key and the rollout's key.
 * Increments commute, so concurrent actions never conflict on them, and they are exact on every read.
 * @see reference §4.7 (per-status counts, evaluation)
 */

/** One increment of a store counter: `key`'s field `field` changes by `by`. */
export interface CounterDelta {
  readonly key: string;
  readonly field: string;
  readonly by: number;
}

/** Action counts by Action.Status (lower case), as the counters hold them. */
export type StatusCounts = Readonly<Partial<Record<string, number>>>;

export const groupCounterKey = (group: number): string => `rg:${group}`;
export const rolloutCounterKey = (rollout: number): string => `ro:${rollout}`;

/** The counter field of an action waiting for its retry (rollout-safety.ts): open, so its group is not complete. */
export const RETRYING = 'retrying';

/** The counter field of a verifyInstall action closed with success, not confirmed yet: open, counted as running. */
export const VERIFYING = 'verifying';

/** The field an action counts under: its status; `retrying` while it waits for a retry, `verifying` until confirmed; none once retried. */
function fieldOf(a: ActionRecord): string | undefined {
  if (a.retried === true) return undefined;
  if (a.status === 'finished' && a.verifying === true) return VERIFYING;
  return a.status === 'error' && a.retryAt != null ? RETRYING : a.status;
}

/** The counter increments of one action change (`before` undefined: created; `after` null: removed). */
export function actionCounterDeltas(before: ActionRecord | undefined, after: ActionRecord | null): CounterDelta[] {
  const out: CounterDelta[] = [];
  // a timed-out action counts under its rollout's timeout counter as well, while it counts as an error (rollout-safety.ts)
  const timedOut = (a: ActionRecord | null | undefined): boolean =>
    a?.timedOut === true && a.rollout !== null && a.rollback !== true && fieldOf(a) === 'error';
  if (timedOut(before) !== timedOut(after)) {
    const a = (timedOut(after) ? after : before) as ActionRecord;
    out.push({ key: rolloutTimeoutKey(a.rollout as number), field: TIMED_OUT, by: timedOut(after) ? 1 : -1 });
  }
  const move = (a: ActionRecord, by: number) => {
    const field = fieldOf(a);
    if (field === undefined) return;
    if (a.rolloutGroup !== null) out.push({ key: groupCounterKey(a.rolloutGroup), field, by });
    // a rollback action (an aborted rollout's) is listed under the rollout but not counted in it
    if (a.rollout !== null && a.rollback !== true) out.push({ key: rolloutCounterKey(a.rollout), field, by });
  };
  const same = before !== undefined && after !== null && fieldOf(before) === fieldOf(after) && before.rolloutGroup === after.rolloutGroup;
  if (same) return out;
  if (before !== undefined) move(before, -1);
  if (after !== null) move(after, 1);
  return out;
}

/** `totalTargetsPerStatus` (reference §3.7, §4.7 mapping). */
export interface PerStatus {
  readonly scheduled: number;
  readonly running: number;
  readonly error: number;
  readonly finished: number;
  readonly cancelled: number;
  readonly notstarted: number;
}

/** Which per-status count an action status goes to; DOWNLOADED is finished only for download-only rollouts. */
export function perStatusOf(status: string, downloadOnly: boolean): Exclude<keyof PerStatus, 'notstarted'> {
  switch (status) {
    case 'scheduled': return 'scheduled';
    case 'error': return 'error';
    case 'finished': return 'finished';
    case 'canceled': return 'cancelled';
    case 'downloaded': return downloadOnly ? 'finished' : 'running';
    default: return 'running';
  }
}

/** The per-status counts of `total` targets; those without an action yet are `notstarted`. */
export function perStatus(counts: StatusCounts, total: number, downloadOnly: boolean): PerStatus {
  const out = { scheduled: 0, running: 0, error: 0, finished: 0, cancelled: 0 };
  for (const [status, n] of Object.entries(counts)) if (n !== undefined && n > 0) out[perStatusOf(status, downloadOnly)] += n;
  const counted = out.scheduled + out.running + out.error + out.finished + out.cancelled;
  return { ...out, notstarted: Math.max(0, total - counted) };
}

/** What the engine does with a running group (reference §4.7 evaluation). */
export interface Evaluation {
  /** The error condition holds: error action (PAUSE): group → error, rollout paused. */
  readonly error: boolean;
  /** The success condition holds: its success action runs (once). */
  readonly success: boolean;
  /** No action of the group is open any more: group → finished. */
  readonly complete: boolean;
}

const count = (counts: StatusCounts, status: string): number => counts[status] ?? 0;

/** A threshold expression as a number 0..100 (checked on create; anything else counts as 100). */
export function thresholdOf(expression: string): number {
  const n = Number(expression);
  return expression.trim() !== '' && Number.isFinite(n) ? n : 100;
}

/**
 * Error: errors / total > error threshold (strict; an empty group never errs). Complete: no action
 * in a status other than error, finished, canceled (and downloaded for download-only). Success:
 * finished (for download-only: downloaded only) / total >= success threshold (an empty group succeeds).
 * A canceled action closes its group but counts neither as error nor as success (hawkBit 1.1, #3110).
 */
export function evaluateGroup(counts: StatusCounts, total: number, conditions: Conditions, downloadOnly: boolean): Evaluation {
  const errors = count(counts, 'error');
  // hawkBit's ThresholdRolloutGroupSuccessCondition counts one status: DOWNLOADED for download-only, else FINISHED
  const done = count(counts, downloadOnly ? 'downloaded' : 'finished');
  const error = total > 0 && (errors * 100) / total > thresholdOf(conditions.errorCondition.expression);
  let open = 0;
  for (const [status, n] of Object.entries(counts)) {
    if (n === undefined || n <= 0) continue;
    const closed = status === 'error' || status === 'finished' || status === 'canceled' || (downloadOnly && status === 'downloaded');
    if (!closed) open += n;
  }
  const success = total === 0 || (done * 100) / total >= thresholdOf(conditions.successCondition.expression);
  return { error, success, complete: open === 0 };
}
