import type { Services } from '../../app/services.js';
import { readJson } from '../../http/json.js';
import type { Route } from '../../http/types.js';
import { assignFromRequest } from './assign-service.js';
import { dsAssignmentsBody, offlineParam, targetAssignmentsBody, toItem } from './assignment-body.js';
import { pathId, targetByControllerId, username } from './lookups.js';
import { assignableSet } from '../../actors/distribution-sets.js';

/**
 * `POST /rest/v1/targets/{targetId}/assignedDS` and `POST /rest/v1/distributionsets/{id}/assignedTargets`
 * (reference §3.1, §3.9, §3.16): 200 `{assigned, alreadyAssigned, total, assignedActions}`.
 */
export function assignmentRoutes(services: Services): Route[] {
  const auth = services.mgmtAuth(['UPDATE_TARGET', 'READ_REPOSITORY']);
  return [
    {
      method: 'POST', path: '/rest/v1/targets/:targetId/assignedDS', auth,
      handler: async (req) => {
        const tenant = req.principal?.tenant ?? '';
        const offline = offlineParam(req);
        const target = await targetByControllerId(services.ctx.store, tenant, req.params['targetId'] ?? '');
        const body = readJson(req, dsAssignmentsBody);
        const items = body.map((b) => toItem(target.value.controllerId, b.id, b));
        return { status: 200, json: await assignFromRequest(services, tenant, req, username(req.principal), items, offline) };
      },
    },
    {
      method: 'POST', path: '/rest/v1/distributionsets/:distributionSetId/assignedTargets', auth,
      handler: async (req) => {
        const tenant = req.principal?.tenant ?? '';
        const offline = offlineParam(req);
        const ds = await assignableSet(services.ctx.store, tenant, pathId(req.params['distributionSetId'], 'DistributionSet'));
        const body = readJson(req, targetAssignmentsBody);
        const items = body.map((b) => toItem(b.id, ds.id, b));
        return { status: 200, json: await assignFromRequest(services, tenant, req, username(req.principal), items, offline) };
      },
    },
  ];
}
