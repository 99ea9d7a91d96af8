import { describe, expect, it } from 'vitest';
import { step } from '../../../src/actors/step.js';
import { DEFAULT_CONDITIONS, type RolloutRecord, type RolloutStatus } from '../../../src/domain/rollout.js';
import { rolloutMachine, type RolloutEvent } from '../../../src/domain/rollout.machine.js';

function aRollout(over: Partial<RolloutRecord> = {}): RolloutRecord {
  return {
    id: 1, name: 'r', description: null, targetFilterQuery: 'id==*', ds: 7, status: 'creating', actionType: 'forced', forceTime: 0,
    startAt: null, weight: null, deleted: false, totalTargets: 0, groups: [], approvalNeeded: false, approvalRemark: null,
    approveDecidedBy: null, retryOf: null, createdBy: 'admin', createdAt: 1, lastModifiedBy: 'admin', lastModifiedAt: 1,
    ...DEFAULT_CONDITIONS, ...over,
  };
}
const run = (r: RolloutRecord, e: RolloutEvent) => step(rolloutMachine, 'status', r, e);
const at = 50;
const by = 'alice';

describe('rollout machine (reference §4.6): every transition', () => {
  it.each<[RolloutStatus, RolloutEvent, RolloutStatus, Partial<RolloutRecord>?]>([
    ['creating', { type: 'engine.filled', at, totalTargets: 12 }, 'ready'],
    ['creating', { type: 'engine.filled', at, totalTargets: 12 }, 'waiting_for_approval', { approvalNeeded: true }],
    ['waiting_for_approval', { type: 'mgmt.approve', at, by, remark: 'ok' }, 'ready'],
    ['waiting_for_approval', { type: 'mgmt.deny', at, by, remark: 'no' }, 'approval_denied'],
    ['ready', { type: 'mgmt.start', at, by }, 'starting'],
    ['starting', { type: 'engine.started', at }, 'running'],
    ['running', { type: 'mgmt.pause', at, by }, 'paused'],
    ['paused', { type: 'mgmt.resume', at, by }, 'running'],
    ['running', { type: 'engine.finished', at }, 'finished'],
    ['creating', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['ready', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['waiting_for_approval', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['starting', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['running', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['paused', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['approval_denied', { type: 'mgmt.stop', at, by }, 'stopping'],
    ['stopping', { type: 'engine.stopped', at }, 'stopped'],
    ['deleting', { type: 'engine.deleted', at }, 'deleted'],
  ])('%s + %o -> %s', (from, event, to, over = {}) => {
    const r = run(aRollout({ status: from, ...over }), event);
    expect(r.changed).toBe(true);
    expect(r.state).toBe(to);
    expect(r.record.status).toBe(to);
    expect(r.record.lastModifiedAt).toBe(at);
  });

  it.each<RolloutStatus>(['creating', 'waiting_for_approval', 'approval_denied', 'ready', 'paused', 'starting', 'stopped', 'stopping', 'running', 'finished'])(
    'DELETE moves %s to deleting', (from) => {
      const r = run(aRollout({ status: from }), { type: 'mgmt.delete', at, by });
      expect(r.state).toBe('deleting');
    },
  );

  it('keeps the filled total, and the approval decision with its remark', () => {
    expect(run(aRollout(), { type: 'engine.filled', at, totalTargets: 12 }).record.totalTargets).toBe(12);
    const approved = run(aRollout({ status: 'waiting_for_approval' }), { type: 'mgmt.approve', at, by, remark: 'fine' }).record;
    expect([approved.approveDecidedBy, approved.approvalRemark, approved.lastModifiedBy]).toEqual([by, 'fine', by]);
  });

  it('marks a softly deleted rollout deleted', () => {
    expect(run(aRollout({ status: 'deleting' }), { type: 'engine.deleted', at }).record.deleted).toBe(true);
  });

  it.each<[RolloutStatus, RolloutEvent]>([
    ['creating', { type: 'mgmt.start', at, by }],
    ['running', { type: 'mgmt.start', at, by }],
    ['ready', { type: 'mgmt.approve', at, by, remark: null }],
    ['ready', { type: 'mgmt.pause', at, by }],
    ['paused', { type: 'mgmt.pause', at, by }],
    ['running', { type: 'mgmt.resume', at, by }],
    ['finished', { type: 'mgmt.stop', at, by }],
    ['stopped', { type: 'mgmt.stop', at, by }],
    ['stopping', { type: 'mgmt.stop', at, by }],
    ['deleting', { type: 'mgmt.delete', at, by }],
    ['deleted', { type: 'mgmt.delete', at, by }],
    ['deleted', { type: 'mgmt.stop', at, by }],
    ['approval_denied', { type: 'mgmt.approve', at, by, remark: null }],
    ['paused', { type: 'engine.finished', at }],
  ])('ignores an illegal transition: %s + %o', (from, event) => {
    const r = run(aRollout({ status: from }), event);
    expect(r.changed).toBe(false);
    expect(r.state).toBe(from);
  });
});
