import { describe, expect, it } from 'vitest';
import type { ActionRecord } from '../../../src/domain/action.js';
import { DEFAULT_CONDITIONS } from '../../../src/domain/rollout.js';
import { actionCounterDeltas, evaluateGroup, perStatus } from '../../../src/domain/rollout-counts.js';
import { amountGroupDefs, distribute, groupQuery, orderTargets, shareOf } from '../../../src/domain/rollout-plan.js';
import { anAction } from '../../fixtures/records.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const all = () => true;

describe('group creation and sizing (reference §4.7)', () => {
  it('amountGroups: group-1..N, 100/N percent each, the rollout conditions', () => {
    const defs = amountGroupDefs(3);
    expect(defs.map((d) => d.name)).toEqual(['group-1', 'group-2', 'group-3']);
    expect(defs[0]?.targetPercentage).toBeCloseTo(33.333, 2);
    expect(defs[2]?.successCondition).toEqual(DEFAULT_CONDITIONS.successCondition);
  });

  it('amountGroups over 100 targets in 3 groups: 33, 34, 33 (share of what is left, rounded)', () => {
    const d = distribute(ids(100), amountGroupDefs(3), all);
    expect(d.groups.map((g) => g.length)).toEqual([33, 34, 33]);
    expect(d.left).toBe(0);
    expect(d.groups.flat()).toEqual(ids(100));
  });

  it('100,000 targets in 10 groups take 10,000 each', () => {
    expect(distribute(ids(100_000), amountGroupDefs(10), all).groups.map((g) => g.length)).toEqual(Array(10).fill(10_000));
  });

  it('explicit percentages are shares of what earlier groups with the same filter left', () => {
    const groups = [20, 50, 100].map((targetPercentage) => ({ targetFilterQuery: null, targetPercentage }));
    expect(shareOf(groups, 0)).toBe(20);
    expect(shareOf(groups, 1)).toBe(62.5);
    expect(shareOf(groups, 2)).toBe(100);
    expect(distribute(ids(10), groups, all).groups.map((g) => g.length)).toEqual([2, 5, 3]);
  });

  it('groups that do not cover every target leave some over', () => {
    const d = distribute(ids(10), [{ targetFilterQuery: null, targetPercentage: 50 }], all);
    expect([d.groups[0]?.length, d.left]).toEqual([5, 5]);
  });

  it('a group filter takes only the targets it accepts; a later unfiltered group takes the rest', () => {
    const groups = [{ targetFilterQuery: 'even', targetPercentage: 100 }, { targetFilterQuery: null, targetPercentage: 100 }];
    const d = distribute(ids(6), groups, (g, t) => g === 1 || t % 2 === 0);
    expect(d.groups).toEqual([[2, 4, 6], [1, 3, 5]]);
    expect(d.left).toBe(0);
  });

  it('an empty rollout gives empty groups', () => {
    expect(distribute([], amountGroupDefs(2), all)).toEqual({ groups: [[], []], left: 0 });
  });

  it('ANDs a group filter with the rollout filter', () => {
    expect(groupQuery('name==a*', null)).toBe('name==a*');
    expect(groupQuery('name==a*', 'tag==x')).toBe('(name==a*);(tag==x)');
  });
});

describe('group evaluation (reference §4.7)', () => {
  const conditions = (success: string, error: string) => ({
    ...DEFAULT_CONDITIONS, successCondition: { condition: 'THRESHOLD' as const, expression: success },
    errorCondition: { condition: 'THRESHOLD' as const, expression: error },
  });

  it('error is strictly above the threshold', () => {
    expect(evaluateGroup({ error: 5, finished: 5 }, 10, conditions('100', '50'), false).error).toBe(false);
    expect(evaluateGroup({ error: 6, finished: 4 }, 10, conditions('100', '50'), false).error).toBe(true);
  });

  it('success is at or above the threshold', () => {
    expect(evaluateGroup({ finished: 5, running: 5 }, 10, conditions('50', '50'), false)).toEqual({ error: false, success: true, complete: false });
    expect(evaluateGroup({ finished: 4, running: 6 }, 10, conditions('50', '50'), false).success).toBe(false);
  });

  it('complete when no action is open; canceled and error are closed', () => {
    expect(evaluateGroup({ finished: 3, error: 1, canceled: 1 }, 5, conditions('100', '100'), false)).toEqual({ error: false, success: false, complete: true });
    expect(evaluateGroup({ finished: 4, scheduled: 1 }, 5, conditions('100', '100'), false).complete).toBe(false);
  });

  it('download-only counts DOWNLOADED as finished', () => {
    expect(evaluateGroup({ downloaded: 10 }, 10, conditions('100', '0'), true)).toEqual({ error: false, success: true, complete: true });
    expect(evaluateGroup({ downloaded: 10 }, 10, conditions('100', '0'), false)).toEqual({ error: false, success: false, complete: false });
  });

  it('an empty group succeeds and never errs', () => {
    expect(evaluateGroup({}, 0, conditions('100', '0'), false)).toEqual({ error: false, success: true, complete: true });
  });
});

describe('per-status counts (reference §4.7 mapping)', () => {
  it('maps action statuses; notstarted is what is not counted', () => {
    const counts = {
      scheduled: 2, running: 1, retrieved: 1, warning: 1, download: 1, wait_for_confirmation: 1,
      canceling: 1, error: 3, finished: 4, canceled: 1, downloaded: 2,
    };
    expect(perStatus(counts, 20, false)).toEqual({ scheduled: 2, running: 8, error: 3, finished: 4, cancelled: 1, notstarted: 2 });
    expect(perStatus(counts, 20, true)).toEqual({ scheduled: 2, running: 6, error: 3, finished: 6, cancelled: 1, notstarted: 2 });
  });
});

describe('counter increments of action changes', () => {
  const inGroup = (over: Partial<ActionRecord> = {}) => anAction({ rollout: 4, rolloutGroup: 9, status: 'scheduled', ...over });

  it('a created action counts under its group and rollout', () => {
    expect(actionCounterDeltas(undefined, inGroup())).toEqual([{ key: 'rg:9', field: 'scheduled', by: 1 }, { key: 'ro:4', field: 'scheduled', by: 1 }]);
  });

  it('a status change moves one unit', () => {
    expect(actionCounterDeltas(inGroup(), inGroup({ status: 'running' }))).toEqual([
      { key: 'rg:9', field: 'scheduled', by: -1 }, { key: 'ro:4', field: 'scheduled', by: -1 },
      { key: 'rg:9', field: 'running', by: 1 }, { key: 'ro:4', field: 'running', by: 1 },
    ]);
  });

  it('a removed action uncounts; an edit keeping the status and actions of no rollout count nothing', () => {
    expect(actionCounterDeltas(inGroup({ status: 'error' }), null)).toEqual([{ key: 'rg:9', field: 'error', by: -1 }, { key: 'ro:4', field: 'error', by: -1 }]);
    expect(actionCounterDeltas(inGroup(), inGroup({ weight: 5 }))).toEqual([]);
    expect(actionCounterDeltas(anAction(), anAction({ status: 'finished' }))).toEqual([]);
  });
});

describe('orderTargets (groupOrder)', () => {
  const ids = Array.from({ length: 40 }, (_, i) => i + 1);
  const siteOf = (t: number): string => `s${Math.ceil(t / 4)}`; // 10 sites of 4 consecutive targets
  const attr = (t: number, name: string): string | undefined => (name === 'site' ? siteOf(t) : undefined);

  it('created (or none) keeps the order; random is a permutation fixed by its seed', () => {
    expect(orderTargets(ids, undefined, attr)).toEqual(ids);
    expect(orderTargets(ids, { order: 'created' }, attr)).toEqual(ids);
    const a = orderTargets(ids, { order: 'random', seed: 9 }, attr);
    expect([...a].sort((x, y) => x - y)).toEqual(ids);
    expect(a).not.toEqual(ids);
    expect(orderTargets(ids, { order: 'random', seed: 9 }, attr)).toEqual(a);
    expect(orderTargets(ids, { order: 'random', seed: 10 }, attr)).not.toEqual(a);
  });

  it('spread: each quarter of the order holds one target of every site', () => {
    const spread = orderTargets(ids, { order: 'spread', seed: 1, attribute: 'site' }, attr);
    expect([...spread].sort((x, y) => x - y)).toEqual(ids);
    for (let q = 0; q < 4; q++) expect(new Set(spread.slice(q * 10, q * 10 + 10).map(siteOf)).size).toBe(10);
    // a target without the attribute counts as one more value
    expect(orderTargets([1, 2, 3], { order: 'spread', seed: 1, attribute: 'rack' }, attr)).toHaveLength(3);
  });
});
