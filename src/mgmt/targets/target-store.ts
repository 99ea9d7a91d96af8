import { ACTION, ACTION_STATUS } from '../../domain/action.js';
import { AppError, notFound } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import type { Store, Stored, Tenant, Write } from '../../store/port.js';
import { SCAN_LIMIT } from '../kit/listing.js';

const ALL = { offset: 0, limit: SCAN_LIMIT };
const MAX_ATTEMPTS = 8;
/** Writes per commit when a target takes many actions and status entries with it. */
const CHUNK = 5000;

/** A target by controller id (case-insensitive, as the unique index), or 404. */
export async function loadTarget(store: Store, tenant: Tenant, controllerId: string): Promise<Stored<TargetRecord>> {
  const id = await store.lookup(tenant, TARGET, 'controllerId', controllerId.toLowerCase());
  const found = id === undefined ? undefined : await store.get<TargetRecord>(tenant, TARGET, id);
  if (found === undefined) throw notFound('Target', controllerId);
  return found;
}

/** A live target type, or 404. */
export async function loadTargetType(store: Store, tenant: Tenant, id: number): Promise<Stored<TargetTypeRecord>> {
  const found = await store.get<TargetTypeRecord>(tenant, TARGET_TYPE, id);
  if (found === undefined || found.value.deleted) throw notFound('TargetType', id);
  return found;
}

/**
 * Hard delete of a target with its actions, their status entries and its poll record (hawkBit
 * deletes them by cascade). Large histories go in several commits; the target itself goes in the
 * last one, so a failure part-way leaves the target in place to be deleted again.
 */
export async function deleteTarget(store: Store, tenant: Tenant, controllerId: string): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const target = await loadTarget(store, tenant, controllerId);
    const actionIds = (await store.members(tenant, ACTION, 'target', String(target.id), ALL)).ids;
    const statusIds = (await Promise.all(actionIds.map((a) => store.members(tenant, ACTION_STATUS, 'action', String(a), ALL)))).flatMap((p) => p.ids);
    const writes: Write[] = [
      ...(await deletes(store, tenant, ACTION_STATUS, statusIds)),
      ...(await deletes(store, tenant, ACTION, actionIds)),
      { kind: TARGET, id: target.id, expect: target.version, before: target.value, after: null },
    ];
    let stale = false;
    for (let i = 0; i < writes.length && !stale; i += CHUNK) {
      const result = await store.commit(tenant, { writes: writes.slice(i, i + CHUNK) });
      if (!result.ok) {
        if (result.reason !== 'stale-version') throw new AppError('CONCURRENT_MODIFICATION', `Target ${controllerId} could not be deleted: ${result.reason}`);
        stale = true;
      }
    }
    if (!stale) {
      await store.forgetPolls(tenant, [target.id]);
      return;
    }
  }
  throw new AppError('CONCURRENT_MODIFICATION', `Target ${controllerId} is being modified concurrently; retry the request`);
}

async function deletes(store: Store, tenant: Tenant, kind: string, ids: readonly number[]): Promise<Write[]> {
  const out: Write[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    for (const r of await store.getMany<unknown>(tenant, kind, ids.slice(i, i + 1000))) {
      if (r !== undefined) out.push({ kind, id: r.id, expect: r.version, before: r.value, after: null });
    }
  }
  return out;
}
