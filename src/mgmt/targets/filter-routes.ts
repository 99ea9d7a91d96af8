import type { Services } from '../../app/services.js';
import { ACTION_TYPES } from '../../domain/action.js';
import { created } from '../../domain/audit.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { DS, type DistributionSetRecord } from '../../domain/repository.js';
import { TARGET_FILTER, type TargetFilterRecord } from '../../domain/targeting.js';
import { readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { parseFilter, parseListParams, queryEntities } from '../../query/index.js';
import { createRecords, deleteRecord, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { renderDistributionSets } from '../repository/views.js';
import { ACCESS } from './access.js';
import { assignableSet } from '../../actors/distribution-sets.js';
import { autoAssignBody, filterCreateBody, filterFields, filterJson, filterUpdateBody, type FilterView } from './filter-json.js';
import { DEFAULT_TARGET_SORT, targetFields } from './target-fields.js';
import { loadMap, queryTargets } from './target-query.js';
import { idParam, principalOf } from './request.js';
import { evalContext } from './views.js';

const LABEL = 'TargetFilterQuery';
type AutoType = NonNullable<TargetFilterRecord['autoAssignActionType']>;

/** `/rest/v1/targetfilters` and the auto-assignment fields. @see reference §3.4, spec 4.5 */
export function filterRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  const base = '/rest/v1/targetfilters/:filterId';
  const filterOf = async (req: Request): Promise<TargetFilterRecord> =>
    (await loadOr404<TargetFilterRecord>(store(), principalOf(req).tenant, TARGET_FILTER, idParam(req, 'filterId', LABEL), LABEL)).value;
  return [
    {
      method: 'GET', path: '/rest/v1/targetfilters', auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const { limits } = services.ctx.config;
        const params = parseListParams(req.query, {
          defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize, sortFields: filterFields, filterFields,
          defaultSort: [{ field: 'id', dir: 'ASC' }],
        });
        // filters are few: read them all and join the auto-assigned sets
        const ids = (await store().ids(tenant, TARGET_FILTER, { offset: 0, limit: SCAN_LIMIT })).ids;
        const filters = (await store().getMany<TargetFilterRecord>(tenant, TARGET_FILTER, ids)).flatMap((r) => (r === undefined ? [] : [r.value]));
        const sets = await loadMap<DistributionSetRecord>(store(), tenant, DS, filters.map((f) => f.autoAssignDs));
        const views: FilterView[] = filters.map((f) => ({ f, ds: f.autoAssignDs === null ? undefined : sets.get(f.autoAssignDs) }));
        const now = services.now();
        const page = queryEntities(views, params, filterFields, { now, overdueTs: now });
        const full = req.query.get('representation')?.toLowerCase() === 'full';
        return { status: 200, json: pageOf(page.content.map((v) => filterJson(req, v.f, full)), page.total) };
      },
    },
    {
      method: 'POST', path: '/rest/v1/targetfilters', auth: services.mgmtAuth(ACCESS.createTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, filterCreateBody);
        parseFilter(body.query, targetFields);
        const audit = created(username, services.now());
        const [f] = await createRecords<TargetFilterRecord>(store(), tenant, TARGET_FILTER, LABEL, (id) => ({
          id, name: body.name, query: body.query, autoAssignDs: null, autoAssignActionType: null, autoAssignWeight: null,
          confirmationRequired: null, autoAssignInitiatedBy: null, ...audit,
        }), 1);
        return { status: 201, json: filterJson(req, f as TargetFilterRecord, true) };
      },
    },
    {
      method: 'GET', path: base, auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => ({ status: 200, json: filterJson(req, await filterOf(req), true) }),
    },
    {
      method: 'PUT', path: base, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, filterUpdateBody);
        if (body.query != null) parseFilter(body.query, targetFields);
        const now = services.now();
        const f = await updateRecord<TargetFilterRecord>(store(), tenant, TARGET_FILTER, idParam(req, 'filterId', LABEL), LABEL, (f) => ({
          ...f, name: body.name ?? f.name, query: body.query ?? f.query, lastModifiedBy: username, lastModifiedAt: now,
        }));
        return { status: 200, json: filterJson(req, f, true) };
      },
    },
    {
      method: 'DELETE', path: base, auth: services.mgmtAuth(ACCESS.deleteTarget),
      handler: async (req) => {
        await deleteRecord(store(), principalOf(req).tenant, TARGET_FILTER, idParam(req, 'filterId', LABEL), LABEL);
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: `${base}/autoAssignDS`, auth: services.mgmtAuth(ACCESS.readTargetAndRepository),
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const f = await filterOf(req);
        const ds = f.autoAssignDs === null ? undefined : await store().get<DistributionSetRecord>(tenant, DS, f.autoAssignDs);
        if (ds === undefined) return { status: 204 };
        return { status: 200, json: (await renderDistributionSets(services, tenant, req, [ds.value]))[0] };
      },
    },
    {
      method: 'POST', path: `${base}/autoAssignDS`, auth: services.mgmtAuth(ACCESS.assignAutoDs),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, autoAssignBody);
        const type = autoAssignType(body.type);
        const current = await filterOf(req);
        await assignableSet(store(), tenant, body.id);
        await checkAutoAssignQuota(services, tenant, current.query);
        const cfg = await services.tenantConfig.view(tenant);
        const now = services.now();
        const f = await updateRecord<TargetFilterRecord>(store(), tenant, TARGET_FILTER, current.id, LABEL, (f) => ({
          ...f,
          autoAssignDs: body.id,
          autoAssignActionType: type,
          autoAssignWeight: body.weight ?? null,
          confirmationRequired: body.confirmationRequired ?? cfg.bool('user.confirmation.flow.enabled'),
          autoAssignInitiatedBy: username,
          lastModifiedBy: username,
          lastModifiedAt: now,
        }));
        return { status: 200, json: filterJson(req, f, true) };
      },
    },
    {
      method: 'DELETE', path: `${base}/autoAssignDS`, auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const now = services.now();
        await updateRecord<TargetFilterRecord>(store(), tenant, TARGET_FILTER, idParam(req, 'filterId', LABEL), LABEL, (f) => ({
          ...f, autoAssignDs: null, autoAssignActionType: null, autoAssignWeight: null, confirmationRequired: null,
          autoAssignInitiatedBy: null, lastModifiedBy: username, lastModifiedAt: now,
        }));
        return { status: 204 };
      },
    },
  ];
}

/** forced (default), soft or downloadonly; timeforced has its own hawkBit error. */
function autoAssignType(raw: string | null | undefined): AutoType {
  if (raw == null) return 'forced';
  const type = raw.toLowerCase();
  if (type === 'timeforced') throw new AppError('AUTO_ASSIGN_ACTION_TYPE_INVALID', 'body.type: timeforced is not allowed for auto-assignments; use forced, soft or downloadonly');
  if (!(ACTION_TYPES as readonly string[]).includes(type)) throw badRequest(`body.type: must be one of "forced", "soft", "downloadonly", got ${JSON.stringify(raw.slice(0, 40))}`);
  return type as AutoType;
}

/** hawkBit refuses an auto-assignment whose filter matches more targets than the quota allows. */
async function checkAutoAssignQuota(services: Services, tenant: string, query: string): Promise<void> {
  const max = services.quotas.maxTargetsPerAutoAssignment;
  const filter = parseFilter(query, targetFields);
  const { total } = await queryTargets(services.ctx.store, tenant, { offset: 0, limit: 1, sort: DEFAULT_TARGET_SORT, filter }, await evalContext(services, tenant));
  if (total > max) throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: the filter matches ${total} targets, an auto-assignment may cover at most ${max}`);
}
