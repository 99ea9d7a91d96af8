import { z } from 'zod';
import { deleteActions } from '../../actors/removal.js';
import { ACTION, ACTION_STATUSES, statusSet, type ActionRecord } from '../../domain/action.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { managementApi } from '../../domain/tenant-config.js';
import type { Request, Route } from '../../http/types.js';
import { listRecords, parseFilter } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_ALL, SCAN_LIMIT, loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { id, readOptionalBody } from '../kit/body.js';
import { BY_ID, evalContext } from '../kit/list.js';
import { callerOf, pathText } from '../kit/request.js';
import { loadActorByKeyOr404 } from '../kit/actor-store.js';
import { BY_CONTROLLER_ID } from '../targets/target-store.js';
import { actionFieldsOf } from './action-fields.js';
import type { DeploymentDeps } from './deps.js';
import { joinActions } from './joins.js';

/**
 * Deleting actions in bulk (hawkBit 1.x, reference §3.1, §3.6): `DELETE /rest/v1/actions` by `q`
 * or a body of ids, `DELETE /rest/v1/targets/{id}/actions` by `keepLast` or a body of ids. Only
 * actions in a status of the tenant's `action.delete.allowed.statuses` go: with `q` or ids, one
 * that is not rejects the request (405, nothing deleted); `keepLast` skips them. Unknown ids are
 * ignored, as hawkBit's `deleteAllById`. Each action goes through the removal path with its history.
 */
const idsBody = z.array(id());
const idsDoc = { body: idsBody, bodyOptional: true, response: { status: 204 } } as const;

export function actionDeletionRoutes(deps: DeploymentDeps): Route[] {
  const update = deps.mgmtAuth(ACCESS.target.update);
  const allowedOf = async (tenant: Tenant) => statusSet(String((await deps.tenantConfig.view(tenant)).get('action.delete.allowed.statuses')));
  return [
    {
      method: 'DELETE', path: '/rest/v1/actions', auth: update, body: 'json',
      doc: {
        ...idsDoc, summary: 'Delete actions by FIQL (q) or by a list of ids',
        query: [{ name: 'q', type: 'string', description: 'FIQL over the action fields (instead of a body of ids)' }],
      },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const q = req.query.get('q') ?? '';
        const ids = readOptionalBody(req, idsBody, []);
        if (q !== '' && ids.length > 0) throw badRequest('Only one of the parameters should be provided!');
        if (q === '' && ids.length === 0) throw badRequest('Either action id list or rsql filter should be provided.');
        const allowed = await allowedOf(tenant);
        const actions = q === '' ? await loadActions(deps, tenant, ids) : await matching(deps, tenant, q);
        refuseUndeletable(actions, allowed, q === '' ? 'from ID list' : 'matching the rsql filter');
        await deleteActions(deps, tenant, actions.map((a) => a.id), (a) => allowed.has(a.status));
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: '/rest/v1/targets/:targetId/actions', auth: update, body: 'json',
      doc: {
        ...idsDoc, summary: "Delete a target's actions but the newest keepLast, or those of a list of ids",
        query: [{ name: 'keepLast', type: 'integer', description: 'how many of the newest actions to keep (instead of a body of ids)' }],
      },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const keepLast = keepLastOf(req);
        const ids = readOptionalBody(req, idsBody, []);
        const target = await loadActorByKeyOr404(deps.store, tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'));
        if (keepLast < 0 && ids.length === 0) throw badRequest('Either keepLast OR action ID list should be provided!');
        if (keepLast >= 0 && ids.length > 0) throw badRequest('Only one of the parameters should be provided!');
        const allowed = await allowedOf(tenant);
        const own = (a: ActionRecord) => a.targetId === target.id;
        if (ids.length > 0) {
          const actions = (await loadActions(deps, tenant, ids)).filter(own);
          refuseUndeletable(actions, allowed, 'from ID list');
          await deleteActions(deps, tenant, actions.map((a) => a.id), (a) => own(a) && allowed.has(a.status));
        } else {
          const all = [...(await deps.store.members(tenant, ACTION, 'target', String(target.id), SCAN_ALL)).ids].sort((a, b) => a - b);
          // the oldest beyond the newest keepLast; of those, the ones in an allowed status
          await deleteActions(deps, tenant, all.slice(0, Math.max(0, all.length - keepLast)), (a) => own(a) && allowed.has(a.status));
        }
        return { status: 204 };
      },
    },
  ];
}

/** `keepLast` (hawkBit's default -1: not given); not an integer: 400. */
function keepLastOf(req: Request): number {
  const raw = req.query.get('keepLast');
  if (raw === null || raw === '') return -1;
  if (!/^[+-]?[0-9]+$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) {
    throw new AppError('BAD_PARAMETER', `query parameter keepLast must be an integer, got '${raw.slice(0, 64)}'`);
  }
  return Number(raw);
}

async function loadActions(deps: DeploymentDeps, tenant: Tenant, ids: readonly number[]): Promise<ActionRecord[]> {
  return (await loadRecords<ActionRecord>(deps.store, tenant, ACTION, [...new Set(ids)])).map((r) => r.value);
}

/** Every action `q` matches, in the tenant's generation of the action fields (FIQL errors: 400). */
async function matching(deps: DeploymentDeps, tenant: Tenant, q: string): Promise<ActionRecord[]> {
  const fields = actionFieldsOf[managementApi(await deps.tenantConfig.view(tenant))];
  const filter = parseFilter(q, fields);
  const result = await listRecords({ store: deps.store, tenant }, {
    kind: ACTION, fields, join: (actions: readonly ActionRecord[], joins) => joinActions(deps.store, tenant, actions, joins),
  }, { offset: 0, limit: SCAN_LIMIT, sort: BY_ID, filter }, await evalContext(deps, tenant));
  return result.content.map((v) => v.a);
}

/** 405 when one of the actions is in a status the tenant does not allow to delete (hawkBit's texts). */
function refuseUndeletable(actions: readonly ActionRecord[], allowed: ReadonlySet<string>, which: string): void {
  const kept = actions.filter((a) => !allowed.has(a.status)).length;
  if (kept === 0) return;
  const statuses = ACTION_STATUSES.filter((s) => allowed.has(s)).map((s) => s.toUpperCase()).join(', ');
  throw new AppError('ACTION_NOT_DELETABLE', `${kept} actions ${which} are not in allowed statuses for deletion: [${statuses}]`);
}
