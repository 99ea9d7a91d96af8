import type { Services } from '../../app/services.js';
import { created } from '../../domain/audit.js';
import { AppError, notFound } from '../../domain/errors.js';
import { DS_TYPE, type DistributionSetTypeRecord } from '../../domain/repository.js';
import { TARGET } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { parseListParams } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { createRecords, deleteRecord, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { listEntities } from '../kit/listing.js';
import { ACCESS } from './access.js';
import { loadMap } from './target-query.js';
import { loadTargetType } from './target-store.js';
import { idParam, principalOf } from './request.js';
import { dsTypeJson } from '../repository/json.js';
import { idRefList, targetTypeFields, targetTypeJson, typeCreateItem, typeUpdateBody } from './type-json.js';

const LABEL = 'TargetType';

/** `/rest/v1/targettypes` with the compatible distribution set types. @see reference §3.3 */
export function typeRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  const base = '/rest/v1/targettypes/:targetTypeId';
  const typeOf = async (req: Request): Promise<TargetTypeRecord> =>
    (await loadTargetType(store(), principalOf(req).tenant, idParam(req, 'targetTypeId', LABEL))).value;
  /** Live DS types by id, or 404 naming the first unknown one. */
  const dsTypes = async (tenant: Tenant, ids: readonly number[]): Promise<void> => {
    const found = await loadMap<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, ids);
    const missing = ids.find((id) => found.get(id) === undefined || found.get(id)?.deleted === true);
    if (missing !== undefined) throw notFound('DistributionSetType', missing);
  };
  const quota = (count: number, id: number | string): void => {
    const max = services.quotas.maxDistributionSetTypesPerTargetType;
    if (count > max) throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: target type ${id} would have ${count} compatible distribution set types, at most ${max} are allowed`);
  };
  return [
    {
      method: 'GET', path: '/rest/v1/targettypes', auth: services.mgmtAuth(ACCESS.readType),
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const { limits } = services.ctx.config;
        const params = parseListParams(req.query, {
          defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize, sortFields: targetTypeFields, filterFields: targetTypeFields,
          defaultSort: [{ field: 'id', dir: 'ASC' }],
        });
        const now = services.now();
        const page = await listEntities({ store: store(), tenant, kind: TARGET_TYPE, fields: targetTypeFields, visible: (t) => !t.deleted }, params, { now, overdueTs: now });
        return { status: 200, json: pageOf(page.content.map((t) => targetTypeJson(req, t, false)), page.total) };
      },
    },
    {
      method: 'POST', path: '/rest/v1/targettypes', auth: services.mgmtAuth(ACCESS.createType),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const items = readJson(req, acceptSingleAsArray(typeCreateItem));
        for (const [field, pick] of [['name', (i: (typeof items)[number]) => i.name], ['key', (i: (typeof items)[number]) => i.key]] as const) {
          const values = items.map(pick).filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase());
          const twice = values.find((v, i) => values.indexOf(v) !== i);
          if (twice !== undefined) throw new AppError('ALREADY_EXISTS', `TargetType with ${field} {${twice}} is given twice in the request`);
        }
        const compatible = items.map((i) => [...new Set((i.compatibledistributionsettypes ?? []).map((r) => r.id))]);
        compatible.forEach((ids, i) => quota(ids.length, `body[${i}]`));
        await dsTypes(tenant, compatible.flat());
        const audit = created(username, services.now());
        const types = await createRecords<TargetTypeRecord>(store(), tenant, TARGET_TYPE, LABEL, (id, i) => {
          const item = items[i] as (typeof items)[number];
          return {
            id, key: item.key ?? null, name: item.name, description: item.description ?? null, colour: item.colour ?? null,
            compatibleDsTypes: compatible[i] ?? [], deleted: false, ...audit,
          };
        }, items.length);
        return { status: 201, json: types.map((t) => targetTypeJson(req, t, false)) };
      },
    },
    {
      method: 'GET', path: base, auth: services.mgmtAuth(ACCESS.readType),
      handler: async (req) => ({ status: 200, json: targetTypeJson(req, await typeOf(req), true) }),
    },
    {
      method: 'PUT', path: base, auth: services.mgmtAuth(ACCESS.updateType),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, typeUpdateBody);
        const current = await typeOf(req);
        const now = services.now();
        const t = await updateRecord<TargetTypeRecord>(store(), tenant, TARGET_TYPE, current.id, LABEL, (t) => ({
          ...t, name: body.name ?? t.name, description: body.description ?? t.description, colour: body.colour ?? t.colour,
          lastModifiedBy: username, lastModifiedAt: now,
        }));
        return { status: 200, json: targetTypeJson(req, t, true) };
      },
    },
    {
      method: 'DELETE', path: base, auth: services.mgmtAuth(ACCESS.deleteType),
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const t = await typeOf(req);
        const users = await store().count(tenant, TARGET, 'targetType', String(t.id));
        if (users > 0) throw new AppError('TARGET_TYPE_IN_USE', `Target type ${t.id} is still used by ${users} target(s)`);
        await deleteRecord(store(), tenant, TARGET_TYPE, t.id, LABEL);
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: `${base}/compatibledistributionsettypes`, auth: services.mgmtAuth(ACCESS.readType),
      handler: async (req) => {
        const t = await typeOf(req);
        const found = await loadMap<DistributionSetTypeRecord>(store(), principalOf(req).tenant, DS_TYPE, t.compatibleDsTypes);
        return { status: 200, json: t.compatibleDsTypes.flatMap((id) => { const d = found.get(id); return d === undefined ? [] : [dsTypeJson(req, d)]; }) };
      },
    },
    {
      method: 'POST', path: `${base}/compatibledistributionsettypes`, auth: services.mgmtAuth(ACCESS.updateType),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const ids = [...new Set(readJson(req, idRefList).map((r) => r.id))];
        const current = await typeOf(req);
        await dsTypes(tenant, ids);
        const now = services.now();
        await updateRecord<TargetTypeRecord>(store(), tenant, TARGET_TYPE, current.id, LABEL, (t) => {
          const next = [...new Set([...t.compatibleDsTypes, ...ids])];
          quota(next.length, t.id);
          return { ...t, compatibleDsTypes: next, lastModifiedBy: username, lastModifiedAt: now };
        });
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${base}/compatibledistributionsettypes/:distributionSetTypeId`, auth: services.mgmtAuth(ACCESS.updateType),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const current = await typeOf(req);
        const dsTypeId = idParam(req, 'distributionSetTypeId', 'DistributionSetType');
        if ((await store().get(tenant, DS_TYPE, dsTypeId)) === undefined) throw notFound('DistributionSetType', dsTypeId);
        if (current.compatibleDsTypes.includes(dsTypeId)) {
          const now = services.now();
          await updateRecord<TargetTypeRecord>(store(), tenant, TARGET_TYPE, current.id, LABEL, (t) => ({
            ...t, compatibleDsTypes: t.compatibleDsTypes.filter((x) => x !== dsTypeId), lastModifiedBy: username, lastModifiedAt: now,
          }));
        }
        return { status: 204 };
      },
    },
  ];
}
