import { ACTION, type ActionRecord } from '../domain/action.js';
import { AppError } from '../domain/errors.js';
import { TARGET, type AutoConfirm } from '../domain/target.js';
import type { Store } from '../store/port.js';
import { activeActionsOf } from '../store/named-reads.js';
import { edited } from './outcomes.js';
import type { ActorEditor } from './roles.js';

/**
 * Auto-confirmation of a target (reference §1.1 #15, §3.1 autoConfirm, §4.9; spec §3 rules 2-3).
 * `autoConfirm` is a plain field of the target record, edited through the actor runtime; the waiting
 * actions are then confirmed through their actors.
 */

/** hawkBit's remark when a device activates auto-confirmation without one (DdiRootController FALLBACK_REMARK). */
export const DDI_FALLBACK_REMARK = 'Initiated using the Device Direct Integration API without providing a remark.';

export interface AutoConfirmOptions {
  readonly initiator: string | null;
  readonly remark: string | null;
  /**
   * Stored when `remark` is null. Defaults to the DDI fallback text; the Management API passes null,
   * because hawkBit stores no remark there.
   */
  readonly fallbackRemark?: string | null;
}

/** What auto-confirmation reads and writes through. */
export interface AutoConfirmDeps {
  readonly store: Pick<Store, 'members' | 'getMany'>;
  readonly runtime: ActorEditor;
  now(): number;
}

/**
 * Activates auto-confirmation: 409 AUTO_CONFIRM_ALREADY_ACTIVE when it is active, 404 when the target
 * does not exist. Every action of the target waiting for confirmation is confirmed, naming the initiator.
 */
export async function activateAutoConfirm(
  deps: AutoConfirmDeps, tenant: string, targetId: number, opts: AutoConfirmOptions, now: number,
): Promise<void> {
  const remark = opts.remark ?? (opts.fallbackRemark === undefined ? DDI_FALLBACK_REMARK : opts.fallbackRemark);
  const state: AutoConfirm = { initiator: opts.initiator, remark, activatedAt: now };
  const result = await deps.runtime.update(tenant, TARGET, targetId, (target) => {
    if (target.autoConfirm !== null) {
      throw new AppError('AUTO_CONFIRM_ALREADY_ACTIVE', `Auto confirmation is already active for target '${target.controllerId}'.`);
    }
    return { ...target, autoConfirm: state, lastModifiedAt: now };
  });
  edited(result, 'Target', targetId);
  // after the commit: an assignment racing with us either saw autoConfirm (and started running) or
  // committed its waiting action first, which the lookup below then finds
  for (const action of await waitingActions(deps, tenant, targetId)) {
    await deps.runtime.send(tenant, ACTION, action.id, { type: 'autoconfirm.activated', at: now, initiator: state.initiator, remark: state.remark });
  }
}

/** Deactivates auto-confirmation (no error when it is not active). Running actions stay as they are. */
export async function deactivateAutoConfirm(deps: AutoConfirmDeps, tenant: string, targetId: number): Promise<void> {
  const now = deps.now();
  const result = await deps.runtime.update(tenant, TARGET, targetId, (target) =>
    (target.autoConfirm === null ? target : { ...target, autoConfirm: null, lastModifiedAt: now }));
  edited(result, 'Target', targetId);
}

async function waitingActions(deps: AutoConfirmDeps, tenant: string, targetId: number): Promise<ActionRecord[]> {
  return (await activeActionsOf(deps.store, tenant, targetId))
    .map((a) => a.value)
    .filter((a) => a.status === 'wait_for_confirmation');
}
