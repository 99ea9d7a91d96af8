import { assignOnline, type AssignDeps } from '../actors/assign.js';
import { assignableSet } from '../actors/distribution-sets.js';
import { inBatches } from '../actors/rollout-actions.js';
import { ACTION, rolloutTargetKey, type ActionRecord } from '../domain/action.js';
import { AppError } from '../domain/errors.js';
import type { RolloutRecord } from '../domain/rollout.js';
import type { StopReason } from '../domain/rollout-safety.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import type { Store, Tenant } from '../store/port.js';

export interface RollbackDeps extends Omit<AssignDeps, 'store'> {
  readonly store: Store;
  readonly log: { warn(obj: object, msg: string): void };
}

/**
 * The targets an abort rolls back: those whose action of the rollout failed, and (onAbort cancel)
 * those whose action the abort canceled: canceling now, or canceled since the abort fired.
 */
export function rollbackTargets(actions: readonly ActionRecord[], reason: StopReason, canceled: boolean): number[] {
  const picked = actions.filter((a) => a.rollback !== true && (a.status === 'error' ||
    (canceled && (a.status === 'canceling' || (a.status === 'canceled' && a.lastModifiedAt >= reason.at)))));
  return [...new Set(picked.map((a) => a.targetId))];
}

/**
 * Assigns the rollback set of an aborted rollout (issue 25, `abort.rollbackTo`) to `targets`: one
 * soft action each, with the rollout's weight, listed under the rollout (ActionRecord.rollback) but
 * not counted in it. Targets that have their rollback action already (a pass cut short) are skipped,
 * so the engine may run this again. A set that became unusable, a deleted target or a target over its
 * action quota is logged and skipped: the abort itself stands.
 */
export async function rollBack(
  deps: RollbackDeps, tenant: Tenant, rollout: RolloutRecord, ds: number, targets: readonly number[],
  cfg: TenantConfigView, now: number,
): Promise<number> {
  try {
    await assignableSet(deps.store, tenant, ds);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    deps.log.warn({ tenant, rollout: rollout.id, ds, err: err.message }, 'rollback set not assignable; no rollback');
    return 0;
  }
  const held = await deps.store.lookupMany(tenant, ACTION, 'rolloutTarget', targets.map((t) => rolloutTargetKey(rollout.id, t, true)));
  const todo = targets.filter((_, i) => held[i] === undefined);
  let assigned = 0;
  await inBatches(todo, async (targetId) => {
    try {
      const outcome = await assignOnline(deps, tenant, {
        targetId, ds, actionType: 'soft', forceTime: 0, weight: rollout.weight, confirmationRequired: null, maintenanceWindow: null,
        by: 'system', message: `Rollback to distribution set ${ds}: rollout '${rollout.name}' was aborted`,
        rollout: rollout.id, rolloutGroup: null, rollback: true,
      }, cfg, now);
      if (outcome.kind === 'assigned') assigned++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      deps.log.warn({ tenant, rollout: rollout.id, target: targetId, err: err.message }, 'rollback assignment refused');
    }
  });
  return assigned;
}
