/**
 * The rules of a distribution set's composition, as hawkBit's JpaDistributionSet.addModule applies
 * them: a module's type must be allowed by the set's type (mandatory or optional), else 400
 * DS_MODULE_UNSUPPORTED; adding a module of a type whose maxAssignments is reached replaces the
 * set's first module of that type; the number of modules is capped by a quota (403).
 * @see reference §3.9, §8; spec 2.7
 */
import { ACTION } from '../../domain/action.js';
import { AppError, notFound } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import { DS_TYPE, SM, type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import type { Store, Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import { loadOr404 } from '../kit/store.js';
import { joinSoftwareModules, type SmView } from './views.js';

interface RuleDeps {
  readonly store: Store;
  readonly quotas: Pick<Quotas, 'maxSoftwareModulesPerDistributionSet'>;
}

/** The set type named by its key; no key: 400 DS_TYPE_UNDEFINED; unknown or deleted: 404. */
export async function dsTypeByKey(deps: Pick<RuleDeps, 'store'>, tenant: Tenant, key: string | undefined): Promise<DistributionSetTypeRecord> {
  if (key === undefined) throw new AppError('DS_TYPE_UNDEFINED', 'body.type: the distribution set type (its key) is required');
  const id = await deps.store.lookup(tenant, DS_TYPE, 'key', key.toLowerCase());
  if (id === undefined) throw notFound('DistributionSetType', key);
  return (await loadOr404(deps.store, tenant, DS_TYPE, id)).value;
}

/** Modules by id with their types, in the order given; 404 for a missing or deleted one. */
export async function liveModules(deps: Pick<RuleDeps, 'store'>, tenant: Tenant, ids: readonly number[]): Promise<SmView[]> {
  const found = await loadMap<SoftwareModuleRecord>(deps.store, tenant, SM, ids);
  const modules = ids.map((id) => {
    const m = found.get(id);
    if (m === undefined || m.deleted) throw notFound('SoftwareModule', id);
    return m;
  });
  return joinSoftwareModules(deps, tenant, modules);
}

/** The module list after adding `added` to `current` one by one. */
export function addModules(deps: Pick<RuleDeps, 'quotas'>, type: DistributionSetTypeRecord, current: readonly SmView[], added: readonly SmView[]): SmView[] {
  const modules = [...current];
  for (const m of added) {
    if (!type.mandatory.includes(m.sm.type) && !type.optional.includes(m.sm.type)) {
      throw new AppError('DS_MODULE_UNSUPPORTED', `software module ${m.sm.id} has type '${m.type?.key ?? m.sm.type}', which distribution set type '${type.key}' does not allow`);
    }
    if (modules.some((x) => x.sm.id === m.sm.id)) continue;
    const sameType = modules.filter((x) => x.sm.type === m.sm.type);
    if (sameType.length >= (m.type?.maxAssignments ?? 1)) modules.splice(modules.indexOf(sameType[0] as SmView), 1);
    modules.push(m);
  }
  const max = deps.quotas.maxSoftwareModulesPerDistributionSet;
  if (modules.length > max) {
    throw new AppError('QUOTA_EXCEEDED', `a distribution set may hold at most ${max} software modules, would hold ${modules.length}`);
  }
  return modules;
}

/** A set is assigned once any action refers to it. */
export async function isAssigned(deps: Pick<RuleDeps, 'store'>, tenant: Tenant, dsId: number): Promise<boolean> {
  return (await deps.store.count(tenant, ACTION, 'ds', String(dsId))) > 0;
}

/** Modules of an assigned set are frozen: 403 READ_ONLY (hawkBit checks the set's actions). */
export async function assertModulesChangeable(deps: Pick<RuleDeps, 'store'>, tenant: Tenant, ds: DistributionSetRecord): Promise<void> {
  if (await isAssigned(deps, tenant, ds.id)) {
    throw new AppError('READ_ONLY', `distribution set ${ds.id} is assigned to targets; its software modules can no longer change`);
  }
}
