import { groupCounterKey, perStatus } from '../../domain/rollout-counts.js';
import { ROLLOUT, ROLLOUT_GROUP, type RolloutGroupRecord, type RolloutRecord } from '../../domain/rollout.js';
import type { Store, Tenant } from '../../store/port.js';
import { loadRecords } from '../../store/reads.js';
import type { GroupProgress } from './messages.js';

/**
 * The counts of a rollout's groups as its group JSON shows them (`totalTargets`, `totalTargetsPerStatus`),
 * for `progress` events: three reads however many groups (the rollout, the groups, their counters).
 */
export async function groupProgress(
  store: Pick<Store, 'get' | 'getMany' | 'counters'>, tenant: Tenant, rolloutId: number, groups: readonly number[],
): Promise<ReadonlyMap<number, GroupProgress>> {
  const [rollout, records, counts] = await Promise.all([
    store.get<RolloutRecord>(tenant, ROLLOUT, rolloutId),
    loadRecords<RolloutGroupRecord>(store, tenant, ROLLOUT_GROUP, groups),
    store.counters(tenant, groups.map(groupCounterKey)),
  ]);
  const downloadOnly = rollout?.value.actionType === 'downloadonly';
  const byId = new Map(records.map((g) => [g.value.id, g.value]));
  const out = new Map<number, GroupProgress>();
  groups.forEach((id, i) => {
    const g = byId.get(id);
    if (g === undefined || g.rollout !== rolloutId) return;
    const totalTargetsPerStatus = perStatus(counts[i] ?? {}, g.totalTargets, downloadOnly);
    out.set(id, { rolloutId, groupId: id, totalTargets: g.totalTargets, totalTargetsPerStatus });
  });
  return out;
}
