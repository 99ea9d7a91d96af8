import type { ActorRuntime } from '../../actors/runtime.js';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../domain/action.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Store, Stored, Tenant, Write } from '../../store/port.js';

/**
 * Deletes actions with their status history, each action in one commit (compare-and-set on the
 * version read, so an action that changed meanwhile is left alone). Returns how many were deleted.
 * Deleting the target's installed action moves its `installedAction` (the poll's installedBase
 * link) in the same commit, through the target's actor. Used by `DELETE /rest/v1/actions/{id}`
 * and the action cleanup of the scheduler.
 */
export async function deleteActions(store: Store, runtime: ActorRuntime, tenant: Tenant, actions: readonly Stored<ActionRecord>[]): Promise<number> {
  let deleted = 0;
  for (const action of actions) {
    const entries = await store.members(tenant, ACTION_STATUS, 'action', String(action.id), { offset: 0, limit: 1_000_000 });
    const found = await store.getMany<unknown>(tenant, ACTION_STATUS, entries.ids);
    const writes: Write[] = [{ kind: ACTION, id: action.id, expect: action.version, before: action.value, after: null }];
    for (const e of found) if (e !== undefined) writes.push({ kind: ACTION_STATUS, id: e.id, expect: e.version, before: e.value, after: null });
    const target = await store.get<TargetRecord>(tenant, TARGET, action.value.targetId);
    if (target?.value.installedAction === action.id) {
      const replacement = await newestFinished(store, tenant, target.value, action.id);
      const r = await runtime.send(tenant, TARGET, target.id, { type: 'mgmt.actionDeleted', action: action.id, replacement, at: Date.now() }, { also: () => writes });
      if (r.kind === 'committed') {
        deleted++;
        continue;
      }
      if (r.kind !== 'ignored') continue; // contended: the action or the target kept changing; left alone
      // ignored: the installed action moved on meanwhile, so this one is deleted on its own
    }
    if ((await store.commit(tenant, { writes })).ok) deleted++;
  }
  return deleted;
}

/** The newest finished action of the target's installed DS other than `except`, or null. */
async function newestFinished(store: Store, tenant: Tenant, target: TargetRecord, except: number): Promise<number | null> {
  const page = await store.members(tenant, ACTION, 'target', String(target.id), { offset: 0, limit: 1_000_000 });
  const others = await store.getMany<ActionRecord>(tenant, ACTION, page.ids.filter((id) => id !== except));
  let newest: number | null = null;
  for (const a of others) {
    if (a !== undefined && a.value.ds === target.installedDs && a.value.status === 'finished' && (newest === null || a.id > newest)) newest = a.id;
  }
  return newest;
}

/** `action.delete.allowed.statuses` / `action.cleanup.actionStatus`: a comma-separated upper-case list. */
export function statusSet(csv: string): ReadonlySet<string> {
  return new Set(csv.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0));
}
