/**
 * The reads several layers make of the same records, named once: a target's active actions (the DDI
 * poll, DMF, assignment, auto-confirmation, the effect handlers), the actions of a rollout or of one
 * of its groups, and the targets of a group. One page size each, one filter each.
 */
import { ACTION, ACTIVE_STATUSES, type ActionRecord } from '../domain/action.js';
import { ROLLOUT_MEMBERS, type RolloutMembersRecord } from '../domain/rollout.js';
import { MISS, type CachedReads, type Miss, type Page, type Reads, type Stored, type Tenant } from './port.js';
import { loadRecords, SCAN_ALL } from './reads.js';

/**
 * Far more active actions than a target has (the quota maxActionsPerTarget counts every action, 2,000
 * by default): the index is read in one page, which the poll cache keys by a number.
 */
const ACTIVE_PAGE: Page = Object.freeze({ offset: 0, limit: 10_000 });
const NONE: Stored<ActionRecord>[] = [];

type ActionReads = Pick<Reads, 'members' | 'getMany'>;

/** The target's active actions, in id order. */
export async function activeActionsOf(reads: ActionReads, tenant: Tenant, targetId: number): Promise<Stored<ActionRecord>[]> {
  const page = await reads.members(tenant, ACTION, 'activeByTarget', String(targetId), ACTIVE_PAGE);
  if (page.ids.length === 0) return [];
  const found = await reads.getMany<ActionRecord>(tenant, ACTION, page.ids);
  const out: Stored<ActionRecord>[] = [];
  for (const a of found) if (a !== undefined && a.value.active) out.push(a);
  return out;
}

/** The same from the cache alone, or MISS when any part of it must be read (the poll's express lane). */
export function peekActiveActionsOf(reads: CachedReads, tenant: Tenant, targetId: number): Stored<ActionRecord>[] | Miss {
  const page = reads.peekMembers(tenant, ACTION, 'activeByTarget', String(targetId), ACTIVE_PAGE);
  if (page === MISS) return MISS;
  if (page.ids.length === 0) return NONE;
  const out: Stored<ActionRecord>[] = [];
  for (const id of page.ids) {
    const a = reads.peekGet<ActionRecord>(tenant, ACTION, id);
    if (a === MISS) return MISS;
    if (a !== undefined && a.value.active) out.push(a);
  }
  return out;
}

/** The ids of every open action of the tenant (an active status: the status index, there is none of `active`), in id order. */
export async function openActionIds(reads: Pick<Reads, 'members'>, tenant: Tenant): Promise<number[]> {
  const pages = await Promise.all(ACTIVE_STATUSES.map((s) => reads.members(tenant, ACTION, 'status', s, SCAN_ALL)));
  return pages.flatMap((p) => p.ids).sort((a, b) => a - b);
}

/** Every action of a rollout (any status), in id order. */
export async function actionsOfRollout(reads: ActionReads, tenant: Tenant, rollout: number): Promise<ActionRecord[]> {
  const page = await reads.members(tenant, ACTION, 'rollout', String(rollout), SCAN_ALL);
  return (await loadRecords<ActionRecord>(reads, tenant, ACTION, page.ids)).map((a) => a.value);
}

/** Every action of a rollout group (any status) with its version, in id order. */
export async function storedActionsOfGroup(reads: ActionReads, tenant: Tenant, group: number): Promise<Stored<ActionRecord>[]> {
  const page = await reads.members(tenant, ACTION, 'rolloutGroup', String(group), SCAN_ALL);
  return loadRecords<ActionRecord>(reads, tenant, ACTION, page.ids);
}

/** Every action of a rollout group (any status), in id order. */
export async function actionsOfGroup(reads: ActionReads, tenant: Tenant, group: number): Promise<ActionRecord[]> {
  return (await storedActionsOfGroup(reads, tenant, group)).map((a) => a.value);
}

/** The target ids a group was planned with (its member records), in order; a dynamic group's come from its actions. */
export async function groupTargets(reads: ActionReads, tenant: Tenant, group: number): Promise<number[]> {
  const page = await reads.members(tenant, ROLLOUT_MEMBERS, 'group', String(group), SCAN_ALL);
  return (await loadRecords<RolloutMembersRecord>(reads, tenant, ROLLOUT_MEMBERS, page.ids)).flatMap((m) => m.value.targets);
}
