import type { Services } from '../../app/services.js';
import { MACHINE_VERSION_FIELD } from '../../actors/definition.js';
import { created } from '../../domain/audit.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import { readJson } from '../../http/json.js';
import type { Route } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { updateRecord } from '../kit/entities.js';
import { ACCESS } from './access.js';
import { checkAddress, createTargetsBody, generateSecurityToken, updateTargetBody, type CreateTargetItem } from './target-body.js';
import { loadMap } from './target-query.js';
import { deleteTarget, loadTarget, loadTargetType } from './target-store.js';
import { principalOf, textParam } from './request.js';
import { listTargets, renderTargets } from './views.js';

/** `/rest/v1/targets` and `/rest/v1/targets/{controllerId}`. @see reference §3.1, spec 4.4 */
export function targetRoutes(services: Services): Route[] {
  const store = () => services.ctx.store;
  return [
    {
      method: 'GET', path: '/rest/v1/targets', auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => ({ status: 200, json: await listTargets(services, principalOf(req).tenant, req, {}) }),
    },
    {
      method: 'POST', path: '/rest/v1/targets', auth: services.mgmtAuth(ACCESS.createTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const items = readJson(req, createTargetsBody);
        const records = await createTargets(services, tenant, items, username);
        return { status: 201, json: await renderTargets(services, tenant, req, records) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/targets/:targetId', auth: services.mgmtAuth(ACCESS.readTarget),
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const target = await loadTarget(store(), tenant, textParam(req, 'targetId'));
        return { status: 200, json: (await renderTargets(services, tenant, req, [target.value], { full: true }))[0] };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/targets/:targetId', auth: services.mgmtAuth(ACCESS.updateTarget),
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, updateTargetBody);
        if (body.requestAttributes === false) throw badRequest('body.requestAttributes: only true is accepted (asks the device to send its attributes again)');
        checkAddress(body.address, 'body.address');
        if (body.targetType === 0) throw badRequest('body.targetType: must be a target type id, or -1 to remove the type');
        if (body.targetType != null && body.targetType !== -1) await loadTargetType(store(), tenant, body.targetType);
        const target = await loadTarget(store(), tenant, textParam(req, 'targetId'));
        const now = services.now();
        const updated = await updateRecord<TargetRecord>(store(), tenant, TARGET, target.id, 'Target', (t) => ({
          ...t,
          name: body.name ?? t.name,
          description: body.description ?? t.description,
          address: body.address === '' ? null : (body.address ?? t.address),
          securityToken: body.securityToken ?? t.securityToken,
          requestAttributes: body.requestAttributes === true ? true : t.requestAttributes,
          targetType: body.targetType == null ? t.targetType : body.targetType === -1 ? null : body.targetType,
          group: body.group ?? t.group,
          lastModifiedBy: username,
          lastModifiedAt: now,
        }));
        return { status: 200, json: (await renderTargets(services, tenant, req, [updated], { full: true }))[0] };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/targets/:targetId', auth: services.mgmtAuth(ACCESS.deleteTarget),
      handler: async (req) => {
        await deleteTarget(store(), principalOf(req).tenant, textParam(req, 'targetId'));
        return { status: 204 };
      },
    },
  ];
}

/**
 * Creates targets atomically (all or none) as target actors in state `unknown`. A controller id
 * taken already, or given twice, is a 409 naming it; the unique index catches concurrent creates.
 */
export async function createTargets(services: Services, tenant: Tenant, items: readonly CreateTargetItem[], by: string): Promise<TargetRecord[]> {
  const store = services.ctx.store;
  items.forEach((item, i) => checkAddress(item.address, `body[${i}].address`));
  const lower = items.map((i) => i.controllerId.toLowerCase());
  const twice = lower.findIndex((c, i) => lower.indexOf(c) !== i);
  if (twice !== -1) throw new AppError('ALREADY_EXISTS', `Target with controllerId {${items[twice]?.controllerId}} is given twice in the request`);
  const taken = lower.length === 0 ? [] : await store.lookupMany(tenant, TARGET, 'controllerId', lower);
  const clash = taken.findIndex((x) => x !== undefined);
  if (clash !== -1) throw new AppError('ALREADY_EXISTS', `Target with controllerId {${items[clash]?.controllerId}} already exists`);
  const types = await loadMap<TargetTypeRecord>(store, tenant, TARGET_TYPE, items.map((i) => i.targetType ?? null));
  for (const item of items) {
    const type = item.targetType == null ? undefined : types.get(item.targetType);
    if (item.targetType != null && (type === undefined || type.deleted)) throw new AppError('NOT_FOUND', `TargetType with given identifier {${item.targetType}} does not exist.`);
  }
  if (items.length === 0) return [];
  const first = await store.nextIds(tenant, TARGET, items.length);
  const audit = created(by, services.now());
  const records = items.map((item, i): TargetRecord => ({
    id: first + i,
    controllerId: item.controllerId,
    name: item.name == null || item.name === '' ? item.controllerId : item.name,
    description: item.description ?? null,
    securityToken: item.securityToken == null || item.securityToken === '' ? generateSecurityToken() : item.securityToken,
    address: item.address == null || item.address === '' ? null : item.address,
    updateStatus: 'unknown',
    requestAttributes: item.requestAttributes ?? true,
    targetType: item.targetType ?? null,
    assignedDs: null, installedDs: null, installedAt: null, installedAction: null,
    tags: [], attributes: {}, metadata: {}, autoConfirm: null,
    group: item.group ?? null,
    ...audit,
  }));
  // one commit for the batch: the runtime creates the first actor and stamps the others alike
  const mv = services.runtime.definition(TARGET).machineVersion;
  const [head, ...rest] = records as [TargetRecord, ...TargetRecord[]];
  const result = await services.runtime.create(tenant, TARGET, head, rest.map((r) => ({ kind: TARGET, id: r.id, expect: 0, after: { ...r, [MACHINE_VERSION_FIELD]: mv } })));
  if (!result.ok) throw new AppError('ALREADY_EXISTS', 'Target already exists (a controllerId of the request was taken concurrently)');
  return records;
}
