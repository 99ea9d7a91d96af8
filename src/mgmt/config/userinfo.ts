import type { Services } from '../../app/services.js';
import type { Route } from '../../http/types.js';
import { principalOf } from '../targets/request.js';

/** `GET /rest/v1/userinfo`: who the caller is. @see reference §3.0, §3.15 */
export function userinfoRoutes(services: Services): Route[] {
  return [
    {
      method: 'GET', path: '/rest/v1/userinfo', auth: services.mgmtAuth(),
      handler: (req) => {
        const { tenant, username, permissions } = principalOf(req);
        return { status: 200, json: { tenant, username, permissions: [...permissions].sort() } };
      },
    },
  ];
}
