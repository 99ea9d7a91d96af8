import { assignOnline, type AssignmentRequest } from '../actors/assign.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { AppError } from '../domain/errors.js';
import { TARGET_FILTER, type TargetFilterRecord } from '../domain/targeting.js';
import { assignableSet, isCompatible, lockImplicitly, targetTypesOf } from '../actors/distribution-sets.js';
import { logAssignment } from '../observability/activity.js';
import { parseFilter } from '../query/filter.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../query/targets.js';
import type { Store, Tenant } from '../store/port.js';
import { SCAN_ALL, SCAN_LIMIT, loadRecords } from '../store/reads.js';
import type { SchedulerDeps } from './deps.js';

/**
 * Auto-assignment (reference §4.8): for every target filter with an auto-assign distribution set,
 * the targets matching its query that never had an action for that set get one, in batches, with
 * the filter's action type, weight and confirmation setting, attributed to whoever set it up and
 * with the message "Auto assignment: <filter name>". Incompatible targets are skipped.
 */
export class AutoAssigner {
  readonly #services: SchedulerDeps;
  readonly #batch: number;
  /** Per tenant and set: the action ids already read and the targets they belong to. */
  readonly #seen = new Map<string, { readonly actions: Set<number>; readonly targets: Set<number> }>();

  constructor(services: SchedulerDeps, batch: number) {
    this.#services = services;
    this.#batch = batch;
  }

  /** One pass over a tenant's filters; returns the number of actions created. */
  async run(tenant: Tenant, now: number): Promise<number> {
    const store = this.#services.store;
    const page = await store.members(tenant, TARGET_FILTER, 'autoAssign', 'on', SCAN_ALL);
    let assigned = 0;
    for (const f of await loadRecords<TargetFilterRecord>(store, tenant, TARGET_FILTER, page.ids)) {
      if (f.value.autoAssignDs === null) continue;
      try {
        assigned += await this.#runFilter(tenant, f.value, f.value.autoAssignDs, now);
      } catch (err) {
        // a filter whose set became unusable, or whose query no longer parses, is skipped until fixed
        if (!(err instanceof AppError)) throw err;
        this.#services.ctx.logger.warn({ tenant, filter: f.value.id, err: err.message }, 'auto-assignment skipped a target filter');
      }
    }
    return assigned;
  }

  async #runFilter(tenant: Tenant, filter: TargetFilterRecord, dsId: number, now: number): Promise<number> {
    const services = this.#services;
    const store = services.store;
    const ds = await assignableSet(store, tenant, dsId);
    const had = await this.#targetsWithActions(store, tenant, dsId);
    const cfg = await services.tenantConfig.view(tenant);
    const matching = await queryTargets(store, tenant, {
      offset: 0, limit: SCAN_LIMIT, sort: DEFAULT_TARGET_SORT, filter: parseFilter(filter.query, targetFields),
    }, { now, overdueTs: now - cfg.durationMs('pollingTime') - cfg.durationMs('pollingOverdueTime') });
    const fresh = matching.content.filter((t) => !had.has(t.id));
    const types = await targetTypesOf(store, tenant, fresh);
    const todo = fresh.filter((t) => isCompatible(types, t, ds));
    if (todo.length === 0) return 0;
    if (cfg.bool('implicit.lock.enabled')) await lockImplicitly(store, tenant, ds, now);
    const deps = { store, runtime: services.runtime, maxActionsPerTarget: services.quotas.maxActionsPerTarget };
    let assigned = 0;
    for (let i = 0; i < todo.length; i += this.#batch) {
      const outcomes = await Promise.all(todo.slice(i, i + this.#batch).map(async (t) => {
        const req: AssignmentRequest = {
          targetId: t.id, ds: dsId, actionType: filter.autoAssignActionType ?? 'forced', forceTime: 0,
          weight: filter.autoAssignWeight, confirmationRequired: filter.confirmationRequired, maintenanceWindow: null,
          by: filter.autoAssignInitiatedBy ?? filter.createdBy, message: `Auto assignment: ${filter.name}`,
        };
        try {
          return await assignOnline(deps, tenant, req, cfg, now);
        } catch (err) {
          // one target over its quota (or gone meanwhile) must not stop the others
          if (!(err instanceof AppError)) throw err;
          services.ctx.logger.warn({ tenant, target: t.controllerId, err: err.message }, 'auto-assignment skipped a target');
          return undefined;
        }
      }));
      assigned += outcomes.filter((o) => o?.kind === 'assigned').length;
    }
    logAssignment(services.ctx.logger, {
      tenant, source: 'auto-assignment', dsId, targets: todo.length, assigned, actionType: filter.autoAssignActionType ?? 'forced',
      by: filter.autoAssignInitiatedBy ?? filter.createdBy, filterId: filter.id,
    });
    return assigned;
  }

  /** Targets that have (or had) an action for the set: read incrementally, only new action ids each pass. */
  async #targetsWithActions(store: Store, tenant: Tenant, dsId: number): Promise<ReadonlySet<number>> {
    const key = `${tenant}\u0000${dsId}`;
    let seen = this.#seen.get(key);
    if (seen === undefined) this.#seen.set(key, (seen = { actions: new Set(), targets: new Set() }));
    const ids = (await store.members(tenant, ACTION, 'ds', String(dsId), SCAN_ALL)).ids;
    const fresh = ids.filter((id) => !seen.actions.has(id));
    for (let i = 0; i < fresh.length; i += 1000) {
      const part = fresh.slice(i, i + 1000);
      const found = await store.getMany<ActionRecord>(tenant, ACTION, part);
      found.forEach((a, j) => {
        seen.actions.add(part[j] as number);
        if (a !== undefined) seen.targets.add(a.value.targetId);
      });
    }
    return seen.targets;
  }
}
