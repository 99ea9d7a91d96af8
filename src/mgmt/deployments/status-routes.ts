import type { Services } from '../../app/services.js';
import { ACTION_STATUS, ACTION_STATUSES, type ActionStatusRecord } from '../../domain/action.js';
import type { Route } from '../../http/types.js';
import { defineFields, num, oneOf, parseListParams, queryEntities, timestamp } from '../../query/index.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { pageOf } from '../kit/hal.js';
import { targetActionOr404 } from './lookups.js';
import { renderActionStatus } from './views.js';

/** ActionStatus fields (reference §5: sort only; `type` added for convenience). */
const statusFields = defineFields<ActionStatusRecord>({
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
export function statusRoutes(services: Services): Route[] {
  return [{
    method: 'GET', path: '/rest/v1/targets/:targetId/actions/:actionId/status', auth: services.mgmtAuth('READ_TARGET'),
    handler: async (req) => {
      const tenant = req.principal?.tenant ?? '';
      const store = services.ctx.store;
      const { action } = await targetActionOr404(store, tenant, req.params['targetId'] ?? '', req.params['actionId']);
      const { limits } = services.ctx.config;
      const params = parseListParams(req.query, {
        defaultLimit: limits.defaultPageSize, maxLimit: limits.maxPageSize, sortFields: statusFields,
        defaultSort: [{ field: 'id', dir: 'DESC' }], filterFields: statusFields,
      });
      const page = await store.members(tenant, ACTION_STATUS, 'action', String(action.id), { offset: 0, limit: SCAN_LIMIT });
      const entries = (await store.getMany<ActionStatusRecord>(tenant, ACTION_STATUS, page.ids)).flatMap((e) => (e === undefined ? [] : [e.value]));
      const now = services.now();
      const result = queryEntities(entries, params, statusFields, { now, overdueTs: now });
      return { status: 200, json: pageOf(result.content.map(renderActionStatus), result.total) };
    },
  }];
}
