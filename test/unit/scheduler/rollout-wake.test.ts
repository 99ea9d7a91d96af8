/**
 * Which commits wake the rollout engine's next pass (src/scheduler/rollout-wake.ts): an action of a
 * rollout closed, a rollout moving into a status the engine works on; nothing else.
 */
import { describe, expect, it } from 'vitest';
import type { ActorChange } from '../../../src/actors/change.js';
import type { ActionRecord } from '../../../src/domain/action.js';
import type { RolloutRecord } from '../../../src/domain/rollout.js';
import { wakesEngine } from '../../../src/scheduler/rollout-wake.js';

const action = (fields: Partial<ActionRecord>): ActionRecord => ({ id: 1, rollout: 7, active: true, status: 'running', ...fields } as ActionRecord);
const actionChange = (before: ActionRecord | undefined, after: ActionRecord | null): ActorChange => ({ kind: 'action', id: 1, before, after });
const rollout = (status: string): RolloutRecord => ({ id: 7, status } as RolloutRecord);
const rolloutChange = (before: string | undefined, after: string | null): ActorChange =>
  ({ kind: 'rollout', id: 7, before: before === undefined ? undefined : rollout(before), after: after === null ? null : rollout(after) });

describe('rollout engine wake-ups', () => {
  it('an action of a rollout closed wakes it', () => {
    expect(wakesEngine([actionChange(action({}), action({ active: false, status: 'finished' }))])).toBe(true);
    expect(wakesEngine([actionChange(action({}), action({ active: false, status: 'error' }))])).toBe(true);
  });

  it('other action changes do not: still running, started, outside a rollout, created, removed', () => {
    expect(wakesEngine([actionChange(action({}), action({ status: 'retrieved' }))])).toBe(false);
    expect(wakesEngine([actionChange(action({ active: false, status: 'scheduled' }), action({}))])).toBe(false);
    expect(wakesEngine([actionChange(action({ rollout: null }), action({ rollout: null, active: false, status: 'finished' }))])).toBe(false);
    expect(wakesEngine([actionChange(undefined, action({ active: false, status: 'scheduled' }))])).toBe(false);
    expect(wakesEngine([actionChange(action({}), null)])).toBe(false);
  });

  it('a rollout moving into a status the engine works on wakes it; other moves and edits do not', () => {
    expect(wakesEngine([rolloutChange(undefined, 'creating')])).toBe(true);
    expect(wakesEngine([rolloutChange('ready', 'starting')])).toBe(true);
    expect(wakesEngine([rolloutChange('running', 'stopping')])).toBe(true);
    expect(wakesEngine([rolloutChange('running', 'paused')])).toBe(false);
    expect(wakesEngine([rolloutChange('running', 'finished')])).toBe(false);
    expect(wakesEngine([rolloutChange('running', 'running')])).toBe(false); // a field edit
    expect(wakesEngine([])).toBe(false);
  });
});
