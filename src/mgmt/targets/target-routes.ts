import { z } from 'zod';
import { deleteTarget, type RemovalDeps } from '../../actors/removal.js';
import { created } from '../../domain/audit.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { TARGET, type TargetRecord } from '../../domain/target.js';
import { TARGET_TYPE, type TargetTypeRecord } from '../../domain/targeting.js';
import type { Route } from '../../http/types.js';
import { pageSchema } from '../../apidoc/shapes.js';
import type { Tenant } from '../../store/port.js';
import { loadMap } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { readBody } from '../kit/body.js';
import { callerOf } from '../kit/request.js';
import { loadLiveOr404 } from '../kit/store.js';
import { checkAddress, createTargetsBody, generateSecurityToken, updateTargetBody, type CreateTargetItem } from './target-body.js';
import { listTargets, renderTargets } from './target-json.js';
import { actorRoutes, type ActorRouteDeps } from '../kit/actor-routes.js';
import { BY_CONTROLLER_ID } from './target-store.js';
import { targetResponse } from './responses.js';

export type TargetDeps = ActorRouteDeps & RemovalDeps;

/**
 * `/rest/v1/targets` and `/rest/v1/targets/{controllerId}`: targets are actors named by their
 * controller id, read, updated and deleted through `actorRoutes`; the list (the target query with
 * its own sort) and creation are routes of their own. @see reference §3.1, spec 4.4
 */
export function targetRoutes(deps: TargetDeps): Route[] {
  return [
    {
      method: 'GET', path: '/rest/v1/targets', auth: deps.mgmtAuth(ACCESS.target.read),
      doc: { summary: 'List targets', list: true, response: pageSchema(targetResponse) },
      handler: async (req) => ({ status: 200, json: await listTargets(deps, callerOf(req).tenant, req) }),
    },
    {
      method: 'POST', path: '/rest/v1/targets', auth: deps.mgmtAuth(ACCESS.target.create),
      doc: { summary: 'Create targets', body: createTargetsBody, response: { status: 201, schema: z.array(targetResponse) } },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const records = await createTargets(deps, tenant, readBody(req, createTargetsBody), username);
        return { status: 201, json: await renderTargets(deps, tenant, req, records) };
      },
    },
    ...actorRoutes(deps, {
      kind: TARGET, path: '/rest/v1/targets', idParam: 'targetId', key: BY_CONTROLLER_ID, noun: 'target', access: ACCESS.target,
      schema: targetResponse,
      render: (req, tenant, records, full) => renderTargets(deps, tenant, req, records, { full }),
      update: {
        body: updateTargetBody,
        prepare: async ({ tenant }, body) => {
          if (body.requestAttributes === false) throw badRequest('body.requestAttributes: only true is accepted (asks the device to send its attributes again)');
          checkAddress(body.address, 'body.address');
          if (body.targetType === 0) throw badRequest('body.targetType: must be a target type id, or -1 to remove the type');
          if (body.targetType != null && body.targetType !== -1) await loadLiveOr404(deps.store, tenant, TARGET_TYPE, body.targetType);
          return body;
        },
        apply: (_ctx, t, body) => ({
          ...t,
          name: body.name ?? t.name,
          description: body.description ?? t.description,
          address: body.address === '' ? null : (body.address ?? t.address),
          securityToken: body.securityToken ?? t.securityToken,
          requestAttributes: body.requestAttributes === true ? true : t.requestAttributes,
          targetType: body.targetType == null ? t.targetType : body.targetType === -1 ? null : body.targetType,
          group: body.group ?? t.group,
        }),
      },
      remove: ({ tenant }, target) => deleteTarget(deps, tenant, target.id, target.value.controllerId),
    }),
  ];
}

/**
 * Creates targets atomically (all or none) as target actors in state `unknown`. A controller id
 * taken already, or given twice, is a 409 naming it; the unique index catches concurrent creates.
 */
async function createTargets(deps: TargetDeps, tenant: Tenant, items: readonly CreateTargetItem[], by: string): Promise<TargetRecord[]> {
  const { store } = deps;
  items.forEach((item, i) => checkAddress(item.address, `body[${i}].address`));
  const lower = items.map((i) => BY_CONTROLLER_ID.key(i.controllerId));
  const twice = lower.findIndex((c, i) => lower.indexOf(c) !== i);
  if (twice !== -1) throw new AppError('ALREADY_EXISTS', `Target with controllerId {${items[twice]?.controllerId}} is given twice in the request`);
  const taken = lower.length === 0 ? [] : await store.lookupMany(tenant, TARGET, BY_CONTROLLER_ID.index, lower);
  const clash = taken.findIndex((x) => x !== undefined);
  if (clash !== -1) throw new AppError('ALREADY_EXISTS', `Target with controllerId {${items[clash]?.controllerId}} already exists`);
  const types = await loadMap<TargetTypeRecord>(store, tenant, TARGET_TYPE, items.map((i) => i.targetType ?? null));
  for (const item of items) {
    const type = item.targetType == null ? undefined : types.get(item.targetType);
    if (item.targetType != null && (type === undefined || type.deleted)) throw new AppError('NOT_FOUND', `TargetType with given identifier {${item.targetType}} does not exist.`);
  }
  if (items.length === 0) return [];
  const first = await store.nextIds(tenant, TARGET, items.length);
  const audit = created(by, deps.now());
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
  const result = await deps.runtime.create(tenant, TARGET, records);
  if (!result.ok) throw new AppError('ALREADY_EXISTS', 'Target already exists (a controllerId of the request was taken concurrently)');
  return records;
}
