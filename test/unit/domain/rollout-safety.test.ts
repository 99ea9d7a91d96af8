/**
 * The abort control's evaluation and its rollout-machine steps (issue 25), pure: the denominator is the
 * actions in a final state, nothing fires before minFinished, at least one failure of the criterion's
 * type; an abort stops a running rollout at once and marks its actions as still to handle. A timed-out
 * action: which limit ran out, its close as an error, and its count under the rollout's timeout counter.
 */
import { describe, expect, it } from 'vitest';
import { step } from '../../../src/actors/step.js';
import { actionMachine } from '../../../src/domain/action.machine.js';
import { actionCounterDeltas } from '../../../src/domain/rollout-counts.js';
import { anAction } from '../../fixtures/records.js';
import { DEFAULT_CONDITIONS, rolloutSchema, type RolloutRecord } from '../../../src/domain/rollout.js';
import { rolloutMachine, type RolloutEvent } from '../../../src/domain/rollout.machine.js';
import { evaluateAbort } from '../../../src/domain/rollout-abort.js';
import {
  DEFAULT_BACKOFF, TIMED_OUT, backoffMs, retryKind, rolloutTimeoutKey, timeoutOf, type AbortConfig, type AbortCriterion, type RetryConfig,
} from '../../../src/domain/rollout-safety.js';

const abortOn = (...criteria: AbortCriterion[]): AbortConfig => ({ criteria, onAbort: 'cancel', rollbackTo: null });
const c = (failureType: AbortCriterion['failureType'], thresholdPercentage: number, minFinished = 1): AbortCriterion =>
  ({ failureType, thresholdPercentage, minFinished });

describe('evaluateAbort', () => {
  it('counts only final actions in the denominator and waits for minFinished', () => {
    const counts = { error: 1, finished: 1, running: 50, scheduled: 100 };
    expect(evaluateAbort(abortOn(c('error', 50, 3)), counts, false, 9)).toBeUndefined();
    expect(evaluateAbort(abortOn(c('error', 50, 2)), counts, false, 9)).toEqual({
      kind: 'abort', criterion: c('error', 50, 2), observedPercentage: 50, at: 9,
    });
    expect(evaluateAbort(abortOn(c('error', 50.01, 2)), counts, false, 9)).toBeUndefined();
  });

  it('failure types: error, canceled, timedOut (a subset of error), any (error or canceled)', () => {
    const counts = { error: 2, canceled: 1, finished: 1, [TIMED_OUT]: 1 };
    const observed = (type: AbortCriterion['failureType']) => evaluateAbort(abortOn(c(type, 0)), counts, false, 0)?.observedPercentage;
    expect([observed('error'), observed('canceled'), observed('timedOut'), observed('any')]).toEqual([50, 25, 25, 75]);
  });

  it('threshold 0 still needs one failure; the first criterion that holds is reported; downloaded is final for download-only', () => {
    expect(evaluateAbort(abortOn(c('error', 0)), { finished: 4 }, false, 0)).toBeUndefined();
    const two = abortOn(c('canceled', 10), c('error', 30));
    expect(evaluateAbort(two, { error: 1, finished: 2 }, false, 0)?.criterion).toEqual(c('error', 30));
    expect(evaluateAbort(abortOn(c('error', 50, 2)), { error: 1, downloaded: 1 }, false, 0)).toBeUndefined();
    expect(evaluateAbort(abortOn(c('error', 50, 2)), { error: 1, downloaded: 1 }, true, 0)?.observedPercentage).toBe(50);
  });
});

describe('rollout machine: abort', () => {
  const aRollout = (over: Partial<RolloutRecord>): RolloutRecord => ({
    id: 1, name: 'r', description: null, targetFilterQuery: 'id==*', ds: 7, status: 'running', actionType: 'forced', forceTime: 0,
    startAt: null, weight: null, deleted: false, totalTargets: 0, groups: [], approvalNeeded: false, approvalRemark: null,
    approveDecidedBy: null, retryOf: null, createdBy: 'admin', createdAt: 1, lastModifiedBy: 'admin', lastModifiedAt: 1,
    ...DEFAULT_CONDITIONS, ...over,
  });
  const reason = { kind: 'abort', criterion: c('any', 10), observedPercentage: 20, at: 5 } as const;
  const run = (r: RolloutRecord, e: RolloutEvent) => step(rolloutMachine, 'status', r, e);
  const pending = (r: RolloutRecord) => (rolloutSchema.indexes(r).multi ?? []).some(([index]) => index === 'abortPending');

  it('running -> stopped with the reason, listed under abortPending until its actions are handled', () => {
    const aborted = run(aRollout({}), { type: 'engine.aborted', at: 5, reason });
    expect(aborted.state).toBe('stopped');
    expect(aborted.record).toMatchObject({ stopReason: reason, abortPending: true, lastModifiedAt: 5 });
    expect(pending(aborted.record)).toBe(true);
    const handled = run(aborted.record, { type: 'engine.abortHandled', at: 6 });
    expect(handled.record).toMatchObject({ status: 'stopped', stopReason: reason, abortPending: false });
    expect(pending(handled.record)).toBe(false);
    expect(run(handled.record, { type: 'engine.abortHandled', at: 7 }).changed).toBe(false);
  });

  it('only a running rollout aborts; a deleting one leaves the abortPending index', () => {
    for (const status of ['paused', 'ready', 'stopping', 'finished'] as const) {
      expect(run(aRollout({ status }), { type: 'engine.aborted', at: 5, reason }).changed).toBe(false);
    }
    expect(pending(aRollout({ status: 'deleting', abortPending: true }))).toBe(false);
  });
});

describe('actionTimeout', () => {
  const MIN = 60_000;
  const started = anAction({ status: 'running', rollout: 3, rolloutGroup: 4, startedAt: 1_000, lastModifiedAt: 5 * MIN });

  it('inProgressMinutes counts from the group start, stepMinutes from the last change; only running and retrieved actions', () => {
    const limits = { inProgressMinutes: 10, stepMinutes: 3 };
    expect(timeoutOf(started, { ...limits, stepMinutes: 6 }, 1_000 + 10 * MIN)).toBeUndefined();
    expect(timeoutOf(started, { ...limits, stepMinutes: 6 }, 1_001 + 10 * MIN)).toContain('not finished within 10 minute(s)');
    expect(timeoutOf(started, { ...limits, inProgressMinutes: 60 }, 8 * MIN + 1)).toContain('no report from the device for 3 minute(s)');
    expect(timeoutOf(started, { ...limits, inProgressMinutes: 60, stepMinutes: null }, 50 * MIN)).toBeUndefined();
    for (const status of ['wait_for_confirmation', 'canceling', 'finished', 'error', 'scheduled'] as const) {
      expect(timeoutOf({ ...started, status }, limits, 100 * MIN)).toBeUndefined();
    }
    expect(timeoutOf({ ...started, status: 'retrieved' }, limits, 100 * MIN)).toBeDefined();
  });

  it('closes the action as an error with the message, tells the target, and counts it as timed out for its rollout', () => {
    const r = step(actionMachine, 'status', started, { type: 'engine.timedOut', at: 9 * MIN, message: 'Action timed out: x' });
    expect(r.state).toBe('error');
    expect(r.record).toMatchObject({ timedOut: true, active: true, lastModifiedAt: 9 * MIN });
    expect(r.entries).toEqual([{ type: 'error', messages: ['Update Server: Action timed out: x'], code: null, timestamp: 9 * MIN }]);
    expect(r.effects).toHaveLength(1);
    const closed = { ...r.record, status: 'error' as const, active: false };
    expect(actionCounterDeltas(started, closed)).toEqual(expect.arrayContaining([
      { key: rolloutTimeoutKey(3), field: TIMED_OUT, by: 1 }, { key: 'ro:3', field: 'error', by: 1 }, { key: 'rg:4', field: 'error', by: 1 },
    ]));
    expect(actionCounterDeltas(closed, null)).toContainEqual({ key: rolloutTimeoutKey(3), field: TIMED_OUT, by: -1 });
    expect(step(actionMachine, 'status', { ...started, status: 'finished' }, { type: 'engine.timedOut', at: 1, message: 'x' }).changed).toBe(false);
  });

  it('a group start records when the action started', () => {
    const r = step(actionMachine, 'status', anAction({ status: 'scheduled', active: false }), { type: 'group.started', at: 77, confirm: false });
    expect(r.record).toMatchObject({ status: 'running', startedAt: 77 });
  });
});

describe('retry', () => {
  const retry: RetryConfig = { failed: 2, timedOut: 1, backoff: DEFAULT_BACKOFF, onlyCodes: null };
  const failed = anAction({ status: 'error', rollout: 3, rolloutGroup: 4, lastStatusCode: 7 });

  it('backoff: initial x factor^(n-1), at most max', () => {
    expect([1, 2, 3, 7, 8].map((n) => backoffMs(DEFAULT_BACKOFF, n))).toEqual([60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
    expect(backoffMs({ initialSeconds: 10, factor: 1.5, maxSeconds: 20 }, 2)).toBe(15_000);
  });

  it('which kind of retry is left: failures against failed, timeouts against timedOut, onlyCodes on failures only', () => {
    expect(retryKind(failed, retry)).toBe('failed');
    expect(retryKind({ ...failed, retriesUsed: { failed: 2, timedOut: 0 } }, retry)).toBeUndefined();
    expect(retryKind({ ...failed, timedOut: true, retriesUsed: { failed: 2, timedOut: 0 } }, retry)).toBe('timedOut');
    expect(retryKind({ ...failed, timedOut: true, retriesUsed: { failed: 0, timedOut: 1 } }, retry)).toBeUndefined();
    expect(retryKind(failed, { ...retry, onlyCodes: [42] })).toBeUndefined();
    expect(retryKind({ ...failed, lastStatusCode: 42 }, { ...retry, onlyCodes: [42] })).toBe('failed');
    expect(retryKind({ ...failed, timedOut: true }, { ...retry, onlyCodes: [42] })).toBe('timedOut');
    for (const other of [{ status: 'finished' as const }, { retried: true }, { rollback: true }, { retryStopped: true }]) {
      expect(retryKind({ ...failed, ...other }, retry)).toBeUndefined();
    }
  });

  it('counts: waiting for a retry is `retrying` (open), a retried action counts no more, a timeout counts only as an error', () => {
    const waiting = { ...failed, retryAt: 99 };
    expect(actionCounterDeltas(failed, waiting)).toEqual([
      { key: 'rg:4', field: 'error', by: -1 }, { key: 'ro:3', field: 'error', by: -1 },
      { key: 'rg:4', field: 'retrying', by: 1 }, { key: 'ro:3', field: 'retrying', by: 1 },
    ]);
    expect(actionCounterDeltas(waiting, { ...waiting, retryAt: null, retried: true })).toEqual([
      { key: 'rg:4', field: 'retrying', by: -1 }, { key: 'ro:3', field: 'retrying', by: -1 },
    ]);
    expect(actionCounterDeltas({ ...failed, timedOut: true }, { ...failed, timedOut: true, retryAt: 5 }))
      .toContainEqual({ key: rolloutTimeoutKey(3), field: TIMED_OUT, by: -1 });
  });
});
