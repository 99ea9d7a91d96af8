import { AppError, concurrent, notFound } from '../domain/errors.js';
import {
  ARTIFACT, DS, DS_TYPE, SM, SM_TYPE, incompleteness, isModuleComplete, needsArtifacts,
  type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord, type SoftwareModuleTypeRecord,
} from '../domain/repository.js';
import type { TargetRecord } from '../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../domain/targeting.js';
import type { Store, Tenant, Write } from '../store/port.js';
import { loadMap } from '../store/reads.js';
import { retryCommit } from '../store/retry.js';

/**
 * What a distribution set must be before it is assigned (reference §3.16): existing and not deleted
 * (404), valid (400 DS_INVALID) and complete (400 DS_INCOMPLETE), checked in hawkBit's order.
 */
export async function assignableSet(store: Store, tenant: Tenant, id: number): Promise<DistributionSetRecord> {
  const found = await store.get<DistributionSetRecord>(tenant, DS, id);
  if (found === undefined) throw notFound('DistributionSet', id);
  const ds = found.value;
  if (ds.deleted) throw new AppError('DELETED', `DistributionSet with given identifier {${id}} is deleted.`);
  if (!ds.valid) throw new AppError('DS_INVALID', `Distribution set {${id}} is invalidated and cannot be assigned.`);
  const why = await whyIncomplete(store, tenant, ds);
  if (why !== undefined) throw new AppError('DS_INCOMPLETE', `Distribution set {${id}} is incomplete: ${why}.`);
  return ds;
}

/** Complete (domain rule) counting only the set's live modules: a soft-deleted module is not deployable. */
async function whyIncomplete(store: Store, tenant: Tenant, ds: DistributionSetRecord): Promise<string | undefined> {
  const type = await store.get<DistributionSetTypeRecord>(tenant, DS_TYPE, ds.type);
  const found = await store.getMany<SoftwareModuleRecord>(tenant, SM, ds.modules);
  const modules = found.flatMap((m) => (m === undefined || m.value.deleted ? [] : [m.value]));
  const types = await loadMap<SoftwareModuleTypeRecord>(store, tenant, SM_TYPE, modules.map((m) => m.type));
  const complete = await modulesComplete(store, tenant, modules.map((sm) => ({ sm, type: types.get(sm.type) })));
  return incompleteness(type?.value, modules.map((m, i) => ({ type: m.type, complete: complete[i] === true })));
}

interface TypedModule {
  readonly sm: SoftwareModuleRecord;
  readonly type: SoftwareModuleTypeRecord | undefined;
}

/** Each module's `complete` (its type's minArtifacts): artifacts are counted only where the type asks for some. */
export async function modulesComplete(store: Store, tenant: Tenant, modules: readonly TypedModule[]): Promise<boolean[]> {
  const artifacts = (sm: SoftwareModuleRecord) => store.count(tenant, ARTIFACT, 'module', String(sm.id));
  return Promise.all(modules.map(async ({ sm, type }) => !needsArtifacts(type) || isModuleComplete(type, await artifacts(sm))));
}

/**
 * 400 TARGET_TYPE_INCOMPATIBLE when a target has a type whose compatible DS types exclude the set's
 * type (reference §3.16). Targets without a type take any set.
 */
export async function checkTypeCompatibility(
  store: Store, tenant: Tenant, pairs: readonly { target: TargetRecord; ds: DistributionSetRecord }[],
): Promise<void> {
  const types = await targetTypesOf(store, tenant, pairs.map((p) => p.target));
  for (const { target, ds } of pairs) {
    if (!isCompatible(types, target, ds)) {
      const type = types.get(target.targetType ?? 0);
      throw new AppError('TARGET_TYPE_INCOMPATIBLE',
        `Target '${target.controllerId}' of type '${type?.name ?? '?'}' is not compatible with distribution set {${ds.id}} (type ${ds.type}).`);
    }
  }
}

/** The target types of these targets, by id (one batched read). */
export async function targetTypesOf(
  store: Store, tenant: Tenant, targets: readonly TargetRecord[],
): Promise<ReadonlyMap<number, TargetTypeRecord>> {
  const ids = [...new Set(targets.flatMap((t) => (t.targetType === null ? [] : [t.targetType])))];
  if (ids.length === 0) return new Map();
  const found = await store.getMany<TargetTypeRecord>(tenant, TARGET_TYPE, ids);
  return new Map(found.flatMap((t) => (t === undefined ? [] : [[t.id, t.value] as const])));
}

/** A target without a type (or whose type is gone) takes any set; a typed one only its compatible DS types. */
export function isCompatible(types: ReadonlyMap<number, TargetTypeRecord>, target: TargetRecord, ds: DistributionSetRecord): boolean {
  const type = target.targetType === null ? undefined : types.get(target.targetType);
  return type === undefined || type.compatibleDsTypes.includes(ds.type);
}

/** Implicit lock (`implicit.lock.enabled`): the set and its modules are locked when first assigned. */
export async function lockImplicitly(store: Store, tenant: Tenant, ds: DistributionSetRecord, now: number): Promise<void> {
  const result = await retryCommit<void>(store, tenant, async () => {
    const writes: Write[] = [];
    const current = await store.get<DistributionSetRecord>(tenant, DS, ds.id);
    if (current === undefined) return { done: undefined };
    if (!current.value.locked) {
      writes.push({
        kind: DS, id: ds.id, expect: current.version, before: current.value, after: { ...current.value, locked: true, lastModifiedAt: now },
      });
    }
    for (const m of await store.getMany<SoftwareModuleRecord>(tenant, SM, current.value.modules)) {
      if (m !== undefined && !m.value.locked) {
        writes.push({ kind: SM, id: m.id, expect: m.version, before: m.value, after: { ...m.value, locked: true, lastModifiedAt: now } });
      }
    }
    return writes.length === 0 ? { done: undefined } : { commit: { writes }, result: () => undefined };
  });
  if (!result.ok) throw concurrent('distribution set', ds.id);
}
