import { assignableSet } from '../../actors/distribution-sets.js';
import type { QueryDoc, Route } from '../../http/types.js';
import { ASSIGN } from '../kit/access.js';
import { readBody } from '../kit/body.js';
import { callerOf, pathId, pathText, queryFlag } from '../kit/request.js';
import { loadActorByKeyOr404 } from '../kit/actor-store.js';
import { BY_CONTROLLER_ID } from '../targets/target-store.js';
import { assignFromRequest } from './assign-service.js';
import { dsAssignmentsBody, targetAssignmentsBody, toItem } from './assignment-body.js';
import type { DeploymentDeps } from './deps.js';
import { assignmentResponse } from './responses.js';

const OFFLINE: QueryDoc = { name: 'offline', type: 'boolean', description: 'record sets the devices already run (no action to execute)' };

/**
 * `POST /rest/v1/targets/{targetId}/assignedDS` and `POST /rest/v1/distributionsets/{id}/assignedTargets`
 * (reference §3.1, §3.9, §3.16): 200 `{assigned, alreadyAssigned, total, assignedActions}`; `?offline=true`
 * records sets the devices already run.
 */
export function assignmentRoutes(deps: DeploymentDeps): Route[] {
  const auth = deps.mgmtAuth(ASSIGN);
  return [
    {
      method: 'POST', path: '/rest/v1/targets/:targetId/assignedDS', auth,
      doc: { summary: 'Assign distribution sets to a target', body: dsAssignmentsBody, query: [OFFLINE], response: assignmentResponse },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const offline = queryFlag(req, 'offline');
        const target = await loadActorByKeyOr404(deps.store, tenant, BY_CONTROLLER_ID, pathText(req, 'targetId'));
        const items = readBody(req, dsAssignmentsBody).map((b) => toItem(target.value.controllerId, b.id, b));
        return { status: 200, json: await assignFromRequest(deps, tenant, req, username, items, offline) };
      },
    },
    {
      method: 'POST', path: '/rest/v1/distributionsets/:distributionSetId/assignedTargets', auth,
      doc: { summary: 'Assign a distribution set to targets', body: targetAssignmentsBody, query: [OFFLINE], response: assignmentResponse },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const offline = queryFlag(req, 'offline');
        const ds = await assignableSet(deps.store, tenant, pathId(req, 'distributionSetId', 'DistributionSet'));
        const items = readBody(req, targetAssignmentsBody).map((b) => toItem(b.id, ds.id, b));
        return { status: 200, json: await assignFromRequest(deps, tenant, req, username, items, offline) };
      },
    },
  ];
}
