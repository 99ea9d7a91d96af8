import { scheduleGroupActions, type RolloutActionDeps } from '../actors/rollout-actions.js';
import { isCompatible, targetTypesOf } from '../actors/distribution-sets.js';
import type { ActorComposer } from '../actors/roles.js';
import { ACTION, rolloutTargetKey, type ActionRecord } from '../domain/action.js';
import { created } from '../domain/audit.js';
import { DS, type DistributionSetRecord } from '../domain/repository.js';
import { ROLLOUT, ROLLOUT_GROUP, type RolloutGroupRecord, type RolloutRecord } from '../domain/rollout.js';
import { dynamicSize, nextDynamicGroup } from '../domain/rollout-dynamic.js';
import { parseFilter } from '../query/filter.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../query/targets.js';
import type { Store, Tenant } from '../store/port.js';
import { SCAN_ALL, SCAN_LIMIT, loadRecords } from '../store/reads.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';

export interface DynamicGroupDeps extends RolloutActionDeps {
  readonly store: Store;
  readonly runtime: ActorComposer;
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
}

export interface GrowthPass {
  readonly now: number;
  /** `maxRolloutGroupsPerRollout`: no group is appended past it. */
  readonly maxGroups: number;
  /** Renews the engine's lease between batches. */
  readonly keep: () => Promise<void>;
}

/**
 * One engine pass's growth of a running dynamic rollout (hawkBit's executor,
 * fillDynamicRolloutGroupsWithTargets), one change a pass: the counts of its last group are made
 * those of its actions (a pass cut short between commits heals here); a full or finished last group
 * gets its successor (scheduled; none past the group quota); else the last group takes targets that match the rollout's filter
 * now, take the set's type and have no action of this rollout or a newer one, up to its size, as scheduled actions
 * (a running group's are started by the next pass). Returns whether it changed anything.
 */
export async function growDynamicRollout(
  deps: DynamicGroupDeps, tenant: Tenant, rollout: RolloutRecord, groups: readonly RolloutGroupRecord[], pass: GrowthPass,
): Promise<boolean> {
  const { now, keep } = pass;
  const { store, runtime } = deps;
  const last = groups.at(-1);
  if (rollout.dynamic !== true || last?.dynamic !== true) return false;
  const held = await store.count(tenant, ACTION, 'rolloutGroup', String(last.id));
  if (held !== last.totalTargets) {
    const total = rollout.totalTargets + held - last.totalTargets;
    await runtime.send(tenant, ROLLOUT_GROUP, last.id, { type: 'engine.grown', at: now, totalTargets: held });
    await runtime.send(tenant, ROLLOUT, rollout.id, { type: 'engine.grown', at: now, totalTargets: total, groups: rollout.groups });
    return true;
  }
  if (held >= dynamicSize(last) || last.status === 'finished') {
    // hawkBit's executor creates no group past the quota either; the last one keeps running
    if (groups.length >= pass.maxGroups) return false;
    const id = await store.nextIds(tenant, ROLLOUT_GROUP, 1);
    const next = nextDynamicGroup(last, groups.length, id, created(rollout.createdBy, now));
    const result = await runtime.send(
      tenant, ROLLOUT, rollout.id, { type: 'engine.grown', at: now, totalTargets: rollout.totalTargets, groups: [...rollout.groups, id] },
      { also: () => Promise.resolve([runtime.creation(ROLLOUT_GROUP, next)]) },
    );
    return result.kind === 'committed';
  }
  const targets = await newcomers(deps, tenant, rollout, now, dynamicSize(last) - held);
  if (targets.length === 0) return false;
  return (await scheduleGroupActions(deps, tenant, rollout, last, targets, now, keep)) > 0;
}

/** Up to `limit` target ids that match the rollout's filter, take its set's type and have no action of it. */
async function newcomers(deps: DynamicGroupDeps, tenant: Tenant, rollout: RolloutRecord, now: number, limit: number): Promise<number[]> {
  const { store } = deps;
  const ds = (await store.get<DistributionSetRecord>(tenant, DS, rollout.ds))?.value;
  if (ds === undefined) return [];
  const cfg = await deps.tenantConfig.view(tenant);
  const matching = (await queryTargets(store, tenant, {
    offset: 0, limit: SCAN_LIMIT, sort: DEFAULT_TARGET_SORT, filter: parseFilter(rollout.targetFilterQuery, targetFields),
  }, { now, overdueTs: now - cfg.durationMs('pollingTime') - cfg.durationMs('pollingOverdueTime') })).content;
  const held = await store.lookupMany(tenant, ACTION, 'rolloutTarget', matching.map((t) => rolloutTargetKey(rollout.id, t.id)));
  const outside = matching.filter((_, i) => held[i] === undefined);
  const types = await targetTypesOf(store, tenant, outside);
  const out: number[] = [];
  for (const t of outside) {
    if (out.length >= limit) break;
    if (isCompatible(types, t, ds) && !(await overridden(store, tenant, t.id, rollout.id))) out.push(t.id);
  }
  return out;
}

/** Whether the target has an action of a newer rollout (hawkBit's hasNoOverridingActionsAndNotInRollout leaves it out). */
async function overridden(store: Store, tenant: Tenant, target: number, rollout: number): Promise<boolean> {
  const page = await store.members(tenant, ACTION, 'target', String(target), SCAN_ALL);
  const actions = await loadRecords<ActionRecord>(store, tenant, ACTION, page.ids);
  return actions.some((a) => a.value.rollout !== null && a.value.rollout > rollout);
}
