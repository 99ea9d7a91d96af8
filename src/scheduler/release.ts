import { startRolloutActions, type RolloutActionDeps } from '../actors/rollout-actions.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { ROLLOUT, type RolloutGroupRecord, type RolloutRecord } from '../domain/rollout.js';
import { groupCounterKey, perStatus, rolloutCounterKey } from '../domain/rollout-counts.js';
import { paced, releaseBudget } from '../domain/rollout-release.js';
import type { Store, Stored, Tenant } from '../store/port.js';
import { SCAN_ALL, loadRecords } from '../store/reads.js';
import type { TenantConfigService } from '../tenancy/tenant-config-service.js';

export interface ReleaseDeps extends RolloutActionDeps {
  readonly store: RolloutActionDeps['store'] & Pick<Store, 'counters'>;
  readonly tenantConfig: Pick<TenantConfigService, 'view'>;
}

/** Actions loaded per read while looking for the scheduled ones to release. */
const CHUNK = 500;

/**
 * One engine pass's releases of a paced rollout (src/domain/rollout-release.ts): as many scheduled
 * actions of its running groups as its ramp and `maxInFlight` allow now are started, in id order
 * (so the oldest group first), and the ramp's clock and the id cursor are committed to the rollout
 * through its machine (`engine.released`). Returns how many were started.
 */
export async function releaseDue(
  deps: ReleaseDeps, tenant: Tenant, rollout: RolloutRecord, groups: readonly RolloutGroupRecord[], now: number,
): Promise<number> {
  const controls = rollout.release;
  const running = groups.filter((g) => g.status === 'running');
  if (controls === undefined || !paced(controls) || running.length === 0) return 0;
  const { store, runtime } = deps;
  const keys = [rolloutCounterKey(rollout.id), ...running.map((g) => groupCounterKey(g.id))];
  const [total = {}, ...perGroup] = await store.counters(tenant, keys);
  const waiting = perGroup.reduce((n, c) => n + (c['scheduled'] ?? 0), 0);
  const budget = releaseBudget(controls, rollout.pace, perStatus(total, rollout.totalTargets, rollout.actionType === 'downloadonly'), waiting, now);
  if (budget.count === 0) return 0;

  const after = rollout.pace?.after ?? 0;
  const ids: number[] = [];
  for (const g of running) {
    const page = await store.members(tenant, ACTION, 'rolloutGroup', String(g.id), SCAN_ALL);
    for (const id of page.ids) if (id > after) ids.push(id);
  }
  ids.sort((a, b) => a - b);
  const byId = new Map(running.map((g) => [g.id, g]));
  const cfg = await deps.tenantConfig.view(tenant);
  let released = 0;
  let cursor = after;
  for (let i = 0; i < ids.length && released < budget.count; i += CHUNK) {
    const pick: Stored<ActionRecord>[] = [];
    for (const a of await loadRecords<ActionRecord>(store, tenant, ACTION, ids.slice(i, i + CHUNK))) {
      if (released + pick.length >= budget.count) break;
      cursor = a.id;
      if (a.value.status === 'scheduled') pick.push(a);
    }
    await startRolloutActions(deps, tenant, pick, (a) => byId.get(a.rolloutGroup ?? -1), cfg, rollout.createdBy, now);
    released += pick.length;
  }
  const nextAt = budget.nextAt(released);
  await runtime.send(tenant, ROLLOUT, rollout.id, {
    type: 'engine.released', at: now, pace: nextAt === undefined ? { after: cursor } : { nextAt, after: cursor },
  });
  return released;
}
