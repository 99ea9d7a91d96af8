import type { ActorEditor } from '../actors/roles.js';
import { REGROUPABLE, ROLLOUT, ROLLOUT_GROUP, ROLLOUT_MEMBERS, type RolloutGroupRecord, type RolloutMembersRecord, type RolloutRecord } from '../domain/rollout.js';
import { orderTargets, regroupMembers } from '../domain/rollout-plan.js';
import { DEFAULT_TARGET_SORT, queryTargets } from '../query/targets.js';
import type { Store, Tenant } from '../store/port.js';
import { SCAN_ALL, SCAN_LIMIT, loadRecords } from '../store/reads.js';
import { retryCommit } from '../store/retry.js';

export interface RegroupDeps {
  readonly store: Store;
  readonly runtime: Pick<ActorEditor, 'update'>;
}

/**
 * Divides a rollout's targets over its groups again in its `groupOrder`, once a PUT changed it before
 * the start (`RolloutRecord.regroup`): its targets as the create found them (controller id order, then
 * any deleted since), ordered as rollout-plan.ts `orderTargets` says, written into its member records
 * in one commit; then the flag is cleared, if the order is still the one used. The PUT runs it at once;
 * the engine runs it for a flagged rollout before filling or starting it (a server stopped between
 * the PUT's edit and this), so the result is the same whoever runs it, and running it twice is harmless.
 */
export async function regroup(deps: RegroupDeps, tenant: Tenant, id: number, now: number): Promise<void> {
  const { store } = deps;
  const rollout = (await store.get<RolloutRecord>(tenant, ROLLOUT, id))?.value;
  if (rollout?.regroup !== true || !REGROUPABLE.includes(rollout.status)) return;
  const order = rollout.release?.groupOrder;
  const groups = (await loadRecords<RolloutGroupRecord>(store, tenant, ROLLOUT_GROUP, rollout.groups))
    .map((g) => g.value).filter((g) => g.dynamic !== true);
  const done = await retryCommit(store, tenant, async () => {
    const page = await store.members(tenant, ROLLOUT_MEMBERS, 'rollout', String(id), SCAN_ALL);
    const members = await loadRecords<RolloutMembersRecord>(store, tenant, ROLLOUT_MEMBERS, page.ids);
    const ids = members.flatMap((m) => m.value.targets);
    const query = { offset: 0, limit: SCAN_LIMIT, sort: DEFAULT_TARGET_SORT, ids };
    const found = (await queryTargets(store, tenant, query, { now, overdueTs: now })).content;
    const known = new Set(found.map((t) => t.id));
    const gone = ids.filter((t) => !known.has(t)).sort((a, b) => a - b);
    const ordered = [...orderTargets(found, order, (t, name) => t.attributes[name]).map((t) => t.id), ...gone];
    const next = new Map(regroupMembers(members.map((m) => m.value), groups, ordered).map((m) => [m.id, m]));
    const writes = members.map((m) => {
      const after = next.get(m.id);
      if (after === undefined) throw new Error(`regrouping rollout ${id}: members ${m.id} of group ${m.value.group} is in no static group`);
      return { kind: ROLLOUT_MEMBERS, id: m.id, expect: m.version, before: m.value, after };
    });
    return { commit: { writes }, result: () => true };
  });
  if (!done.ok) throw new Error(`regrouping rollout ${id} failed: ${done.reason}`);
  const used = JSON.stringify(order);
  await deps.runtime.update(tenant, ROLLOUT, id, (r) => {
    if (r.regroup !== true || JSON.stringify(r.release?.groupOrder) !== used) return r;
    const { regroup: _done, ...rest } = r;
    return rest;
  });
}
