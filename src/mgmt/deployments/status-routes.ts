import { ACTION_STATUS, ACTION_STATUSES, type ActionStatusRecord } from '../../domain/action.js';
import type { Route } from '../../http/types.js';
import { defineFields, num, oneOf, timestamp } from '../../query/index.js';
import { ACCESS } from '../kit/access.js';
import type { KitDeps } from '../kit/deps.js';
import { pageOf } from '../kit/hal.js';
import { listPage } from '../kit/list.js';
import { callerOf } from '../kit/request.js';
import { targetActionOr404 } from './lookups.js';
import { renderActionStatus } from './views.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { actionStatusResponse } from './responses.js';

/** ActionStatus fields (reference §5: sort only; `type` added for convenience). */
const statusFields = defineFields<ActionStatusRecord, typeof ACTION_STATUS>({
  resource: 'actionstatus',
  id: (s) => s.id,
  fields: {
    id: num((s) => s.id),
    timestamp: timestamp((s) => s.timestamp),
    reportedat: timestamp((s) => s.reportedAt),
    type: oneOf(ACTION_STATUSES, (s) => s.type),
  },
});

/** `GET /rest/v1/targets/{targetId}/actions/{actionId}/status`: the status history, default sort id:DESC. */
export function statusRoutes(deps: KitDeps): Route[] {
  return [{
    method: 'GET', path: '/rest/v1/targets/:targetId/actions/:actionId/status', auth: deps.mgmtAuth(ACCESS.target.read),
    doc: { summary: "List an action's status history", list: true, response: pageSchema(actionStatusResponse) },
    handler: async (req) => {
      const { tenant } = callerOf(req);
      const action = await targetActionOr404(deps.store, tenant, req);
      const page = await listPage(deps, tenant, req, {
        kind: ACTION_STATUS, fields: statusFields, within: { index: 'action', key: String(action.id) }, defaultSort: [{ field: 'id', dir: 'DESC' }],
      });
      return { status: 200, json: pageOf(page.content.map(renderActionStatus), page.total) };
    },
  }];
}
