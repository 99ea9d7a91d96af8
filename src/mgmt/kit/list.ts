import type { Request } from '../../http/types.js';
import {
  listRecords, parseListParams, type EvalContext, type FieldMap, type ListParams, type ListSpec, type QueryResult, type SortSpec,
} from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import type { KitDeps, PageLimits } from './deps.js';

/**
 * Management lists: the one parser of `offset`, `limit`, `sort` and `q`, and a page of any kind
 * through the list engine (src/query/list.ts), which plans `q` with the store's indexes.
 * @see reference §3.0
 */
export const BY_ID: readonly SortSpec[] = [{ field: 'id', dir: 'ASC' }];

/** `offset`, `limit`, `sort` and `q` of a request, checked against the resource's fields. */
export function listParams<V>(
  limits: PageLimits, query: URLSearchParams, fields: FieldMap<V>, defaultSort: readonly SortSpec[] = BY_ID,
): ListParams<V> {
  return parseListParams(query, {
    defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize, sortFields: fields, filterFields: fields, defaultSort,
  });
}

/** `${NOW_TS}` and `${OVERDUE_TS}` (now - pollingTime - pollingOverdueTime) for queries. */
export async function evalContext(deps: Pick<KitDeps, 'now' | 'tenantConfig'>, tenant: Tenant): Promise<EvalContext> {
  const cfg = await deps.tenantConfig.view(tenant);
  const now = deps.now();
  return { now, overdueTs: now - cfg.durationMs('pollingTime') - cfg.durationMs('pollingOverdueTime') };
}

export interface PageSpec<R, V> extends ListSpec<R, V> {
  /** When `sort` is absent (targets: controllerid:ASC; actions: id:DESC; others: id:ASC). */
  readonly defaultSort?: readonly SortSpec[];
}

/** One page of a kind for a Management list request: views of the records, and the count of all matches. */
export async function listPage<R, V>(deps: KitDeps, tenant: Tenant, req: Request, spec: PageSpec<R, V>): Promise<QueryResult<V>> {
  const params = listParams(deps.limits, req.query, spec.fields, spec.defaultSort);
  return listRecords({ store: deps.store, tenant }, spec, params, await evalContext(deps, tenant));
}
