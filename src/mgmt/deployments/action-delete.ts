import { ACTION, ACTION_STATUS, type ActionRecord } from '../../domain/action.js';
import type { Store, Stored, Tenant, Write } from '../../store/port.js';

/**
 * Deletes actions with their status history, each action in one commit (compare-and-set on the
 * version read, so an action that changed meanwhile is left alone). Returns how many were deleted.
 * Used by `DELETE /rest/v1/actions/{id}` and the action cleanup of the scheduler.
 */
export async function deleteActions(store: Store, tenant: Tenant, actions: readonly Stored<ActionRecord>[]): Promise<number> {
  let deleted = 0;
  for (const action of actions) {
    const entries = await store.members(tenant, ACTION_STATUS, 'action', String(action.id), { offset: 0, limit: 1_000_000 });
    const found = await store.getMany<unknown>(tenant, ACTION_STATUS, entries.ids);
    const writes: Write[] = [{ kind: ACTION, id: action.id, expect: action.version, before: action.value, after: null }];
    for (const e of found) if (e !== undefined) writes.push({ kind: ACTION_STATUS, id: e.id, expect: e.version, before: e.value, after: null });
    if ((await store.commit(tenant, { writes })).ok) deleted++;
  }
  return deleted;
}

/** `action.delete.allowed.statuses` / `action.cleanup.actionStatus`: a comma-separated upper-case list. */
export function statusSet(csv: string): ReadonlySet<string> {
  return new Set(csv.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0));
}
