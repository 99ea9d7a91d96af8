import { z } from 'zod';
import type { Route } from '../../http/types.js';
import type { KitDeps } from '../kit/deps.js';
import { callerOf } from '../kit/request.js';

/** `GET /rest/v1/userinfo`: who the caller is. @see reference §3.0, §3.15 */
export function userinfoRoutes(deps: Pick<KitDeps, 'mgmtAuth'>): Route[] {
  return [
    {
      method: 'GET', path: '/rest/v1/userinfo', auth: deps.mgmtAuth(),
      doc: { summary: 'Who the caller is', response: z.looseObject({ tenant: z.string(), username: z.string(), permissions: z.array(z.string()) }) },
      handler: (req) => {
        const { tenant, username, permissions } = callerOf(req);
        return { status: 200, json: { tenant, username, permissions: [...permissions].sort() } };
      },
    },
  ];
}
