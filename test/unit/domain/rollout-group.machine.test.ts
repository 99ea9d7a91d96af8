import { describe, expect, it } from 'vitest';
import { step } from '../../../src/actors/step.js';
import { DEFAULT_CONDITIONS, type GroupStatus, type RolloutGroupRecord } from '../../../src/domain/rollout.js';
import { rolloutGroupMachine, type RolloutGroupEvent } from '../../../src/domain/rollout-group.machine.js';

function aGroup(over: Partial<RolloutGroupRecord> = {}): RolloutGroupRecord {
  return {
    id: 3, rollout: 1, name: 'group-1', description: null, status: 'creating', targetFilterQuery: null, targetPercentage: 100,
    confirmationRequired: false, totalTargets: 0, parent: null, successHandled: false,
    createdBy: 'admin', createdAt: 1, lastModifiedBy: 'admin', lastModifiedAt: 1, ...DEFAULT_CONDITIONS, ...over,
  };
}
const run = (g: RolloutGroupRecord, e: RolloutGroupEvent) => step(rolloutGroupMachine, 'status', g, e);
const at = 70;

describe('rollout group machine (reference §4.7): every transition', () => {
  it.each<[GroupStatus, RolloutGroupEvent, GroupStatus]>([
    ['creating', { type: 'engine.filled', at, totalTargets: 5 }, 'ready'],
    ['ready', { type: 'engine.scheduled', at }, 'scheduled'],
    ['scheduled', { type: 'engine.started', at }, 'running'],
    ['running', { type: 'engine.finished', at }, 'finished'],
    ['running', { type: 'engine.failed', at }, 'error'],
    ['creating', { type: 'engine.finished', at }, 'finished'],
    ['ready', { type: 'engine.finished', at }, 'finished'],
    ['scheduled', { type: 'engine.finished', at }, 'finished'],
  ])('%s + %o -> %s', (from, event, to) => {
    const r = run(aGroup({ status: from }), event);
    expect(r.changed).toBe(true);
    expect(r.state).toBe(to);
    expect(r.record.lastModifiedAt).toBe(at);
  });

  it('keeps the filled total', () => {
    expect(run(aGroup(), { type: 'engine.filled', at, totalTargets: 5 }).record.totalTargets).toBe(5);
  });

  it('runs its success action once: a running group records it and stays running', () => {
    const first = run(aGroup({ status: 'running' }), { type: 'engine.succeeded', at });
    expect([first.changed, first.state, first.record.successHandled]).toEqual([true, 'running', true]);
    expect(run(first.record, { type: 'engine.succeeded', at }).changed).toBe(false);
  });

  it.each<[GroupStatus, RolloutGroupEvent]>([
    ['creating', { type: 'engine.started', at }],
    ['ready', { type: 'engine.started', at }],
    ['scheduled', { type: 'engine.failed', at }],
    ['finished', { type: 'engine.started', at }],
    ['finished', { type: 'engine.finished', at }],
    ['error', { type: 'engine.finished', at }],
    ['error', { type: 'engine.succeeded', at }],
  ])('ignores an illegal transition: %s + %o', (from, event) => {
    expect(run(aGroup({ status: from }), event).changed).toBe(false);
  });
});
