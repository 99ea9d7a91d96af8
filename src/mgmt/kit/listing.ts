import type { Store, Tenant } from '../../store/port.js';
import { indexPlans, queryEntities, type EvalContext, type FieldMap, type ListParams, type QueryResult } from '../../query/index.js';

/** The most records a query without a usable index reads before answering. */
export const SCAN_LIMIT = 1_000_000;
const BATCH = 1000;

export interface ListSource<E> {
  readonly store: Store;
  readonly tenant: Tenant;
  readonly kind: string;
  readonly fields: FieldMap<E>;
  /** Restricts the candidates, e.g. "targets with tag 5" (a multi index key). */
  readonly within?: { readonly index: string; readonly key: string };
  /** Drops records that are not listed (e.g. soft-deleted ones). */
  readonly visible?: (e: E) => boolean;
}

/**
 * Runs a Management list query: candidates from the best index plan of `q` (or `within`), else a
 * bounded scan of the kind; then filter, sort and page in memory.
 */
export async function listEntities<E>(src: ListSource<E>, params: ListParams<E>, ctx: EvalContext): Promise<QueryResult<E>> {
  const ids = await candidateIds(src, params);
  const records: E[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = await src.store.getMany<E>(src.tenant, src.kind, ids.slice(i, i + BATCH));
    for (const r of batch) if (r !== undefined && (src.visible?.(r.value) ?? true)) records.push(r.value);
  }
  return queryEntities(records, params, src.fields, ctx);
}

async function candidateIds<E>(src: ListSource<E>, params: ListParams<E>): Promise<number[]> {
  const { store, tenant, kind } = src;
  const plan = params.filter ? indexPlans(params.filter)[0] : undefined;
  let ids: number[] | undefined;
  if (plan) {
    if (plan.unique) {
      ids = (await store.lookupMany(tenant, kind, plan.index, plan.keys)).filter((x): x is number => x !== undefined);
    } else {
      const seen = new Set<number>();
      for (const key of plan.keys) {
        const page = await store.members(tenant, kind, plan.index, key, { offset: 0, limit: SCAN_LIMIT });
        for (const id of page.ids) seen.add(id);
      }
      ids = [...seen];
    }
  }
  if (src.within) {
    const inside = await store.members(tenant, kind, src.within.index, src.within.key, { offset: 0, limit: SCAN_LIMIT });
    if (ids === undefined) return [...inside.ids];
    const allowed = new Set(inside.ids);
    return ids.filter((id) => allowed.has(id));
  }
  if (ids !== undefined) return ids;
  const all = await store.ids(tenant, kind, { offset: 0, limit: SCAN_LIMIT });
  return [...all.ids];
}
