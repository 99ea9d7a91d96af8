import { AppError } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Store, Tenant } from '../../store/port.js';
import { loadRecords } from '../../store/reads.js';
import type { ActorKey } from '../kit/actor-store.js';

/** Targets as the Management API names them: by controller id (case-insensitive, as the unique index). */
export const BY_CONTROLLER_ID: ActorKey<typeof TARGET> = {
  kind: TARGET, index: 'controllerId', key: (c) => c.toLowerCase(), name: (t) => t.controllerId,
};

/** The targets with these controller ids (request order, each once) and the ids that name none. */
export async function findTargets(
  store: Store, tenant: Tenant, controllerIds: readonly string[],
): Promise<{ found: TargetRecord[]; missing: string[] }> {
  const unique = [...new Map(controllerIds.map((c) => [BY_CONTROLLER_ID.key(c), c])).entries()];
  const ids = unique.length === 0 ? [] : await store.lookupMany(tenant, TARGET, BY_CONTROLLER_ID.index, unique.map(([k]) => k));
  const records = await loadRecords<TargetRecord>(store, tenant, TARGET, ids.filter((x) => x !== undefined));
  const byId = new Map(records.map((r) => [r.id, r.value]));
  const found: TargetRecord[] = [];
  const missing: string[] = [];
  unique.forEach(([, cid], i) => {
    const id = ids[i];
    const t = id === undefined ? undefined : byId.get(id);
    if (t === undefined) missing.push(cid);
    else found.push(t);
  });
  return { found, missing };
}

/** 404 naming the missing controller ids. */
export function targetsNotFound(missing: readonly string[]): AppError {
  const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, and ${missing.length - 10} more` : '');
  return new AppError('NOT_FOUND', `Target with given identifiers {${shown}} does not exist.`);
}
