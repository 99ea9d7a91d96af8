import type { Services } from '../../app/services.js';
import { AppError, notFound } from '../../domain/errors.js';
import { DS, SM_TYPE, type DistributionSetTypeRecord, type SoftwareModuleTypeRecord } from '../../domain/repository.js';
import type { Tenant } from '../../store/port.js';
import { loadById } from './joins.js';

/**
 * Rules of a distribution set type's module-type lists: the module types must exist and not be
 * deleted, their number is capped by a quota, and once a set uses the type the lists are frozen.
 * @see spec 2.5, reference §3.10 and §8
 */
export async function liveSmTypes(services: Services, tenant: Tenant, ids: readonly number[]): Promise<Map<number, SoftwareModuleTypeRecord>> {
  const found = await loadById<SoftwareModuleTypeRecord>(services.ctx.store, tenant, SM_TYPE, ids);
  for (const id of ids) {
    if (found.get(id)?.deleted !== false) throw notFound('SoftwareModuleType', id);
  }
  return found;
}

/** The lists with `mandatory` winning over `optional` for a type named in both, within the quota. */
export function moduleTypeLists(services: Services, mandatory: readonly number[], optional: readonly number[]): { mandatory: number[]; optional: number[] } {
  const m = [...new Set(mandatory)];
  const o = [...new Set(optional)].filter((id) => !m.includes(id));
  const max = services.quotas.maxSoftwareModuleTypesPerDistributionSetType;
  if (m.length + o.length > max) {
    throw new AppError('QUOTA_EXCEEDED', `a distribution set type may hold at most ${max} software module types, got ${m.length + o.length}`);
  }
  return { mandatory: m, optional: o };
}

export async function dsTypeInUse(services: Services, tenant: Tenant, id: number): Promise<boolean> {
  return (await services.ctx.store.count(tenant, DS, 'type', String(id))) > 0;
}

/** Throws READ_ONLY (403) when a distribution set already uses the type. */
export async function assertModuleTypesChangeable(services: Services, tenant: Tenant, type: DistributionSetTypeRecord): Promise<void> {
  if (await dsTypeInUse(services, tenant, type.id)) {
    throw new AppError('READ_ONLY', `distribution set type ${type.id} is in use by distribution sets; its module types can no longer change`);
  }
}
