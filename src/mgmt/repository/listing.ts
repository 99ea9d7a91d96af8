import type { Services } from '../../app/services.js';
import type { Request } from '../../http/types.js';
import { parseListParams, queryEntities, type FieldMap, type ListParams, type SortSpec } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { loadById } from './joins.js';

/**
 * Paged lists of repository resources whose query fields reach into other records (a set's type key,
 * its modules and tags): the candidates (all records of the kind, or those under one index key) are
 * read in batches, joined into views, then filtered, sorted and paged in memory.
 * @see reference §3.0
 */
export interface ListSpec<R, V> {
  readonly kind: string;
  readonly fields: FieldMap<V>;
  readonly join: (records: readonly R[], params: ListParams<V>) => Promise<V[]>;
  /** Drops records that are not listed (soft-deleted ones, by `soft_deleted_mode`). */
  readonly visible?: (record: R) => boolean;
  /** Restricts the candidates to the ids under one multi-index key. */
  readonly within?: { readonly index: string; readonly key: string };
  /** Restricts the candidates to these ids, in this order before sorting. */
  readonly ids?: readonly number[];
  readonly defaultSort?: readonly SortSpec[];
}

export const BY_ID: readonly SortSpec[] = [{ field: 'id', dir: 'ASC' }];

export function listParams<V>(services: Services, req: Request, fields: FieldMap<V>, defaultSort: readonly SortSpec[] = BY_ID): ListParams<V> {
  const { limits } = services.ctx.config;
  return parseListParams(req.query, {
    defaultLimit: limits.defaultPageSize,
    maxLimit: limits.maxPageSize,
    sortFields: fields,
    defaultSort,
    filterFields: fields,
  });
}

export async function listViews<R, V>(services: Services, tenant: Tenant, req: Request, spec: ListSpec<R, V>): Promise<{ content: V[]; total: number }> {
  const params = listParams(services, req, spec.fields, spec.defaultSort);
  const store = services.ctx.store;
  let ids: readonly number[];
  if (spec.ids !== undefined) ids = spec.ids;
  else if (spec.within !== undefined) ids = (await store.members(tenant, spec.kind, spec.within.index, spec.within.key, { offset: 0, limit: SCAN_LIMIT })).ids;
  else ids = (await store.ids(tenant, spec.kind, { offset: 0, limit: SCAN_LIMIT })).ids;
  const byId = await loadById<R>(store, tenant, spec.kind, ids);
  const records: R[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r !== undefined && (spec.visible?.(r) ?? true)) records.push(r);
  }
  const views = await spec.join(records, params);
  const now = services.now();
  return queryEntities(views, params, spec.fields, { now, overdueTs: now });
}
