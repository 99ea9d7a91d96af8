import { ACTION, ACTION_STATUS, type ActionRecord } from '../domain/action.js';
import { TARGET, type TargetRecord } from '../domain/target.js';
import type { Store, Stored, Tenant, Write } from '../store/port.js';
import { SCAN_ALL, loadRecords } from '../store/reads.js';
import { removed } from './outcomes.js';
import type { ActorEditor } from './roles.js';

/**
 * Deleting actors with what belongs to them: an action with its status history, a target with its
 * actions and its poll record (hawkBit deletes them by cascade).
 */
export interface RemovalDeps {
  readonly store: Pick<Store, 'get' | 'members' | 'getMany' | 'forgetPolls'>;
  readonly runtime: ActorEditor;
}

/**
 * Deletes actions with their status history, each in its own commit, if `when` still holds for the
 * action as it is then (an action that changed meanwhile is judged again). Returns how many went.
 * Used by `DELETE /rest/v1/actions/{id}` and the action cleanup of the scheduler.
 */
export async function deleteActions(
  deps: RemovalDeps, tenant: Tenant, ids: readonly number[], when: (a: ActionRecord) => boolean = () => true,
): Promise<number> {
  let deleted = 0;
  for (const id of ids) if (await deleteAction(deps, tenant, id, when)) deleted++;
  return deleted;
}

/** Thrown inside a commit's `also` when the action to delete is gone or no longer deletable. */
class ActionKept extends Error {}

/**
 * One action. When it is the target's installed action, the target's `installedAction` (the poll's
 * installedBase link) moves to the newest other finished action of the installed set, in the same
 * commit and through the target's actor, so the link always follows the data.
 */
async function deleteAction(deps: RemovalDeps, tenant: Tenant, id: number, when: (a: ActionRecord) => boolean): Promise<boolean> {
  const action = await deps.store.get<ActionRecord>(tenant, ACTION, id);
  if (action === undefined) return false;
  const target = await deps.store.get<TargetRecord>(tenant, TARGET, action.value.targetId);
  if (target?.value.installedAction === id) {
    const replacement = await newestFinished(deps, tenant, target.value, id);
    try {
      const moved = await deps.runtime.send(tenant, TARGET, target.id, { type: 'mgmt.actionDeleted', action: id, replacement, at: Date.now() }, {
        also: async () => {
          const current = await deps.store.get<ActionRecord>(tenant, ACTION, id);
          if (current === undefined || !when(current.value)) throw new ActionKept();
          return [deletion(ACTION, current), ...(await statusDeletes(deps, tenant, [id]))];
        },
      });
      if (moved.kind === 'committed') return true;
      if (moved.kind !== 'ignored') return false; // contended or gone: left alone
      // ignored: the installed action moved on meanwhile, so this one is deleted on its own
    } catch (err) {
      if (err instanceof ActionKept) return false;
      throw err;
    }
  }
  const result = await deps.runtime.remove(tenant, ACTION, id, { when, also: (a) => statusDeletes(deps, tenant, [a.id]) });
  return result.kind === 'removed';
}

/** The newest finished action of the target's installed set other than `except`, or null. */
async function newestFinished(deps: RemovalDeps, tenant: Tenant, target: TargetRecord, except: number): Promise<number | null> {
  const ids = (await deps.store.members(tenant, ACTION, 'target', String(target.id), SCAN_ALL)).ids.filter((a) => a !== except);
  let newest: number | null = null;
  for (const a of await loadRecords<ActionRecord>(deps.store, tenant, ACTION, ids)) {
    if (a.value.ds === target.installedDs && a.value.status === 'finished' && (newest === null || a.id > newest)) newest = a.id;
  }
  return newest;
}

/**
 * Hard delete of a target with its actions, their status entries and its poll record. Actions go
 * first, one commit each, the target last (with any action created meanwhile), so a failure
 * part-way leaves the target in place to be deleted again.
 */
export async function deleteTarget(deps: RemovalDeps, tenant: Tenant, targetId: number, label: string | number): Promise<void> {
  const ids = (await deps.store.members(tenant, ACTION, 'target', String(targetId), SCAN_ALL)).ids;
  await deleteActions(deps, tenant, ids);
  const result = await deps.runtime.remove(tenant, TARGET, targetId, {
    also: async () => {
      const left = (await deps.store.members(tenant, ACTION, 'target', String(targetId), SCAN_ALL)).ids;
      const actions = await loadRecords<ActionRecord>(deps.store, tenant, ACTION, left);
      return [...actions.map((a) => deletion(ACTION, a)), ...(await statusDeletes(deps, tenant, left))];
    },
  });
  removed(result, 'Target', label);
  await deps.store.forgetPolls(tenant, [targetId]);
}

async function statusDeletes(deps: RemovalDeps, tenant: Tenant, actionIds: readonly number[]): Promise<Write[]> {
  const pages = await Promise.all(actionIds.map((a) => deps.store.members(tenant, ACTION_STATUS, 'action', String(a), SCAN_ALL)));
  const entries = await loadRecords<unknown>(deps.store, tenant, ACTION_STATUS, pages.flatMap((p) => p.ids));
  return entries.map((e) => deletion(ACTION_STATUS, e));
}

function deletion(kind: string, r: Stored<unknown>): Write {
  return { kind, id: r.id, expect: r.version, before: r.value, after: null };
}
