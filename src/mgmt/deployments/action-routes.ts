import { z } from 'zod';
import { deleteActions } from '../../actors/removal.js';
import { ACTION, ACTION_TYPES, statusSet, type ActionRecord } from '../../domain/action.js';
import { AppError, concurrent } from '../../domain/errors.js';
import type { Request, Route } from '../../http/types.js';
import type { Within } from '../../query/list.js';
import type { Tenant } from '../../store/port.js';
import { ACCESS } from '../kit/access.js';
import { int, readBody, str } from '../kit/body.js';
import { pageOf } from '../kit/hal.js';
import { listPage } from '../kit/list.js';
import { callerOf, isFull, pathId, pathText, queryFlag } from '../kit/request.js';
import { managementApi } from '../../domain/tenant-config.js';
import { loadActorByKeyOr404, loadActorOr404 } from '../kit/actor-store.js';
import { BY_CONTROLLER_ID } from '../targets/target-store.js';
import { actionFieldsOf } from './action-fields.js';
import { cancelAction, confirmAction, forceAction, forceQuitAction } from './action-commands.js';
import type { DeploymentDeps } from './deps.js';
import { joinActions } from './joins.js';
import { targetActionOr404 } from './lookups.js';
import { renderActions } from './views.js';
import { actionResponse } from './responses.js';
import { pageSchema } from '../../apidoc/shapes.js';

/** Actions of the Management API (reference §3.1 target actions, §3.6 `/rest/v1/actions`). */
const forceBody = z.object({ forceType: z.enum(ACTION_TYPES) });
const confirmationBody = z.object({
  confirmation: z.enum(['confirmed', 'denied']),
  code: int(Number.MIN_SAFE_INTEGER).nullish(),
  details: z.array(str(z.string().max(512))).nullish(),
});

/** The OpenAPI sentence of the routes that answer actions. */
const ACTION_FORM = 'Actions in the spec\'s form: `status` pending|finished with `detailStatus`. With `compat.managementApi` "1.x" '
  + '(config.yaml, or the tenant configuration key of that name): hawkBit 1.x\'s, `status` the detailed status in lower case '
  + '(running, error, finished, ...) beside `active`, no `detailStatus`, and `q=status==...` on the detailed status.';

export function actionRoutes(deps: DeploymentDeps): Route[] {
  const read = deps.mgmtAuth(ACCESS.target.read);
  const update = deps.mgmtAuth(ACCESS.target.update);
  const generation = async (tenant: Tenant) => managementApi(await deps.tenantConfig.view(tenant));
  /** One action as its single GET renders it, in the tenant's generation. */
  const one = async (req: Request, tenant: Tenant, action: ActionRecord): Promise<object | undefined> =>
    (await renderActions(deps, tenant, req, [action], { full: true, generation: await generation(tenant) }))[0];
  /** A page of actions (default sort id:DESC, reference §3.0), of all targets or under one. */
  const page = async (req: Request, tenant: Tenant, full: boolean, within?: Within<typeof ACTION>) => {
    const gen = await generation(tenant);
    const result = await listPage(deps, tenant, req, {
      kind: ACTION, fields: actionFieldsOf[gen], defaultSort: [{ field: 'id', dir: 'DESC' }],
      join: (actions: readonly ActionRecord[], joins) => joinActions(deps.store, tenant, actions, joins),
      ...(within === undefined ? {} : { within }),
    });
    return pageOf(await renderActions(deps, tenant, req, result.content.map((v) => v.a), { full, generation: gen }), result.total);
  };
  return [
    {
      method: 'GET', path: '/rest/v1/actions', auth: read, doc: { summary: 'List actions', list: 'full', response: pageSchema(actionResponse), description: ACTION_FORM },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        return { status: 200, json: await page(req, tenant, isFull(req)) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/actions/:actionId', auth: read, doc: { summary: 'Read an action', response: actionResponse, description: ACTION_FORM },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const action = await loadActorOr404(deps.store, tenant, ACTION, pathId(req, 'actionId', 'Action'));
        return { status: 200, json: await one(req, tenant, action.value) };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/actions/:actionId', auth: update, doc: { response: { status: 204 } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const action = await loadActorOr404(deps.store, tenant, ACTION, pathId(req, 'actionId', 'Action'));
        const allowed = statusSet(String((await deps.tenantConfig.view(tenant)).get('action.delete.allowed.statuses')));
        if (!allowed.has(action.value.status)) {
          throw new AppError('ACTION_NOT_DELETABLE',
            `Action [id: ${action.id}] has status ${action.value.status.toUpperCase()}, which action.delete.allowed.statuses does not allow to delete.`);
        }
        if ((await deleteActions(deps, tenant, [action.id], (a) => allowed.has(a.status))) === 0) {
          throw concurrent('action', action.id);
        }
        return { status: 204 };
      },
    },
    {
      method: 'GET', path: '/rest/v1/targets/:targetId/actions', auth: read,
      doc: { summary: "List a target's actions", list: true, response: pageSchema(actionResponse), description: ACTION_FORM },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const target = await loadActorByKeyOr404(deps.store, tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'));
        return { status: 200, json: await page(req, tenant, false, { index: 'target', key: String(target.id) }) };
      },
    },
    {
      method: 'GET', path: '/rest/v1/targets/:targetId/actions/:actionId', auth: read,
      doc: { summary: "Read a target's action", response: actionResponse, description: ACTION_FORM },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const { action } = await targetActionOr404(deps.store, tenant, req);
        return { status: 200, json: await one(req, tenant, action.value) };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/targets/:targetId/actions/:actionId', auth: update,
      doc: {
        summary: 'Cancel an action (force=true: force-quit it)', response: { status: 204 },
        query: [{ name: 'force', type: 'boolean', description: 'force-quit instead of cancel' }],
      },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const force = queryFlag(req, 'force');
        const { action } = await targetActionOr404(deps.store, tenant, req);
        await (force ? forceQuitAction : cancelAction)(deps, tenant, action.value, username);
        return { status: 204 };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/targets/:targetId/actions/:actionId', auth: update,
      doc: { summary: 'Switch an action to forced', body: forceBody, response: actionResponse, description: ACTION_FORM },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const { action } = await targetActionOr404(deps.store, tenant, req);
        const body = readBody(req, forceBody);
        if (body.forceType !== 'forced') {
          throw new AppError('CONSTRAINT_VIOLATION', `forceType: only a switch to 'forced' is supported, got '${body.forceType}'`);
        }
        const updated = await forceAction(deps, tenant, action.value, username);
        return { status: 200, json: await one(req, tenant, updated) };
      },
    },
    {
      method: 'PUT', path: '/rest/v1/targets/:targetId/actions/:actionId/confirmation', auth: update,
      doc: { summary: 'Confirm or deny an action waiting for confirmation', body: confirmationBody, response: { status: 204 } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const { action } = await targetActionOr404(deps.store, tenant, req);
        const body = readBody(req, confirmationBody);
        const confirmation = { confirmation: body.confirmation, code: body.code ?? null, details: body.details ?? [] };
        await confirmAction(deps, tenant, action, confirmation);
        return { status: 204 };
      },
    },
  ];
}
