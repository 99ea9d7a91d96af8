import type { ActionRecord } from '../../domain/action.js';
import { ROLLOUT, ROLLOUT_GROUP } from '../../domain/rollout.js';
import { DS, DS_TYPE, type DistributionSetRecord, type DistributionSetTypeRecord } from '../../domain/repository.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import type { Store, Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import type { ActionView } from './action-fields.js';

export interface Joins {
  target(id: number): TargetRecord | undefined;
  ds(id: number): DistributionSetRecord | undefined;
  dsTypeKey(dsId: number): string | undefined;
  rolloutName(id: number): string | undefined;
  groupName(id: number): string | undefined;
}

/** Loads, in a few batched reads, what actions refer to: targets, sets (and their types), rollouts. */
export async function loadJoins(store: Store, tenant: Tenant, actions: readonly ActionRecord[], what: ReadonlySet<'targets' | 'sets' | 'rollouts'>): Promise<Joins> {
  const none = new Map<number, never>();
  const targets = what.has('targets') ? await loadMap<TargetRecord>(store, tenant, TARGET, actions.map((a) => a.targetId)) : none;
  const sets = what.has('sets') ? await loadMap<DistributionSetRecord>(store, tenant, DS, actions.map((a) => a.ds)) : none;
  const types = what.has('sets') ? await loadMap<DistributionSetTypeRecord>(store, tenant, DS_TYPE, [...sets.values()].map((d) => d.type)) : none;
  const rollouts = what.has('rollouts') ? await loadMap<{ name: string }>(store, tenant, ROLLOUT, actions.map((a) => a.rollout)) : none;
  const groups = what.has('rollouts') ? await loadMap<{ name: string }>(store, tenant, ROLLOUT_GROUP, actions.map((a) => a.rolloutGroup)) : none;
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

/** Actions as their query fields see them, with what the query names joined. */
export async function joinActions(
  store: Store, tenant: Tenant, actions: readonly ActionRecord[], joins: ReadonlySet<string>,
): Promise<ActionView[]> {
  if (joins.size === 0) return actions.map((a) => ({ a }));
  const j = await loadJoins(store, tenant, actions, joins as ReadonlySet<'targets' | 'sets' | 'rollouts'>);
  return actions.map((a) => ({
    a, target: j.target(a.targetId), ds: j.ds(a.ds), dsTypeKey: j.dsTypeKey(a.ds),
    rolloutName: a.rollout === null ? undefined : j.rolloutName(a.rollout),
    groupName: a.rolloutGroup === null ? undefined : j.groupName(a.rolloutGroup),
  }));
}
