import { z } from 'zod';
import { assignableSet } from '../../actors/distribution-sets.js';
import { ACTION_TYPES } from '../../domain/action.js';
import { touched } from '../../domain/audit.js';
import { AppError, badRequest } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import { DS, type DistributionSetRecord } from '../../domain/repository.js';
import { TARGET_FILTER, type TargetFilterRecord } from '../../domain/targeting.js';
import type { Request, Route } from '../../http/types.js';
import { keepNulls } from '../../http/serialize.js';
import { defineFields, num, parseFilter, text, timestamp } from '../../query/index.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../../query/targets.js';
import type { Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import { ACCESS, ASSIGN, READ_TARGET_AND_REPOSITORY } from '../kit/access.js';
import { LIMITS, bool, id, int, readBody, str } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { auditJson, link } from '../kit/hal.js';
import { evalContext } from '../kit/list.js';
import { jsonOf, namedRoutes } from '../kit/named.js';
import { targetFilterResponse } from './responses.js';
import { distributionSetResponse } from '../repository/responses.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { callerOf, pathId } from '../kit/request.js';
import { listPage } from '../kit/list.js';
import { pageOf } from '../kit/hal.js';
import { loadOr404, updateRecord } from '../kit/store.js';
import { renderDistributionSets, type RepositoryViewDeps } from '../repository/views.js';

export interface TargetFilterDeps extends KitDeps, RepositoryViewDeps {
  readonly quotas: Pick<Quotas, 'maxTargetsPerAutoAssignment'>;
}

type AutoType = NonNullable<TargetFilterRecord['autoAssignActionType']>;

const PATH = '/rest/v1/targetfilters';
const filterPath = (id: number): string => `${PATH}/${id}`;
/** hawkBit's TargetFilterQuery.QUERY_MAX_SIZE. */
const QUERY_MAX = 1024;

/** Every field is present, nulls included (reference §3.4; hawkBit's model is `Include.ALWAYS`). */
function filterJson(req: Request, f: TargetFilterRecord, full: boolean): object {
  return keepNulls({
    id: f.id,
    name: f.name,
    query: f.query,
    autoAssignDistributionSet: f.autoAssignDs,
    autoAssignActionType: f.autoAssignActionType,
    autoAssignWeight: f.autoAssignWeight,
    confirmationRequired: f.confirmationRequired,
    ...auditJson(f),
    _links: full
      ? { self: link(req, filterPath(f.id)), autoAssignDS: link(req, `${filterPath(f.id)}/autoAssignDS`) }
      : { self: link(req, filterPath(f.id)) },
  });
}

/** A filter with the auto-assigned distribution set it names (for `autoassigndistributionset.*`). */
interface FilterView {
  readonly f: TargetFilterRecord;
  readonly ds?: DistributionSetRecord | undefined;
}

/** TargetFilterQueryFields (reference §5). */
const fields = defineFields<FilterView, typeof TARGET_FILTER>({
  resource: 'targetfilter',
  id: (v) => v.f.id,
  fields: {
    id: num((v) => v.f.id),
    name: text((v) => v.f.name, { index: { name: 'name', unique: true } }),
    createdat: timestamp((v) => v.f.createdAt),
    createdby: text((v) => v.f.createdBy),
    lastmodifiedat: timestamp((v) => v.f.lastModifiedAt),
    lastmodifiedby: text((v) => v.f.lastModifiedBy),
    'autoassigndistributionset.name': text((v) => v.ds?.name ?? null, { join: 'ds' }),
    'autoassigndistributionset.version': text((v) => v.ds?.version ?? null, { join: 'ds' }),
  },
  aliases: { autoassigndistributionset: 'autoassigndistributionset.name' },
});

const filterName = str(z.string().min(1).max(LIMITS.name));
const filterQuery = str(z.string().min(1).max(QUERY_MAX));
const createBody = z.object({ name: filterName, query: filterQuery });
const updateBody = z.object({ name: filterName.nullish(), query: filterQuery.nullish() });
/** POST .../autoAssignDS: `type` is checked by hand for hawkBit's own error on `timeforced`. */
const autoAssignBody = z.object({
  id: id(), type: str().nullish(), weight: int(0, 1000).nullish(), confirmationRequired: bool().nullish(),
});

const NO_AUTO_ASSIGNMENT = {
  autoAssignDs: null, autoAssignActionType: null, autoAssignWeight: null, confirmationRequired: null, autoAssignInitiatedBy: null,
} as const;

/** `/rest/v1/targetfilters` and the auto-assignment fields. @see reference §3.4, spec 4.5 */
export function filterRoutes(deps: TargetFilterDeps): Route[] {
  const base = `${PATH}/:filterId`;
  const filterOf = async (req: Request): Promise<TargetFilterRecord> =>
    (await loadOr404(deps.store, callerOf(req).tenant, TARGET_FILTER, pathId(req, 'filterId', 'TargetFilterQuery'))).value;
  /** hawkBit refuses an auto-assignment whose filter matches more targets than the quota allows. */
  const checkQuota = async (tenant: Tenant, query: string): Promise<void> => {
    const max = deps.quotas.maxTargetsPerAutoAssignment;
    const q = { offset: 0, limit: 1, sort: DEFAULT_TARGET_SORT, filter: parseFilter(query, targetFields) };
    const { total } = await queryTargets(deps.store, tenant, q, await evalContext(deps, tenant));
    if (total > max) throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: the filter matches ${total} targets, an auto-assignment may cover at most ${max}`);
  };
  return [
    ...namedRoutes(deps, {
      kind: TARGET_FILTER,
      path: PATH,
      idParam: 'filterId',
      access: ACCESS.target,
      render: jsonOf(filterJson),
      schema: targetFilterResponse,
      list: {
        fields,
        representation: true,
        views: { join: (tenant, filters, joins) => joinFilterViews(deps, tenant)(filters, joins), record: (v) => v.f },
      },
      create: {
        item: createBody,
        single: true,
        build: async (_ctx, items) => items.map((item) => {
          parseFilter(item.query, targetFields);
          return (id, audit) => ({ id, name: item.name, query: item.query, ...NO_AUTO_ASSIGNMENT, ...audit });
        }),
      },
      update: {
        body: updateBody,
        apply: (_ctx, f, body) => {
          if (body.query != null) parseFilter(body.query, targetFields);
          return { ...f, name: body.name ?? f.name, query: body.query ?? f.query };
        },
      },
    }),
    {
      method: 'GET', path: `${base}/autoAssignDS`, auth: deps.mgmtAuth(READ_TARGET_AND_REPOSITORY),
      doc: { description: '204 when the filter auto-assigns none', response: distributionSetResponse },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const f = await filterOf(req);
        const ds = f.autoAssignDs === null ? undefined : await deps.store.get<DistributionSetRecord>(tenant, DS, f.autoAssignDs);
        if (ds === undefined) return { status: 204 };
        return { status: 200, json: (await renderDistributionSets(deps, tenant, req, [ds.value]))[0] };
      },
    },
    {
      method: 'POST', path: `${base}/autoAssignDS`, auth: deps.mgmtAuth(ASSIGN), doc: { body: autoAssignBody, response: targetFilterResponse },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const body = readBody(req, autoAssignBody);
        const type = autoAssignType(body.type);
        const current = await filterOf(req);
        await assignableSet(deps.store, tenant, body.id);
        await checkQuota(tenant, current.query);
        const cfg = await deps.tenantConfig.view(tenant);
        const f = await updateRecord(deps.store, tenant, TARGET_FILTER, current.id, (f) => touched({
          ...f,
          autoAssignDs: body.id,
          autoAssignActionType: type,
          autoAssignWeight: body.weight ?? null,
          confirmationRequired: body.confirmationRequired ?? cfg.bool('user.confirmation.flow.enabled'),
          autoAssignInitiatedBy: username,
        }, username, deps.now()));
        return { status: 200, json: filterJson(req, f, true) };
      },
    },
    {
      // the filters auto-assigning a set, as a paged list of target filters (reference §3.9; deprecated since 1.1.1)
      method: 'GET', path: '/rest/v1/distributionsets/:distributionSetId/autoAssignTargetFilters', auth: deps.mgmtAuth(READ_TARGET_AND_REPOSITORY),
      doc: { list: true, response: pageSchema(targetFilterResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const ds = await loadOr404(deps.store, tenant, DS, pathId(req, 'distributionSetId', 'DistributionSet'));
        const page = await listPage(deps, tenant, req, {
          kind: TARGET_FILTER, fields, within: { index: 'autoAssignDs', key: String(ds.id) }, join: joinFilterViews(deps, tenant),
        });
        return { status: 200, json: pageOf(page.content.map((v) => filterJson(req, v.f, false)), page.total) };
      },
    },
    {
      method: 'DELETE', path: `${base}/autoAssignDS`, auth: deps.mgmtAuth(ACCESS.target.update), doc: { response: { status: 204 } },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const id = pathId(req, 'filterId', 'TargetFilterQuery');
        await updateRecord(deps.store, tenant, TARGET_FILTER, id, (f) => touched({ ...f, ...NO_AUTO_ASSIGNMENT }, username, deps.now()));
        return { status: 204 };
      },
    },
  ];
}

/** Filters with the sets they auto-assign, loaded only when the query names `autoassigndistributionset.*`. */
function joinFilterViews(deps: Pick<KitDeps, 'store'>, tenant: Tenant) {
  return async (filters: readonly TargetFilterRecord[], joins: ReadonlySet<string>): Promise<FilterView[]> => {
    const sets = joins.has('ds') ? await loadMap<DistributionSetRecord>(deps.store, tenant, DS, filters.map((f) => f.autoAssignDs)) : undefined;
    return filters.map((f) => ({ f, ds: f.autoAssignDs === null ? undefined : sets?.get(f.autoAssignDs) }));
  };
}

/** forced (default), soft or downloadonly; timeforced has its own hawkBit error. */
function autoAssignType(raw: string | null | undefined): AutoType {
  if (raw == null) return 'forced';
  const type = raw.toLowerCase();
  if (type === 'timeforced') throw new AppError('AUTO_ASSIGN_ACTION_TYPE_INVALID', 'body.type: timeforced is not allowed for auto-assignments; use forced, soft or downloadonly');
  if (!(ACTION_TYPES as readonly string[]).includes(type)) throw badRequest(`body.type: must be one of "forced", "soft", "downloadonly", got ${JSON.stringify(raw.slice(0, 40))}`);
  return type as AutoType;
}
