/**
 * Which state changes a DMF device must hear about, read from the records a commit writes and turned
 * into effects committed in the same step (src/store/observed.ts). Whoever makes the change (a
 * Management assignment, auto-assignment, a rollout starting a group, a cancel, a confirmation, a
 * target deletion) and however, the message reaches the device through the durable effects queue:
 * a crash between the state change and the publish loses nothing.
 *
 * The effects name only ids; their handlers (outbound.ts) read the current state and skip targets
 * whose address is not `amqp://`. Where the commit itself shows the target's address, non-DMF
 * targets are filtered out here already, so a DDI-only fleet pays nothing for an assignment.
 * @see reference/hawkbit-api.md §9 (outbound messages), §4.2 (the transitions)
 */
import { ACTION, type ActionRecord, type ActionStatus } from '../domain/action.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { CommitObserver } from '../store/observed.js';
import type { Commit, Effect } from '../store/port.js';
import { isAmqpAddress } from './address.js';

/** Effect types the DMF connector handles. */
export const DMF_EFFECT = {
  /** Send the action's DOWNLOAD_AND_INSTALL, DOWNLOAD or CONFIRM (or its part of a batch). `{targetId, actionId}` */
  action: 'dmf.action',
  /** Send CANCEL_DOWNLOAD for the action. `{targetId, actionId}` */
  cancel: 'dmf.cancel',
  /** Send whatever the target should work on now (its highest-priority active action), if anything. `{targetId}` */
  next: 'dmf.next',
  /** Send REQUEST_ATTRIBUTES_UPDATE (after an installation, or when the Management API asks). `{targetId}` */
  attributes: 'dmf.attributes',
  /** Send THING_DELETED. `{controllerId, address}` (the target is gone, so the effect carries them) */
  deleted: 'dmf.deleted',
} as const;
type DmfEffectType = (typeof DMF_EFFECT)[keyof typeof DMF_EFFECT];
export const DMF_EFFECT_TYPES: readonly DmfEffectType[] = Object.values(DMF_EFFECT);

const OPEN_ON_START: ReadonlySet<ActionStatus> = new Set(['running', 'wait_for_confirmation']);

export const dmfCommitObserver: CommitObserver = (_tenant, commit) => {
  let out: Effect[] | undefined;
  const add = (e: Effect): void => void (out ??= []).push(e);
  for (const w of commit.writes) {
    if (w.kind === ACTION) {
      const after = w.after as ActionRecord | null;
      if (after === null) continue;
      if (w.expect === 0) {
        // a new online assignment: the target's write in the same commit tells whether it is a DMF target
        if (OPEN_ON_START.has(after.status) && targetMayBeDmf(commit, after.targetId)) add(actionEffect(DMF_EFFECT.action, after));
        continue;
      }
      const before = w.before as ActionRecord | undefined;
      if (before === undefined || before.status === after.status) continue;
      if (after.status === 'canceling') add(actionEffect(DMF_EFFECT.cancel, after));
      else if (started(before.status, after.status)) add(actionEffect(DMF_EFFECT.action, after));
      // hawkBit asks for the attributes after every installation (and a finished download-only action)
      else if (after.status === 'finished' || (after.status === 'downloaded' && after.actionType === 'downloadonly')) {
        add({ type: DMF_EFFECT.attributes, targetId: after.targetId });
      }
    } else if (w.kind === TARGET) {
      const before = w.before as TargetRecord | undefined;
      const after = w.after as TargetRecord | null;
      if (before === undefined) continue;
      if (after === null) {
        if (isAmqpAddress(before.address)) add({ type: DMF_EFFECT.deleted, controllerId: before.controllerId, address: before.address });
      } else if (raisedByHand(before, after) && isAmqpAddress(after.address)) {
        add({ type: DMF_EFFECT.attributes, targetId: after.id });
      }
    }
  }
  return out ?? NONE;
};
const NONE: readonly Effect[] = [];

/** A rollout group started the action, or it was confirmed (by the device, the Management API or auto-confirmation). */
function started(from: ActionStatus, to: ActionStatus): boolean {
  return (from === 'scheduled' && OPEN_ON_START.has(to)) || (from === 'wait_for_confirmation' && to === 'running');
}

/** The Management API raised the "request attributes" flag (an action's end raises it too; that one is sent above). */
function raisedByHand(before: TargetRecord, after: TargetRecord): boolean {
  return after.requestAttributes && !before.requestAttributes && before.updateStatus === after.updateStatus && before.installedAction === after.installedAction;
}

function actionEffect(type: DmfEffectType, a: ActionRecord): Effect {
  return { type, targetId: a.targetId, actionId: a.id };
}

function targetMayBeDmf(commit: Commit, targetId: number): boolean {
  for (const w of commit.writes) {
    if (w.kind === TARGET && w.id === targetId && w.after !== null) return isAmqpAddress((w.after as TargetRecord).address);
  }
  return true; // not in this commit: the handler looks the target up
}
