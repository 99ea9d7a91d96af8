import { describe, expect, it } from 'vitest';
import type { ActorChange } from '../../../src/actors/change.js';
import type { ActionRecord } from '../../../src/domain/action.js';
import type { TargetRecord } from '../../../src/domain/target.js';
import { dmfObserver } from '../../../src/dmf/observer.js';
import { anAction, aTarget } from '../../fixtures/records.js';

const DMF = 'amqp://%2F/gw.exchange';
const observe = (...changes: ActorChange[]) => dmfObserver('T', changes);
const actionWrite = (before: Partial<ActionRecord> | undefined, after: Partial<ActionRecord> | null): ActorChange =>
  ({ kind: 'action', id: 10, before: before && anAction(before), after: after && anAction(after) });
const targetWrite = (before: Partial<TargetRecord> | undefined, after: Partial<TargetRecord> | null): ActorChange =>
  ({ kind: 'target', id: 1, before: before && aTarget(before), after: after && aTarget(after) });

describe('which actor changes tell a DMF device something', () => {
  it('a new open action of a DMF target, not of a DDI one; unknown targets are checked later', () => {
    const created = actionWrite(undefined, { status: 'running' });
    expect(observe(targetWrite({ address: DMF }, { address: DMF, updateStatus: 'pending' }), created)).toEqual([{ type: 'dmf.action', targetId: 1, actionId: 10 }]);
    expect(observe(targetWrite({ address: 'http://1.2.3.4' }, { address: 'http://1.2.3.4' }), created)).toEqual([]);
    expect(observe(created)).toEqual([{ type: 'dmf.action', targetId: 1, actionId: 10 }]);
    expect(observe(actionWrite(undefined, { status: 'scheduled', active: false }))).toEqual([]);
    expect(observe(actionWrite(undefined, { status: 'finished', active: false }))).toEqual([]); // offline assignment
  });

  it('a rollout group start, a confirmation, a cancel, an installation', () => {
    expect(observe(actionWrite({ status: 'scheduled' }, { status: 'running' }))[0]?.type).toBe('dmf.action');
    expect(observe(actionWrite({ status: 'scheduled' }, { status: 'wait_for_confirmation' }))[0]?.type).toBe('dmf.action');
    expect(observe(actionWrite({ status: 'wait_for_confirmation' }, { status: 'running' }))[0]?.type).toBe('dmf.action');
    expect(observe(actionWrite({ status: 'retrieved' }, { status: 'canceling' }))).toEqual([{ type: 'dmf.cancel', targetId: 1, actionId: 10 }]);
    expect(observe(actionWrite({ status: 'running' }, { status: 'finished' }))).toEqual([{ type: 'dmf.attributes', targetId: 1 }]);
    expect(observe(actionWrite({ status: 'running', actionType: 'downloadonly' }, { status: 'downloaded', actionType: 'downloadonly' }))[0]?.type).toBe('dmf.attributes');
    // nothing for reports that change no status, for the machine's other moves
    expect(observe(actionWrite({ status: 'running' }, { status: 'running', entries: 4 }))).toEqual([]);
    expect(observe(actionWrite({ status: 'running' }, { status: 'retrieved' }))).toEqual([]);
    expect(observe(actionWrite({ status: 'canceling' }, { status: 'running' }))).toEqual([]);
    expect(observe(actionWrite({ status: 'running' }, { status: 'error' }))).toEqual([]);
  });

  it('a deleted DMF target, and the Management API asking for attributes', () => {
    expect(observe(targetWrite({ address: DMF, controllerId: 'dev-1' }, null))).toEqual([{ type: 'dmf.deleted', controllerId: 'dev-1', address: DMF }]);
    expect(observe(targetWrite({ address: null }, null))).toEqual([]);
    expect(observe(targetWrite({ address: DMF, requestAttributes: false }, { address: DMF, requestAttributes: true }))).toEqual([{ type: 'dmf.attributes', targetId: 1 }]);
    // raised by an installation: the action's write says so already
    const write = targetWrite(
      { address: DMF, requestAttributes: false, installedAction: null },
      { address: DMF, requestAttributes: true, installedAction: 10 },
    );
    expect(observe(write)).toEqual([]);
    expect(observe(targetWrite({ address: 'http://1.2.3.4', requestAttributes: false }, { address: 'http://1.2.3.4', requestAttributes: true }))).toEqual([]);
    expect(observe(targetWrite(undefined, { address: DMF }))).toEqual([]);
  });
});
