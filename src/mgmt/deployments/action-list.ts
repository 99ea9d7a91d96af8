import type { Services } from '../../app/services.js';
import { ACTION, type ActionRecord } from '../../domain/action.js';
import type { Request } from '../../http/types.js';
import { indexPlans, parseListParams, queryEntities, type ListParams } from '../../query/index.js';
import type { Stored } from '../../store/port.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { actionFields, needsJoin, type ActionView } from './action-fields.js';
import { loadJoins } from './joins.js';

const BATCH = 1000;

export interface ActionPage {
  readonly content: ActionRecord[];
  readonly total: number;
}

/**
 * The action list query (`GET /rest/v1/actions`, `GET /rest/v1/targets/{id}/actions`): list params
 * with the action field map, default sort id:DESC (reference §3.0). Without `q` and sorted by id
 * alone it pages the store's id order directly; otherwise candidates come from an index plan (or
 * `within`), are joined with their targets and sets only when a field asks for them, then filtered,
 * sorted and paged in memory.
 */
export async function listActions(
  services: Services, tenant: string, req: Request, within?: { readonly index: string; readonly key: string },
): Promise<ActionPage> {
  const { limits } = services.ctx.config;
  const params = parseListParams<ActionView>(req.query, {
    defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize,
    sortFields: actionFields, defaultSort: [{ field: 'id', dir: 'DESC' }], filterFields: actionFields,
  });
  const store = services.ctx.store;
  const only = params.sort[0];
  if (params.filter === undefined && params.sort.length === 1 && only !== undefined && only.field === 'id') {
    const page = { offset: params.offset, limit: params.limit, desc: only.dir === 'DESC' };
    const ids = within ? await store.members(tenant, ACTION, within.index, within.key, page) : await store.ids(tenant, ACTION, page);
    const found = await store.getMany<ActionRecord>(tenant, ACTION, ids.ids);
    return { content: found.filter((f): f is Stored<ActionRecord> => f !== undefined).map((f) => f.value), total: ids.total };
  }
  const actions = await loadCandidates(services, tenant, params, within);
  const join = needsJoin([params.q, ...params.sort.map((s) => s.field)]);
  const joins = join ? await loadJoins(store, tenant, actions, { targets: true, sets: true, rollouts: true }) : undefined;
  const views: ActionView[] = actions.map((a) => (joins === undefined ? { a } : {
    a, target: joins.target(a.targetId), ds: joins.ds(a.ds), dsTypeKey: joins.dsTypeKey(a.ds),
    rolloutName: a.rollout === null ? undefined : joins.rolloutName(a.rollout),
    groupName: a.rolloutGroup === null ? undefined : joins.groupName(a.rolloutGroup),
  }));
  const view = await services.tenantConfig.view(tenant);
  const now = services.now();
  const overdueTs = now - view.durationMs('pollingTime') - view.durationMs('pollingOverdueTime');
  const result = queryEntities(views, params, actionFields, { now, overdueTs });
  return { content: result.content.map((v) => v.a), total: result.total };
}

async function loadCandidates(
  services: Services, tenant: string, params: ListParams<ActionView>, within?: { readonly index: string; readonly key: string },
): Promise<ActionRecord[]> {
  const store = services.ctx.store;
  const plan = params.filter ? indexPlans(params.filter)[0] : undefined;
  let ids: number[] | undefined;
  if (plan !== undefined) {
    const seen = new Set<number>();
    for (const key of plan.keys) {
      const page = await store.members(tenant, ACTION, plan.index, key, { offset: 0, limit: SCAN_LIMIT });
      for (const id of page.ids) seen.add(id);
    }
    ids = [...seen];
  }
  if (within !== undefined) {
    const inside = await store.members(tenant, ACTION, within.index, within.key, { offset: 0, limit: SCAN_LIMIT });
    if (ids === undefined) ids = [...inside.ids];
    else {
      const allowed = new Set(inside.ids);
      ids = ids.filter((id) => allowed.has(id));
    }
  }
  ids ??= [...(await store.ids(tenant, ACTION, { offset: 0, limit: SCAN_LIMIT })).ids];
  const out: ActionRecord[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    for (const r of await store.getMany<ActionRecord>(tenant, ACTION, ids.slice(i, i + BATCH))) if (r !== undefined) out.push(r.value);
  }
  return out;
}
