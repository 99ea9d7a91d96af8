import { DEFAULT_CONDITIONS, type Conditions } from './rollout.js';
import type { GroupOrder } from './rollout-release.js';
import { seeded } from './seeded-random.js';

/**
 * How a rollout's targets are divided over its groups (reference §4.7), pure.
 * @see reference §4.7 ("Filling", percent semantics, "Rollout groups don't match all targets")
 */

/** A group as the create request defines it, conditions resolved. */
export interface GroupDef extends Conditions {
  readonly name: string;
  readonly description: string | null;
  /** The group's own filter, ANDed with the rollout's; null: the rollout's targets. */
  readonly targetFilterQuery: string | null;
  /** 1..100; may be fractional (100 / amountGroups). */
  readonly targetPercentage: number;
  readonly confirmationRequired: boolean;
}

/** `amountGroups=N`: groups `group-1..group-N`, each 100/N percent, with the rollout's conditions. */
export function amountGroupDefs(n: number, conditions: Conditions = DEFAULT_CONDITIONS, confirmationRequired = false): GroupDef[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `group-${i + 1}`, description: `group-${i + 1}`, targetFilterQuery: null, targetPercentage: 100 / n, confirmationRequired, ...conditions,
  }));
}

/**
 * hawkBit's "new style" percentages: a group's share of the targets still left that match its filter
 * is its percentage relative to what the earlier groups with the same filter left
 * (`pct * 100 / (100 - sum of earlier pcts)`, at most 100 %). The first group of a filter at 100 %
 * takes all its matching targets; later groups of the same filter then take nothing.
 */
export function shareOf(groups: readonly Pick<GroupDef, 'targetFilterQuery' | 'targetPercentage'>[], index: number): number {
  const g = groups[index];
  if (g === undefined) return 0;
  let earlier = 0;
  for (let i = 0; i < index; i++) {
    const other = groups[i];
    if (other !== undefined && other.targetFilterQuery === g.targetFilterQuery) earlier += other.targetPercentage;
  }
  const rest = 100 - earlier;
  return rest <= 0 ? 100 : Math.min(100, (g.targetPercentage * 100) / rest);
}

export interface Distribution<T> {
  /** The targets of each group, in the order given. */
  readonly groups: readonly (readonly T[])[];
  /** Targets no group took (the request is refused when there are any). */
  readonly left: number;
}

/**
 * Divides `targets` (the rollout's, in id order) over the groups: each group takes, from the targets
 * no earlier group took that its filter accepts, round(share % of them), in order.
 */
export function distribute<T>(
  targets: readonly T[], groups: readonly Pick<GroupDef, 'targetFilterQuery' | 'targetPercentage'>[], accepts: (group: number, target: T) => boolean,
): Distribution<T> {
  const taken = new Array<boolean>(targets.length).fill(false);
  const out: T[][] = [];
  for (let g = 0; g < groups.length; g++) {
    const candidates: number[] = [];
    targets.forEach((t, i) => {
      if (!taken[i] && accepts(g, t)) candidates.push(i);
    });
    const want = Math.round((shareOf(groups, g) * candidates.length) / 100);
    const mine = candidates.slice(0, want);
    for (const i of mine) taken[i] = true;
    out.push(mine.map((i) => targets[i] as T));
  }
  return { groups: out, left: taken.filter((x) => !x).length };
}

/** The filter of a group: the rollout's ANDed with the group's own (reference §4.7). */
export function groupQuery(rolloutQuery: string, groupQuery: string | null): string {
  return groupQuery === null || groupQuery.trim() === '' ? rolloutQuery : `(${rolloutQuery});(${groupQuery})`;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * The targets in the order the groups take them (`distribute` fills each group from the front).
 * `random`: a seeded shuffle. `spread`: shuffled, then each target placed at the middle of its share
 * of its attribute value's run ((k + 0.5) / n for the k-th of n), so every prefix, and so every group,
 * holds each value in proportion: targets of one site land in different groups. A target without the
 * attribute counts as the value "".
 */
export function orderTargets<T>(
  targets: readonly T[], order: GroupOrder | undefined, attributeOf: (t: T, name: string) => string | undefined,
): T[] {
  if (order === undefined || order.order === 'created') return [...targets];
  const mixed = shuffled(targets, seeded(order.seed));
  if (order.order === 'random') return mixed;
  const runs = new Map<string, number>();
  for (const t of mixed) {
    const v = attributeOf(t, order.attribute) ?? '';
    runs.set(v, (runs.get(v) ?? 0) + 1);
  }
  const seen = new Map<string, number>();
  const keyed = mixed.map((t, i) => {
    const v = attributeOf(t, order.attribute) ?? '';
    const k = seen.get(v) ?? 0;
    seen.set(v, k + 1);
    return { t, i, key: (k + 0.5) / (runs.get(v) ?? 1) };
  });
  keyed.sort((a, b) => a.key - b.key || a.i - b.i);
  return keyed.map((x) => x.t);
}

/** A group as a regroup sees it: its id and how the create request sized it. */
export interface RegroupGroup extends Pick<GroupDef, 'targetFilterQuery' | 'targetPercentage'> {
  readonly id: number;
}

/**
 * The member records of a rollout divided again in `ordered` (its targets in the new group order), for a
 * `groupOrder` changed before the start: each group takes its share as `distribute` gives it, written
 * into the group's own member records in id order, so ids and chunk sizes stay. Groups without their own
 * filter take a share of the count only, so every group keeps its size; anything else throws.
 */
export function regroupMembers<M extends { readonly id: number; readonly group: number; readonly targets: readonly number[] }>(
  members: readonly M[], groups: readonly RegroupGroup[], ordered: readonly number[],
): M[] {
  if (groups.some((g) => g.targetFilterQuery !== null)) throw new Error('regroupMembers: groups with their own filter cannot be regrouped');
  const split = distribute(ordered, groups, () => true);
  const out: M[] = [];
  groups.forEach((g, i) => {
    const mine = members.filter((m) => m.group === g.id).sort((a, b) => a.id - b.id);
    const targets = split.groups[i] ?? [];
    const held = mine.reduce((n, m) => n + m.targets.length, 0);
    if (held !== targets.length) throw new Error(`regroupMembers: group ${g.id} holds ${held} targets, the new order gives it ${targets.length}`);
    let at = 0;
    for (const m of mine) {
      out.push({ ...m, targets: targets.slice(at, at + m.targets.length) });
      at += m.targets.length;
    }
  });
  return out;
}
