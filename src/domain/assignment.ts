/**
 * What an assignment decides (reference §4.2, §4.4): how the active actions it replaces end, for a
 * Management assignment (src/actors/assign.ts) and a rollout's alike; and how a scheduled action of a
 * rollout group starts ("Rollout group start"), decided once for the one-by-one start and the joint
 * one (src/actors/rollout-actions.ts): whether it starts, whether it then waits for confirmation, and
 * what becomes of its target's other active actions. Pure: the caller reads the action, its target
 * and the target's obsolete actions.
 */
import { ACTION, type ActionRecord } from './action.js';
import type { ActionEvent } from './action.events.js';
import type { Effect } from './effects.js';
import type { RolloutGroupRecord } from './rollout.js';
import type { TargetEvent } from './target.machine.js';
import type { TargetRecord } from './target.js';
import type { TenantConfigView } from './tenant-config.js';

/** The tenant's settings an assignment follows. */
export interface AssignmentSettings {
  /** `multi.assignments.enabled`: no action replaces another, and a set assigned already is assigned again. */
  readonly multi: boolean;
  /** `user.confirmation.flow.enabled`: an action may wait for the device's confirmation. */
  readonly flow: boolean;
  /** `repository.actions.autoclose.enabled`: a replaced action is closed instead of canceled. */
  readonly autoclose: boolean;
}

export function assignmentSettings(cfg: TenantConfigView): AssignmentSettings {
  return {
    multi: cfg.bool('multi.assignments.enabled'),
    flow: cfg.bool('user.confirmation.flow.enabled'),
    autoclose: cfg.bool('repository.actions.autoclose.enabled'),
  };
}

/** The effects that end the active actions a new assignment replaces: canceled as obsolete, or closed with autoclose; none with multi-assignment. */
export function replacedEffects(s: AssignmentSettings, replaced: readonly Pick<ActionRecord, 'id'>[], by: string, now: number): Effect[] {
  if (s.multi) return [];
  return replaced.map((a): Effect => ({
    type: 'send', to: { kind: ACTION, id: a.id },
    event: s.autoclose ? { type: 'mgmt.close', at: now, by } : { type: 'mgmt.cancel', at: now, by, reason: 'obsolete' },
  }));
}

/** What starting a scheduled action of a group comes to. */
export type StartDecision =
  /** Not scheduled any more, its target deleted, or its group unknown: nothing to do. */
  | { readonly kind: 'gone' }
  /** Its target has the set assigned already: the action finishes without a deployment ("Skipping this action"). */
  | { readonly kind: 'skipped'; readonly event: ActionEvent }
  /** The target gets the set assigned (pending) and the action runs, or waits for confirmation. */
  | { readonly kind: 'started'; readonly assigned: TargetEvent; readonly event: ActionEvent };

export interface StartBy {
  readonly by: string;
  readonly now: number;
  /** A retry of the rollout's (`retry`): it deploys the set its target has assigned once more. */
  readonly retry?: boolean;
}

/** The event that assigns an action's set to its target. */
export function assignedEvent(action: Pick<ActionRecord, 'ds'>, { by, now }: StartBy): TargetEvent {
  return { type: 'mgmt.assigned', ds: action.ds, at: now, by };
}

/**
 * A scheduled action's start: the action waits for confirmation when its group asks for it, the tenant's
 * confirmation flow is on and its target has no auto-confirmation.
 */
export function startDecision(
  s: AssignmentSettings, action: Pick<ActionRecord, 'status' | 'ds'>, target: Pick<TargetRecord, 'assignedDs' | 'autoConfirm'> | undefined,
  group: Pick<RolloutGroupRecord, 'confirmationRequired'> | undefined, start: StartBy,
): StartDecision {
  if (action.status !== 'scheduled' || target === undefined || group === undefined) return { kind: 'gone' };
  if (!s.multi && start.retry !== true && target.assignedDs === action.ds) return { kind: 'skipped', event: { type: 'group.skipped', at: start.now } };
  const confirm = s.flow && group.confirmationRequired && target.autoConfirm === null;
  return { kind: 'started', assigned: assignedEvent(action, start), event: { type: 'group.started', at: start.now, confirm } };
}

/** The effects that end the target's other active actions when `action` starts (`obsolete`: the target's, as assign.ts's obsoleteActions reads them). */
export function startReplaces(
  s: AssignmentSettings, action: Pick<ActionRecord, 'id'>, obsolete: readonly Pick<ActionRecord, 'id'>[], start: StartBy,
): Effect[] {
  return replacedEffects(s, obsolete.filter((o) => o.id !== action.id), start.by, start.now);
}
