import type { Audit } from './audit.js';
import type { Conditions, GroupStatus, RolloutGroupRecord } from './rollout.js';

/**
 * Dynamic rollout groups (hawkBit's `dynamic: true` with `dynamicGroupTemplate {nameSuffix,
 * targetCount}`), pure: after the static groups come groups `group-<N><suffix>` that the engine fills
 * while the rollout runs with targets that match its filter and have no action of it yet, up to
 * their size; a full group gets a successor.
 */

export interface DynamicGroupSpec {
  readonly id: number;
  readonly rollout: number;
  /** The group's number in its rollout (1-based): its name is `group-<index><suffix>`. */
  readonly index: number;
  readonly suffix: string;
  /** How many targets it takes (kept in `targetPercentage`, as hawkBit keeps it). */
  readonly size: number;
  readonly confirmationRequired: boolean;
  readonly conditions: Conditions;
  readonly targetFilterQuery?: string | null;
  readonly status: GroupStatus;
  readonly audit: Audit;
}

/** A dynamic group after `parent` (null: the rollout's first group), holding no target yet. */
export function dynamicGroup(parent: Pick<RolloutGroupRecord, 'id'> | null, s: DynamicGroupSpec): RolloutGroupRecord {
  const name = `group-${s.index}${s.suffix}`;
  const c = s.conditions;
  return {
    id: s.id, rollout: s.rollout, name, description: name, status: s.status, targetFilterQuery: s.targetFilterQuery ?? null,
    targetPercentage: s.size, confirmationRequired: s.confirmationRequired, totalTargets: 0, parent: parent?.id ?? null,
    successHandled: false, dynamic: true, successCondition: c.successCondition, successAction: c.successAction,
    errorCondition: c.errorCondition, errorAction: c.errorAction, ...s.audit,
  };
}

/** How many targets a dynamic group takes (at least one, as hawkBit's executor counts). */
export const dynamicSize = (g: Pick<RolloutGroupRecord, 'targetPercentage'>): number => Math.max(Math.floor(g.targetPercentage), 1);

/**
 * The group that follows a full (or finished) last group, as hawkBit's executor makes it: scheduled,
 * named with the last group's suffix, the same size (a static last group: its target count), filter,
 * confirmation and conditions.
 */
export function nextDynamicGroup(last: RolloutGroupRecord, count: number, id: number, audit: Audit): RolloutGroupRecord {
  const stem = `group-${count}`;
  return dynamicGroup(last, {
    id, rollout: last.rollout, index: count + 1, suffix: last.name.startsWith(stem) ? last.name.slice(stem.length) : '',
    size: last.dynamic === true ? last.targetPercentage : last.totalTargets, confirmationRequired: last.confirmationRequired,
    conditions: last, targetFilterQuery: last.targetFilterQuery, status: 'scheduled', audit,
  });
}
