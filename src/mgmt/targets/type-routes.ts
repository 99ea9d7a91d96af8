import { z } from 'zod';
import { AppError, notFound } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import { DS_TYPE, type DistributionSetTypeRecord } from '../../domain/repository.js';
import { TARGET } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import type { Request, Route } from '../../http/types.js';
import { auditFields, defineFields, num, text } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { colour, description, idRefs, name, readBody, typeKey } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { auditJson, link } from '../kit/hal.js';
import { jsonOf, lookUpdate, namedRoutes } from '../kit/named.js';
import { targetTypeResponse } from './responses.js';
import { distributionSetTypeResponse } from '../repository/responses.js';
import { callerOf, pathId } from '../kit/request.js';
import { deleteRecord, loadLiveOr404, loadOr404, updateRecord } from '../kit/store.js';
import { dsTypeJson } from '../repository/json.js';

export interface TargetTypeDeps extends KitDeps {
  readonly quotas: Pick<Quotas, 'maxDistributionSetTypesPerTargetType'>;
}

const PATH = '/rest/v1/targettypes';
const typePath = (id: number): string => `${PATH}/${id}`;

function targetTypeJson(req: Request, t: TargetTypeRecord, full: boolean): object {
  const out: Record<string, unknown> = { id: t.id };
  if (t.key !== null) out['key'] = t.key;
  out['name'] = t.name;
  if (t.description !== null) out['description'] = t.description;
  if (t.colour !== null) out['colour'] = t.colour;
  out['deleted'] = t.deleted;
  Object.assign(out, auditJson(t));
  out['_links'] = full
    ? { self: link(req, typePath(t.id)), compatibledistributionsettypes: link(req, `${typePath(t.id)}/compatibledistributionsettypes`) }
    : { self: link(req, typePath(t.id)) };
  return out;
}

/** TargetTypeFields (reference §5). */
const fields = defineFields<TargetTypeRecord, typeof TARGET_TYPE>({
  resource: 'targettype',
  id: (t) => t.id,
  fields: {
    id: num((t) => t.id),
    key: text((t) => t.key, { index: { name: 'key', unique: true } }),
    name: text((t) => t.name, { index: { name: 'name', unique: true } }),
    description: text((t) => t.description),
    ...auditFields<TargetTypeRecord>(),
  },
});

const createItem = z.object({ name, key: typeKey.nullish(), description, colour, compatibledistributionsettypes: idRefs.nullish() });

/** `/rest/v1/targettypes` with the compatible distribution set types. @see reference §3.3 */
export function targetTypeRoutes(deps: TargetTypeDeps): Route[] {
  const base = `${PATH}/:targetTypeId`;
  const typeOf = async (req: Request): Promise<TargetTypeRecord> =>
    (await loadLiveOr404(deps.store, callerOf(req).tenant, TARGET_TYPE, pathId(req, 'targetTypeId', 'TargetType'))).value;
  /** 404 naming the first unknown or deleted DS type. */
  const dsTypes = async (tenant: Tenant, ids: readonly number[]): Promise<void> => {
    const found = await loadMap<DistributionSetTypeRecord>(deps.store, tenant, DS_TYPE, ids);
    const missing = ids.find((id) => found.get(id)?.deleted !== false);
    if (missing !== undefined) throw notFound('DistributionSetType', missing);
  };
  const quota = (count: number, id: number | string): void => {
    const max = deps.quotas.maxDistributionSetTypesPerTargetType;
    if (count > max) {
      throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: target type ${id} would have ${count} compatible distribution set types, at most ${max} are allowed`);
    }
  };
  const setCompatible = async (req: Request, change: (current: readonly number[]) => readonly number[]): Promise<void> => {
    const { tenant, username } = callerOf(req);
    const current = await typeOf(req);
    const now = deps.now();
    await updateRecord(deps.store, tenant, TARGET_TYPE, current.id, (t) => {
      const next = change(t.compatibleDsTypes);
      quota(next.length, t.id);
      return next.length === t.compatibleDsTypes.length && next.every((x, i) => x === t.compatibleDsTypes[i])
        ? t : { ...t, compatibleDsTypes: next, lastModifiedBy: username, lastModifiedAt: now };
    });
  };
  return [
    ...namedRoutes(deps, {
      kind: TARGET_TYPE,
      path: PATH,
      idParam: 'targetTypeId',
      access: ACCESS.targetType,
      render: jsonOf(targetTypeJson),
      schema: targetTypeResponse,
      list: { fields, visible: (t) => !t.deleted },
      create: {
        item: createItem,
        unique: ['name', 'key'],
        build: async (ctx, items) => {
          const compatible = items.map((i) => [...new Set((i.compatibledistributionsettypes ?? []).map((r) => r.id))]);
          compatible.forEach((ids, i) => quota(ids.length, `body[${i}]`));
          await dsTypes(ctx.tenant, compatible.flat());
          return items.map((item, i) => (id, audit) => ({
            id, key: item.key ?? null, name: item.name, description: item.description ?? null, colour: item.colour ?? null,
            compatibleDsTypes: compatible[i] ?? [], deleted: false, ...audit,
          }));
        },
      },
      update: lookUpdate(true),
      remove: async (ctx, t) => {
        const users = await deps.store.count(ctx.tenant, TARGET, 'targetType', String(t.id));
        if (users > 0) throw new AppError('TARGET_TYPE_IN_USE', `Target type ${t.id} is still used by ${users} target(s)`);
        await deleteRecord(deps.store, ctx.tenant, TARGET_TYPE, t.id);
      },
    }),
    {
      method: 'GET', path: `${base}/compatibledistributionsettypes`, auth: deps.mgmtAuth(ACCESS.targetType.read),
      doc: { response: z.array(distributionSetTypeResponse) },
      handler: async (req) => {
        const t = await typeOf(req);
        const found = await loadMap<DistributionSetTypeRecord>(deps.store, callerOf(req).tenant, DS_TYPE, t.compatibleDsTypes);
        return {
          status: 200,
          json: t.compatibleDsTypes.flatMap((id) => {
            const d = found.get(id);
            return d === undefined ? [] : [dsTypeJson(req, d)];
          }),
        };
      },
    },
    {
      method: 'POST', path: `${base}/compatibledistributionsettypes`, auth: deps.mgmtAuth(ACCESS.targetType.update),
      doc: { body: idRefs, response: { status: 204 } },
      handler: async (req) => {
        const ids = [...new Set(readBody(req, idRefs).map((r) => r.id))];
        await typeOf(req);
        await dsTypes(callerOf(req).tenant, ids);
        await setCompatible(req, (current) => [...new Set([...current, ...ids])]);
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${base}/compatibledistributionsettypes/:distributionSetTypeId`, auth: deps.mgmtAuth(ACCESS.targetType.update),
      doc: { response: { status: 204 } },
      handler: async (req) => {
        await typeOf(req);
        const dsTypeId = pathId(req, 'distributionSetTypeId', 'DistributionSetType');
        await loadOr404(deps.store, callerOf(req).tenant, DS_TYPE, dsTypeId);
        await setCompatible(req, (current) => current.filter((x) => x !== dsTypeId));
        return { status: 204 };
      },
    },
  ];
}
