import type { AssignmentRequest } from '../../actors/assign.js';
import { ACTION } from '../../domain/action.js';
import { AppError, notFound } from '../../domain/errors.js';
import { validateMaintenanceWindow } from '../../domain/maintenance.js';
import type { DistributionSetRecord } from '../../domain/repository.js';
import type { TargetRecord } from '../../domain/target.js';
import type { Request } from '../../http/types.js';
import { logAssignment } from '../../observability/activity.js';
import { link } from '../kit/hal.js';
import { findTargets } from '../targets/target-store.js';
import type { DeploymentDeps } from './deps.js';
import type { AssignItem } from './assignment-body.js';
import { assignableSet, checkTypeCompatibility, lockImplicitly } from '../../actors/distribution-sets.js';
import { runAssignments } from './run-assignments.js';
import { actionPath } from './views.js';

/**
 * Manual assignment from either side (reference §3.16, §4.2, §4.4; spec 2.11 multi-assignment; an item
 * without weight gets 1000 also under multi-assignment, as hawkBit bypasses its weight check): every
 * check runs before anything is written, then each pair goes through the assignment service, and the
 * answer waits until the obsolete actions it cancelled show as canceling.
 */
export async function assignFromRequest(
  deps: DeploymentDeps, tenant: string, req: Request, by: string, items: readonly AssignItem[], offline: boolean,
): Promise<object> {
  const { store } = deps;
  const now = deps.now();
  const cfg = await deps.tenantConfig.view(tenant);
  const multi = cfg.bool('multi.assignments.enabled');
  const max = deps.quotas.maxTargetDistributionSetAssignmentsPerManualAssignment;
  if (items.length > max) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: ${items.length} assignments in one request; at most ${max} are allowed.`);
  }
  const keys = items.map((i) => i.controllerId.toLowerCase());
  if (!multi && new Set(keys).size < keys.length) {
    throw new AppError('MULTIASSIGNMENT', 'The same target appears more than once in the request, but multi-assignment is not enabled.');
  }
  const windows = offline ? items.map(() => null) : items.map((it) => validateMaintenanceWindow(it.maintenanceWindow, now));

  const sets = new Map<number, DistributionSetRecord>();
  for (const id of new Set(items.map((i) => i.ds))) sets.set(id, await assignableSet(store, tenant, id));
  const targets = await resolveTargets(deps, tenant, items.map((i) => i.controllerId));
  const pairs = items.map((it, i) => ({ target: targets[i] as TargetRecord, ds: sets.get(it.ds) as DistributionSetRecord }));
  await checkTypeCompatibility(store, tenant, pairs);
  await checkActionQuota(deps, tenant, pairs.map((p) => p.target.id));

  if (cfg.bool('implicit.lock.enabled')) for (const ds of sets.values()) await lockImplicitly(store, tenant, ds, now);
  const requests: AssignmentRequest[] = items.map((it, i) => ({
    targetId: (targets[i] as TargetRecord).id, ds: it.ds, actionType: it.actionType, forceTime: it.forceTime, weight: it.weight,
    confirmationRequired: it.confirmationRequired, maintenanceWindow: windows[i] ?? null, by,
  }));
  const run = await runAssignments(deps, tenant, requests, offline, now);
  await run.settled;
  for (const ds of sets.keys()) {
    const mine = requests.flatMap((r, i) => (r.ds === ds ? [i] : []));
    logAssignment(deps.ctx.logger, {
      tenant, source: 'management', dsId: ds, targets: mine.length, assigned: mine.filter((i) => run.outcomes[i]?.kind === 'assigned').length,
      actionType: [...new Set(mine.map((i) => requests[i]?.actionType))].join(','), by, offline,
    });
  }
  const assignedActions = run.outcomes.flatMap((o, i) => (o.kind !== 'assigned' ? [] : [{
    id: o.actionId,
    _links: { self: link(req, actionPath({ controllerId: (targets[i] as TargetRecord).controllerId, id: o.actionId })) },
  }]));
  return { assigned: assignedActions.length, alreadyAssigned: items.length - assignedActions.length, total: items.length, assignedActions };
}

/** Targets by controller id (case-insensitive), in the given order; 404 names the first unknown one. */
async function resolveTargets(deps: DeploymentDeps, tenant: string, controllerIds: readonly string[]): Promise<TargetRecord[]> {
  const { found, missing } = await findTargets(deps.store, tenant, controllerIds);
  if (missing.length > 0) throw notFound('Target', missing[0] ?? '');
  const byKey = new Map(found.map((t) => [t.controllerId.toLowerCase(), t]));
  return controllerIds.map((c) => byKey.get(c.toLowerCase()) as TargetRecord);
}

/** maxActionsPerTarget, checked for the whole request before anything is written. */
async function checkActionQuota(deps: DeploymentDeps, tenant: string, targetIds: readonly number[]): Promise<void> {
  const max = deps.quotas.maxActionsPerTarget;
  const wanted = new Map<number, number>();
  for (const id of targetIds) wanted.set(id, (wanted.get(id) ?? 0) + 1);
  const entries = [...wanted];
  const counts = await Promise.all(entries.map(([id]) => deps.store.count(tenant, ACTION, 'target', String(id))));
  entries.forEach(([id, n], i) => {
    const have = counts[i] ?? 0;
    if (have + n > max) throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: target ${id} has ${have} actions; at most ${max} are allowed.`);
  });
}
