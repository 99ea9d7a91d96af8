import { AppError, notFound } from '../../domain/errors.js';
import { DS, DS_TYPE, SM, type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import type { Store, Tenant } from '../../store/port.js';

/** Whether the set's modules cover every mandatory module type of its type (spec 2.7 `complete`). */
export async function isComplete(store: Store, tenant: Tenant, ds: DistributionSetRecord): Promise<boolean> {
  const type = await store.get<DistributionSetTypeRecord>(tenant, DS_TYPE, ds.type);
  if (type === undefined) return false;
  if (type.value.mandatory.length === 0) return true;
  const modules = await store.getMany<SoftwareModuleRecord>(tenant, SM, ds.modules);
  const present = new Set(modules.flatMap((m) => (m === undefined || m.value.deleted ? [] : [m.value.type])));
  return type.value.mandatory.every((t) => present.has(t));
}

/**
 * A distribution set that may be auto-assigned: it exists (404), is not deleted (404 DELETED), is
 * valid (400 DS_INVALID) and complete (400 DS_INCOMPLETE). @see reference §4.8
 */
export async function loadAssignableDs(store: Store, tenant: Tenant, id: number): Promise<DistributionSetRecord> {
  const found = await store.get<DistributionSetRecord>(tenant, DS, id);
  if (found === undefined) throw notFound('DistributionSet', id);
  const ds = found.value;
  if (ds.deleted) throw new AppError('DELETED', `DistributionSet ${id} is deleted`);
  if (!ds.valid) throw new AppError('DS_INVALID', `DistributionSet ${id} is invalidated and cannot be assigned`);
  if (!(await isComplete(store, tenant, ds))) throw new AppError('DS_INCOMPLETE', `DistributionSet ${id} is incomplete: a mandatory software module is missing`);
  return ds;
}
