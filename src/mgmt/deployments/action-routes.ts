import { z } from 'zod';
import { deleteActions } from '../../actors/removal.js';
import { ACTION, ACTION_TYPES, statusSet, type ActionRecord } from '../../domain/action.js';
import { AppError, concurrent } from '../../domain/errors.js';
import type { Request, Route } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { ACCESS } from '../kit/access.js';
import { actorRoutes, type ActorListPart } from '../kit/actor-routes.js';
import { int, readBody, str } from '../kit/body.js';
import { queryFlag } from '../kit/request.js';
import { managementApi } from '../../domain/tenant-config.js';
import { actionFieldsOf, type ActionView } from './action-fields.js';
import { cancelAction, confirmAction, forceAction, forceQuitAction } from './action-commands.js';
import type { DeploymentDeps } from './deps.js';
import { joinActions } from './joins.js';
import { actionsOfTargetInPath } from './lookups.js';
import { renderActions } from './views.js';
import { actionResponse } from './responses.js';

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

/**
 * Actions are actors: `actorRoutes` serves `/rest/v1/actions` (list, read, delete) and, under their
 * target, `/rest/v1/targets/{targetId}/actions` (list, read, and the operations: cancel or force-quit,
 * switch to forced, confirm or deny). Both answer in the tenant's generation (`compat.managementApi`):
 * its query fields and its JSON.
 */
export function actionRoutes(deps: DeploymentDeps): Route[] {
  const generation = async (tenant: Tenant) => managementApi(await deps.tenantConfig.view(tenant));
  const render = async (req: Request, tenant: Tenant, actions: readonly ActionRecord[], full: boolean): Promise<readonly object[]> =>
    renderActions(deps, tenant, req, actions, { full, generation: await generation(tenant) });
  /** Default sort id:DESC (reference §3.0); the fields of the tenant's generation, joining what they read. */
  const list = (representation: boolean): ActorListPart<typeof ACTION, ActionView> => ({
    fields: async (tenant) => actionFieldsOf[await generation(tenant)],
    views: { join: (tenant, actions, joins) => joinActions(deps.store, tenant, actions, joins), record: (v) => v.a },
    defaultSort: [{ field: 'id', dir: 'DESC' }],
    representation,
  });
  const resource = { kind: ACTION, idParam: 'actionId', noun: 'action', schema: actionResponse, description: ACTION_FORM, render } as const;
  return [
    ...actorRoutes(deps, {
      ...resource, path: '/rest/v1/actions', list: list(true),
      // deleting an action is a change of its target's history: UPDATE_TARGET, as hawkBit's DeploymentManagement
      access: { ...ACCESS.target, delete: ACCESS.target.update },
      remove: async ({ tenant }, action) => {
        const allowed = statusSet(String((await deps.tenantConfig.view(tenant)).get('action.delete.allowed.statuses')));
        if (!allowed.has(action.value.status)) {
          throw new AppError('ACTION_NOT_DELETABLE',
            `Action [id: ${action.id}] has status ${action.value.status.toUpperCase()}, which action.delete.allowed.statuses does not allow to delete.`);
        }
        if ((await deleteActions(deps, tenant, [action.id], (a) => allowed.has(a.status))) === 0) {
          throw concurrent('action', action.id);
        }
      },
    }),
    ...actorRoutes(deps, {
      ...resource, path: '/rest/v1/targets/:targetId/actions', parent: actionsOfTargetInPath(deps.store), list: list(false),
      summaries: { list: "List a target's actions", read: "Read a target's action" }, access: ACCESS.target,
      operations: [
        {
          name: '', method: 'DELETE', permission: ACCESS.target.update, summary: 'Cancel an action (force=true: force-quit it)',
          query: [{ name: 'force', type: 'boolean', description: 'force-quit instead of cancel' }],
          run: async (req, { tenant, by }, action) => {
            await (queryFlag(req, 'force') ? forceQuitAction : cancelAction)(deps, tenant, action, by);
          },
        },
        {
          name: '', method: 'PUT', permission: ACCESS.target.update, summary: 'Switch an action to forced', body: forceBody,
          answer: async (req, { tenant, by }, action) => {
            const body = readBody(req, forceBody);
            if (body.forceType !== 'forced') {
              throw new AppError('CONSTRAINT_VIOLATION', `forceType: only a switch to 'forced' is supported, got '${body.forceType}'`);
            }
            return forceAction(deps, tenant, action, by);
          },
        },
        {
          name: 'confirmation', method: 'PUT', permission: ACCESS.target.update, summary: 'Confirm or deny an action waiting for confirmation',
          body: confirmationBody,
          run: async (req, { tenant }, action) => {
            const body = readBody(req, confirmationBody);
            const confirmation = { confirmation: body.confirmation, code: body.code ?? null, details: body.details ?? [] };
            await confirmAction(deps, tenant, action, confirmation);
          },
        },
      ],
    }),
  ];
}
