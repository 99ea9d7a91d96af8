import {
  isComplete, DS_TAG, DS_TYPE, SM, SM_TYPE,
  type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord, type TagRecord,
} from '../../domain/repository.js';
import type { Store, Tenant } from '../../store/port.js';

/**
 * Records joined with what their JSON and their query fields show of other records (type key and
 * name, the modules of a set, tag names). Each join reads every referenced record once per call.
 */
export interface SmView {
  readonly sm: SoftwareModuleRecord;
  readonly type: SoftwareModuleTypeRecord | undefined;
}

export interface DsView {
  readonly ds: DistributionSetRecord;
  readonly type: DistributionSetTypeRecord | undefined;
  readonly modules: readonly SmView[];
  readonly tags: readonly TagRecord[];
  readonly complete: boolean;
}

const BATCH = 1000;

/** The records of these ids that exist, by id, in batched round trips. */
export async function loadById<T>(store: Store, tenant: Tenant, kind: string, ids: Iterable<number>): Promise<Map<number, T>> {
  const unique = [...new Set(ids)];
  const out = new Map<number, T>();
  for (let i = 0; i < unique.length; i += BATCH) {
    const slice = unique.slice(i, i + BATCH);
    const found = await store.getMany<T>(tenant, kind, slice);
    found.forEach((f, j) => {
      if (f !== undefined) out.set(slice[j] as number, f.value);
    });
  }
  return out;
}

export async function joinSoftwareModules(store: Store, tenant: Tenant, modules: readonly SoftwareModuleRecord[]): Promise<SmView[]> {
  const types = await loadById<SoftwareModuleTypeRecord>(store, tenant, SM_TYPE, modules.map((m) => m.type));
  return modules.map((sm) => ({ sm, type: types.get(sm.type) }));
}

export async function joinDistributionSets(store: Store, tenant: Tenant, sets: readonly DistributionSetRecord[]): Promise<DsView[]> {
  const [types, modules, tags] = await Promise.all([
    loadById<DistributionSetTypeRecord>(store, tenant, DS_TYPE, sets.map((d) => d.type)),
    loadById<SoftwareModuleRecord>(store, tenant, SM, sets.flatMap((d) => d.modules)),
    loadById<TagRecord>(store, tenant, DS_TAG, sets.flatMap((d) => d.tags)),
  ]);
  const smViews = new Map((await joinSoftwareModules(store, tenant, [...modules.values()])).map((v) => [v.sm.id, v]));
  return sets.map((ds) => {
    const type = types.get(ds.type);
    const mods = ds.modules.map((id) => smViews.get(id)).filter((v): v is SmView => v !== undefined);
    return {
      ds,
      type,
      modules: mods,
      tags: ds.tags.map((id) => tags.get(id)).filter((t): t is TagRecord => t !== undefined),
      complete: isComplete(type, mods.map((m) => m.sm)),
    };
  });
}
