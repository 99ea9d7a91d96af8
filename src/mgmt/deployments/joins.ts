import type { ActionRecord } from '../../domain/action.js';
import { DS, DS_TYPE, type DistributionSetRecord, type DistributionSetTypeRecord } from '../../domain/repository.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Store, Tenant } from '../../store/port.js';

/** Record kinds of rollouts and their groups (owned by the rollout module; read here for names only). */
const ROLLOUT = 'rollout';
const ROLLOUT_GROUP = 'rolloutgroup';

export interface Joins {
  target(id: number): TargetRecord | undefined;
  ds(id: number): DistributionSetRecord | undefined;
  dsTypeKey(dsId: number): string | undefined;
  rolloutName(id: number): string | undefined;
  groupName(id: number): string | undefined;
}

export interface JoinWhat {
  readonly targets?: boolean;
  readonly sets?: boolean;
  readonly rollouts?: boolean;
}

/** Loads, in a few batched reads, what actions refer to: targets, sets (and their types), rollouts. */
export async function loadJoins(store: Store, tenant: Tenant, actions: readonly ActionRecord[], what: JoinWhat): Promise<Joins> {
  const targets = what.targets ? await byId<TargetRecord>(store, tenant, TARGET, actions.map((a) => a.targetId)) : new Map<number, TargetRecord>();
  const sets = what.sets ? await byId<DistributionSetRecord>(store, tenant, DS, actions.map((a) => a.ds)) : new Map<number, DistributionSetRecord>();
  const types = what.sets ? await byId<DistributionSetTypeRecord>(store, tenant, DS_TYPE, [...sets.values()].map((d) => d.type)) : new Map<number, DistributionSetTypeRecord>();
  const rolloutIds = actions.flatMap((a) => (a.rollout === null ? [] : [a.rollout]));
  const groupIds = actions.flatMap((a) => (a.rolloutGroup === null ? [] : [a.rolloutGroup]));
  const rollouts = what.rollouts && rolloutIds.length > 0 ? await byId<{ name: string }>(store, tenant, ROLLOUT, rolloutIds) : new Map<number, { name: string }>();
  const groups = what.rollouts && groupIds.length > 0 ? await byId<{ name: string }>(store, tenant, ROLLOUT_GROUP, groupIds) : new Map<number, { name: string }>();
  return {
    target: (id) => targets.get(id),
    ds: (id) => sets.get(id),
    dsTypeKey: (dsId) => {
      const ds = sets.get(dsId);
      return ds === undefined ? undefined : types.get(ds.type)?.key;
    },
    rolloutName: (id) => rollouts.get(id)?.name,
    groupName: (id) => groups.get(id)?.name,
  };
}

async function byId<T>(store: Store, tenant: Tenant, kind: string, ids: readonly number[]): Promise<Map<number, T>> {
  const unique = [...new Set(ids)];
  const out = new Map<number, T>();
  if (unique.length === 0) return out;
  const found = await store.getMany<T>(tenant, kind, unique);
  found.forEach((f, i) => {
    if (f !== undefined) out.set(unique[i] as number, f.value);
  });
  return out;
}
