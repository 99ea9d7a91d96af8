/**
 * Which actor changes a DMF device must hear about, turned into DMF effects that the actor runtime
 * commits with the change (its `ActorObserver`, plugged in by the DMF module). The runtime is the only
 * writer of targets and actions, so whoever makes the change (a Management assignment,
 * auto-assignment, a rollout starting a group, a cancel, a confirmation, a target deletion) and
 * however, the message reaches the device through the durable effects queue: a crash between the
 * state change and the publish loses nothing.
 *
 * The effects name only ids; the outbound port (outbound.ts) reads the current state and skips
 * targets whose address is not `amqp://`. Where the commit itself shows the target's address, non-DMF
 * targets are filtered out here already, so a DDI device pays nothing for an assignment.
 * @see reference/hawkbit-api.md §9 (outbound messages), §4.2 (the transitions)
 */
import type { ActorChange } from '../actors/change.js';
import type { ActorObserver } from '../actors/runtime.js';
import type { ActionRecord, ActionStatus } from '../domain/action.js';
import type { DmfEffect } from '../domain/effects.js';
import type { TargetRecord } from '../domain/target.js';
import { isAmqpAddress } from './address.js';

const OPEN_ON_START: ReadonlySet<ActionStatus> = new Set(['running', 'wait_for_confirmation']);
const NONE: readonly DmfEffect[] = [];

export const dmfObserver: ActorObserver = (_tenant, changes) => {
  let out: DmfEffect[] | undefined;
  const add = (e: DmfEffect): void => void (out ??= []).push(e);
  for (const c of changes) {
    if (c.kind === 'action') {
      const { before, after } = c;
      if (after === null) continue;
      if (before === undefined) {
        // a new online assignment: the target's change in the same commit tells whether it is a DMF target
        if (OPEN_ON_START.has(after.status) && targetMayBeDmf(changes, after.targetId)) add(actionEffect('dmf.action', after));
        continue;
      }
      if (before.status === after.status) continue;
      if (after.status === 'canceling') add(actionEffect('dmf.cancel', after));
      else if (started(before.status, after.status)) add(actionEffect('dmf.action', after));
      // hawkBit asks for the attributes after every installation (and a finished download-only action)
      else if (after.status === 'finished' || (after.status === 'downloaded' && after.actionType === 'downloadonly')) {
        add({ type: 'dmf.attributes', targetId: after.targetId });
      }
    } else if (c.kind === 'target') {
      const { before, after } = c;
      if (before === undefined) continue;
      if (after === null) {
        if (isAmqpAddress(before.address)) add({ type: 'dmf.deleted', controllerId: before.controllerId, address: before.address });
      } else if (raisedByHand(before, after) && isAmqpAddress(after.address)) {
        add({ type: 'dmf.attributes', targetId: after.id });
      }
    }
  }
  return out ?? NONE;
};

/** A rollout group started the action, or it was confirmed (by the device, the Management API or auto-confirmation). */
function started(from: ActionStatus, to: ActionStatus): boolean {
  return (from === 'scheduled' && OPEN_ON_START.has(to)) || (from === 'wait_for_confirmation' && to === 'running');
}

/** The Management API raised the "request attributes" flag (an action's end raises it too; that one is sent above). */
function raisedByHand(before: TargetRecord, after: TargetRecord): boolean {
  return after.requestAttributes && !before.requestAttributes && before.updateStatus === after.updateStatus
    && before.installedAction === after.installedAction;
}

function actionEffect(type: 'dmf.action' | 'dmf.cancel', a: ActionRecord): DmfEffect {
  return { type, targetId: a.targetId, actionId: a.id };
}

function targetMayBeDmf(changes: readonly ActorChange[], targetId: number): boolean {
  for (const c of changes) if (c.kind === 'target' && c.id === targetId && c.after !== null) return isAmqpAddress(c.after.address);
  return true; // not in this commit: the outbound port looks the target up
}
