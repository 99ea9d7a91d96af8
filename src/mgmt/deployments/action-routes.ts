import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { ACTION_TYPES } from '../../domain/action.js';
import { AppError } from '../../domain/errors.js';
import { readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { pageOf } from '../kit/hal.js';
import { cancelAction, confirmAction, forceAction, forceQuitAction } from './action-commands.js';
import { deleteActions, statusSet } from './action-delete.js';
import { listActions } from './action-list.js';
import { actionOr404, pathId, targetActionOr404, targetByControllerId, username } from './lookups.js';
import { renderActions } from './views.js';

/** Actions of the Management API (reference §3.1 target actions, §3.6 `/rest/v1/actions`). */
const forceBody = z.object({ forceType: z.enum(ACTION_TYPES) });
const confirmationBody = z.object({
  confirmation: z.enum(['confirmed', 'denied']),
  code: z.number().int().nullish(),
  details: z.array(z.string().max(512)).nullish(),
});

const tenantOf = (req: Request): string => req.principal?.tenant ?? '';

/** `representation=full|compact`; anything else is compact, as in hawkBit. */
const isFull = (req: Request): boolean => req.query.get('representation')?.toLowerCase() === 'full';

function boolParam(req: Request, name: string): boolean {
  const raw = req.query.get(name);
  if (raw === null || raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  throw new AppError('BAD_PARAMETER', `${name} must be true or false, got '${raw.slice(0, 64)}'`);
}

export function actionRoutes(services: Services): Route[] {
  const read = services.mgmtAuth('READ_TARGET');
  const update = services.mgmtAuth('UPDATE_TARGET');
  const remove = services.mgmtAuth('DELETE_TARGET');
  const store = () => services.ctx.store;
  return [
    {
      method: 'GET', path: '/rest/v1/actions', auth: read,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const page = await listActions(services, tenant, req);
        return { status: 200, json: pageOf(await renderActions(services, tenant, req, page.content, { full: isFull(req) }), page.total) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/actions/:actionId', auth: read,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const action = await actionOr404(store(), tenant, pathId(req.params['actionId'], 'Action'));
        const [json] = await renderActions(services, tenant, req, [action.value], { full: true });
        return { status: 200, json };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/actions/:actionId', auth: remove,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const action = await actionOr404(store(), tenant, pathId(req.params['actionId'], 'Action'));
        const allowed = statusSet(String((await services.tenantConfig.view(tenant)).get('action.delete.allowed.statuses')));
        if (!allowed.has(action.value.status)) {
          throw new AppError('ACTION_NOT_DELETABLE', `Action [id: ${action.id}] has status ${action.value.status.toUpperCase()}, which action.delete.allowed.statuses does not allow to delete.`);
        }
        if ((await deleteActions(store(), services.runtime, tenant, [action])) === 0) {
          throw new AppError('CONCURRENT_MODIFICATION', `action ${action.id} was modified concurrently; retry`);
        }
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: '/rest/v1/targets/:targetId/actions', auth: read,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const target = await targetByControllerId(store(), tenant, req.params['targetId'] ?? '');
        const page = await listActions(services, tenant, req, { index: 'target', key: String(target.id) });
        return { status: 200, json: pageOf(await renderActions(services, tenant, req, page.content), page.total) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/targets/:targetId/actions/:actionId', auth: read,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const { action } = await targetActionOr404(store(), tenant, req.params['targetId'] ?? '', req.params['actionId']);
        const [json] = await renderActions(services, tenant, req, [action.value], { full: true });
        return { status: 200, json };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/targets/:targetId/actions/:actionId', auth: update,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const force = boolParam(req, 'force');
        const { action } = await targetActionOr404(store(), tenant, req.params['targetId'] ?? '', req.params['actionId']);
        const by = username(req.principal);
        await (force ? forceQuitAction : cancelAction)(services, tenant, action.value, by);
        return { status: 204 };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/targets/:targetId/actions/:actionId', auth: update,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const { action } = await targetActionOr404(store(), tenant, req.params['targetId'] ?? '', req.params['actionId']);
        const body = readJson(req, forceBody);
        if (body.forceType !== 'forced') {
          throw new AppError('CONSTRAINT_VIOLATION', `forceType: only a switch to 'forced' is supported, got '${body.forceType}'`);
        }
        const updated = await forceAction(services, tenant, action.value, username(req.principal));
        const [json] = await renderActions(services, tenant, req, [updated], { full: true });
        return { status: 200, json };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/targets/:targetId/actions/:actionId/confirmation', auth: update,
      handler: async (req) => {
        const tenant = tenantOf(req);
        const { action } = await targetActionOr404(store(), tenant, req.params['targetId'] ?? '', req.params['actionId']);
        const body = readJson(req, confirmationBody);
        await confirmAction(services, tenant, action, { confirmation: body.confirmation, code: body.code ?? null, details: body.details ?? [] });
        return { status: 204 };
      },
    },
  ];
}
