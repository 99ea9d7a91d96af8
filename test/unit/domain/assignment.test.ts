import { describe, expect, it } from 'vitest';
import { assignmentSettings, replacedEffects, startDecision, startReplaces, type AssignmentSettings } from '../../../src/domain/assignment.js';
import { builtInDefaults, viewOf } from '../../../src/domain/tenant-config.js';

const plain: AssignmentSettings = { multi: false, flow: false, autoclose: false };
const at = { by: 'engine', now: 1000 };
const scheduled = { status: 'scheduled', ds: 7 } as const;
const free = { assignedDs: 3, autoConfirm: null };
const asks = { confirmationRequired: true };

describe('assignment settings', () => {
  it('are the tenant configuration\'s three switches', () => {
    expect(assignmentSettings(viewOf({}, builtInDefaults()))).toEqual(plain);
    expect(assignmentSettings(viewOf({ 'multi.assignments.enabled': true, 'repository.actions.autoclose.enabled': true }, builtInDefaults())))
      .toEqual({ multi: true, flow: false, autoclose: true });
  });
});

describe('starting a scheduled action of a rollout group', () => {
  it('is gone when not scheduled any more, its target deleted or its group unknown', () => {
    expect(startDecision(plain, { ...scheduled, status: 'running' }, free, asks, at)).toEqual({ kind: 'gone' });
    expect(startDecision(plain, scheduled, undefined, asks, at)).toEqual({ kind: 'gone' });
    expect(startDecision(plain, scheduled, free, undefined, at)).toEqual({ kind: 'gone' });
  });

  it('is skipped when its target has the set assigned already, unless multi-assignment is on or it is a retry', () => {
    const holding = { ...free, assignedDs: 7 };
    expect(startDecision(plain, scheduled, holding, asks, at)).toEqual({ kind: 'skipped', event: { type: 'group.skipped', at: 1000 } });
    expect(startDecision({ ...plain, multi: true }, scheduled, holding, asks, at).kind).toBe('started');
    expect(startDecision(plain, scheduled, holding, asks, { ...at, retry: true }).kind).toBe('started');
  });

  it('assigns the set to the target and waits for confirmation only with the flow on, a group that asks and no auto-confirmation', () => {
    expect(startDecision(plain, scheduled, free, asks, at)).toEqual({
      kind: 'started',
      assigned: { type: 'mgmt.assigned', ds: 7, at: 1000, by: 'engine' },
      event: { type: 'group.started', at: 1000, confirm: false },
    });
    const flow = { ...plain, flow: true };
    type Target = Parameters<typeof startDecision>[2];
    const confirm = (target: Target, group: typeof asks) => {
      const d = startDecision(flow, scheduled, target, group, at);
      return d.kind === 'started' && d.event.type === 'group.started' ? d.event.confirm : undefined;
    };
    expect(confirm(free, asks)).toBe(true);
    expect(confirm(free, { confirmationRequired: false })).toBe(false);
    expect(confirm({ ...free, autoConfirm: { initiator: null, remark: null, activatedAt: 1 } }, asks)).toBe(false);
  });

  it('cancels the target\'s other active actions as obsolete, closes them with autoclose, and leaves them with multi-assignment', () => {
    const obsolete = [{ id: 4 }, { id: 9 }, { id: 5 }];
    expect(startReplaces(plain, { id: 9 }, obsolete, at)).toEqual([
      { type: 'send', to: { kind: 'action', id: 4 }, event: { type: 'mgmt.cancel', at: 1000, by: 'engine', reason: 'obsolete' } },
      { type: 'send', to: { kind: 'action', id: 5 }, event: { type: 'mgmt.cancel', at: 1000, by: 'engine', reason: 'obsolete' } },
    ]);
    expect(replacedEffects({ ...plain, autoclose: true }, [{ id: 4 }], 'admin', 5)).toEqual([
      { type: 'send', to: { kind: 'action', id: 4 }, event: { type: 'mgmt.close', at: 5, by: 'admin' } },
    ]);
    expect(startReplaces({ ...plain, multi: true }, { id: 9 }, obsolete, at)).toEqual([]);
  });
});
