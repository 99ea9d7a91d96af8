import { AppError, notFound } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import { DS, SM_TYPE, type DistributionSetTypeRecord, type SoftwareModuleTypeRecord } from '../../domain/repository.js';
import type { Store, Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';

/**
 * Rules of a distribution set type's module-type lists: the module types must exist and not be
 * deleted, their number is capped by a quota, and once a set uses the type the lists are frozen.
 * @see spec 2.5, reference §3.10 and §8
 */
export interface TypeRuleDeps {
  readonly store: Store;
  readonly quotas: Pick<Quotas, 'maxSoftwareModuleTypesPerDistributionSetType'>;
}

export async function liveSmTypes(deps: Pick<TypeRuleDeps, 'store'>, tenant: Tenant, ids: readonly number[]): Promise<void> {
  const found = await loadMap<SoftwareModuleTypeRecord>(deps.store, tenant, SM_TYPE, ids);
  const missing = ids.find((id) => found.get(id)?.deleted !== false);
  if (missing !== undefined) throw notFound('SoftwareModuleType', missing);
}

/** The lists with `mandatory` winning over `optional` for a type named in both, within the quota. */
export function moduleTypeLists(deps: Pick<TypeRuleDeps, 'quotas'>, mandatory: readonly number[], optional: readonly number[]): { mandatory: number[]; optional: number[] } {
  const m = [...new Set(mandatory)];
  const o = [...new Set(optional)].filter((id) => !m.includes(id));
  const max = deps.quotas.maxSoftwareModuleTypesPerDistributionSetType;
  if (m.length + o.length > max) {
    throw new AppError('QUOTA_EXCEEDED', `a distribution set type may hold at most ${max} software module types, got ${m.length + o.length}`);
  }
  return { mandatory: m, optional: o };
}

export async function dsTypeInUse(deps: Pick<TypeRuleDeps, 'store'>, tenant: Tenant, id: number): Promise<boolean> {
  return (await deps.store.count(tenant, DS, 'type', String(id))) > 0;
}

/** Throws READ_ONLY (403) when a distribution set already uses the type. */
export async function assertModuleTypesChangeable(deps: Pick<TypeRuleDeps, 'store'>, tenant: Tenant, type: DistributionSetTypeRecord): Promise<void> {
  if (await dsTypeInUse(deps, tenant, type.id)) {
    throw new AppError('READ_ONLY', `distribution set type ${type.id} is in use by distribution sets; its module types can no longer change`);
  }
}
