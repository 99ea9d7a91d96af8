import { startRolloutAction, type RolloutActionDeps } from '../actors/rollout-actions.js';
import type { ActorEditor } from '../actors/roles.js';
import { ACTION, WEIGHT_IF_ABSENT, rolloutTargetKey, type ActionRecord } from '../domain/action.js';
import { verifyFields } from '../domain/install-check.js';
import type { RolloutGroupRecord, RolloutRecord } from '../domain/rollout.js';
import { backoffMs, retryKind } from '../domain/rollout-safety.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import type { Tenant } from '../store/port.js';

export type RetryDeps = RolloutActionDeps & { readonly runtime: ActorEditor };

/**
 * The rollout's `retry` over one running group's actions (rollout-safety.ts): a failed or timed-out
 * action with retries of its kind left first gets `retryAt` (its close plus the backoff of this retry;
 * it counts as `retrying`, so the group is not complete and the error is not counted), and once that
 * time has come a new attempt for the same target and set: an action of the group created scheduled
 * and started at once, `attempt` one more, and the old one marked `retried` (counted no more). A target
 * that is gone stops its retries (the action counts as an error again). Each step is idempotent: the
 * attempt's key (rolloutTarget with `:a<n>`) is claimed once, so a pass cut short resumes. Returns the
 * attempts started.
 */
export async function retryFailed(
  deps: RetryDeps, tenant: Tenant, rollout: RolloutRecord, group: RolloutGroupRecord, actions: readonly ActionRecord[],
  cfg: TenantConfigView, now: number,
): Promise<number> {
  const retry = rollout.retry;
  if (retry === undefined) return 0;
  let started = 0;
  for (const failed of actions) {
    const kind = retryKind(failed, retry);
    if (kind === undefined) continue;
    const attempt = (failed.attempt ?? 1) + 1;
    const due = failed.retryAt ?? failed.lastModifiedAt + backoffMs(retry.backoff, attempt - 1);
    if (failed.retryAt == null) await edit(deps, tenant, failed.id, (a) => ({ ...a, retryAt: due }));
    if (due > now) continue;
    const target = await deps.store.get<TargetRecord>(tenant, TARGET, failed.targetId);
    if (target === undefined) {
      await edit(deps, tenant, failed.id, (a) => ({ ...a, retryAt: null, retryStopped: true }));
      continue;
    }
    const used = failed.retriesUsed ?? { failed: 0, timedOut: 0 };
    const next: ActionRecord = {
      id: 0, targetId: failed.targetId, controllerId: target.value.controllerId, ds: rollout.ds, actionType: rollout.actionType,
      forceTime: rollout.actionType === 'timeforced' ? rollout.forceTime : 0, weight: rollout.weight ?? WEIGHT_IF_ABSENT,
      status: 'scheduled', active: false, maintenanceWindow: null, rollout: rollout.id, rolloutGroup: group.id,
      ...verifyFields(rollout),
      lastStatusCode: null, externalRef: null, lastEntry: null, entries: 0, attempt,
      retriesUsed: { ...used, [kind]: used[kind] + 1 },
      createdBy: rollout.createdBy, createdAt: now, lastModifiedBy: rollout.createdBy, lastModifiedAt: now,
    };
    const [held] = await deps.store.lookupMany(tenant, ACTION, 'rolloutTarget', [rolloutTargetKey(rollout.id, failed.targetId, false, attempt)]);
    let attemptId = held;
    if (attemptId === undefined) {
      const id = await deps.store.nextIds(tenant, ACTION, 1);
      const created = await deps.runtime.create(tenant, ACTION, { ...next, id });
      attemptId = created.ok ? id : undefined;
    }
    await edit(deps, tenant, failed.id, (a) => ({ ...a, retryAt: null, retried: true }));
    const stored = attemptId === undefined ? undefined : await deps.store.get<ActionRecord>(tenant, ACTION, attemptId);
    if (stored?.value.status !== 'scheduled') continue;
    if ((await startRolloutAction(deps, tenant, stored.value, group, cfg, rollout.createdBy, now, true)) === 'started') started++;
  }
  return started;
}

async function edit(deps: RetryDeps, tenant: Tenant, id: number, change: (a: ActionRecord) => ActionRecord): Promise<void> {
  await deps.runtime.update(tenant, ACTION, id, (a) => (a.status === 'error' && a.retried !== true ? change(a) : a));
}
