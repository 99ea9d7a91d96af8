import { DS, TARGET_TAG, type DistributionSetRecord, type TagRecord } from '../../domain/repository.js';
import { TARGET, targetSchema, type TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import { queryEntities, resolveField, toPredicate, type EvalContext, type Filter, type ListParams } from '../../query/index.js';
import type { Store, Tenant } from '../../store/port.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { JOIN_OF, targetFields, type Join, type TargetView } from './target-fields.js';
import { planCandidates } from './target-plan.js';

const BATCH = 1000;

export interface TargetQuery extends ListParams<TargetView> {
  /** Only targets under this key of a target multi index (`tag`, `assignedDs`, `installedDs`, ...). */
  readonly within?: { readonly index: string; readonly key: string } | undefined;
}

/**
 * Runs a target list query: candidates from the best index plan (target-plan.ts), else from
 * `within`, else every target (bounded); then, batch by batch, the joins the query and sort need
 * and the filter, so only matches are held; then sort and page.
 */
export async function queryTargets(store: Store, tenant: Tenant, q: TargetQuery, ctx: EvalContext): Promise<{ content: TargetRecord[]; total: number }> {
  const ids = await candidateIds(store, tenant, q, ctx);
  const within = q.within;
  const inside = within === undefined
    ? () => true
    : (t: TargetRecord) => (targetSchema.indexes(t).multi ?? []).some(([i, k]) => i === within.index && k === within.key);
  const keep = q.filter === undefined ? () => true : toPredicate(q.filter, ctx);
  const joins = joinsOf(q.filter, q.sort);
  const matches: TargetView[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const records = (await store.getMany<TargetRecord>(tenant, TARGET, ids.slice(i, i + BATCH))).flatMap((r) => (r !== undefined && inside(r.value) ? [r.value] : []));
    for (const v of await joinViews(store, tenant, records, joins)) if (keep(v)) matches.push(v);
  }
  const result = queryEntities(matches, { offset: q.offset, limit: q.limit, sort: q.sort }, targetFields, ctx);
  return { content: result.content.map((v) => v.t), total: result.total };
}

async function candidateIds(store: Store, tenant: Tenant, q: TargetQuery, ctx: EvalContext): Promise<readonly number[]> {
  const planned = q.filter === undefined ? undefined : await planCandidates(store, tenant, q.filter, ctx);
  if (planned !== undefined) return planned;
  if (q.within !== undefined) return (await store.members(tenant, TARGET, q.within.index, q.within.key, { offset: 0, limit: SCAN_LIMIT })).ids;
  return (await store.ids(tenant, TARGET, { offset: 0, limit: SCAN_LIMIT })).ids;
}

function joinsOf(filter: Filter<TargetView> | undefined, sort: TargetQuery['sort']): Set<Join> {
  const joins = new Set<Join>();
  const stack: Filter<TargetView>[] = filter === undefined ? [] : [filter];
  while (stack.length > 0) {
    const f = stack.pop() as Filter<TargetView>;
    if (f.kind === 'cmp') {
      const j = JOIN_OF.get(f.field.name);
      if (j !== undefined) joins.add(j);
    } else stack.push(...f.children);
  }
  for (const s of sort) {
    const j = JOIN_OF.get(resolveField(targetFields, s.field)?.spec.name ?? '');
    if (j !== undefined) joins.add(j);
  }
  return joins;
}

/** Views of the records with the joined parts loaded (each joined kind in a few round trips). */
export async function joinViews(store: Store, tenant: Tenant, records: readonly TargetRecord[], joins: ReadonlySet<Join>): Promise<TargetView[]> {
  if (joins.size === 0) return records.map((t) => ({ t }));
  const polls = joins.has('poll') ? await batched(records.map((t) => t.id), (ids) => store.getPolls(tenant, ids)) : undefined;
  const tags = joins.has('tags') ? await loadMap<TagRecord>(store, tenant, TARGET_TAG, records.flatMap((t) => t.tags)) : undefined;
  const types = joins.has('type') ? await loadMap<TargetTypeRecord>(store, tenant, TARGET_TYPE, records.map((t) => t.targetType)) : undefined;
  const sets = joins.has('ds') ? await loadMap<DistributionSetRecord>(store, tenant, DS, records.flatMap((t) => [t.assignedDs, t.installedDs])) : undefined;
  return records.map((t, i) => ({
    t,
    poll: polls?.[i],
    tagNames: tags === undefined ? undefined : t.tags.map((id) => tags.get(id)?.name).filter((n): n is string => n !== undefined),
    type: t.targetType === null ? undefined : types?.get(t.targetType),
    assigned: t.assignedDs === null ? undefined : sets?.get(t.assignedDs),
    installed: t.installedDs === null ? undefined : sets?.get(t.installedDs),
  }) as TargetView);
}

/** Loads the distinct ids given (nulls skipped) of one kind into a map. */
export async function loadMap<R>(store: Store, tenant: Tenant, kind: string, ids: readonly (number | null)[]): Promise<Map<number, R>> {
  const distinct = [...new Set(ids.filter((x): x is number => x !== null))];
  const found = await batched(distinct, (part) => store.getMany<R>(tenant, kind, part));
  const map = new Map<number, R>();
  found.forEach((r, i) => {
    if (r !== undefined) map.set(distinct[i] as number, r.value);
  });
  return map;
}

async function batched<I, O>(items: readonly I[], load: (part: readonly I[]) => Promise<O[]>): Promise<O[]> {
  const out: O[] = [];
  for (let i = 0; i < items.length; i += BATCH * 5) out.push(...(await load(items.slice(i, i + BATCH * 5))));
  return out;
}
