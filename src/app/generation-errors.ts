import { AppError, statusOf } from '../domain/errors.js';
import { managementApi, type TenantConfigView } from '../domain/tenant-config.js';
import type { Handler, Request, Route } from '../http/types.js';
import type { Tenant } from '../store/port.js';

/**
 * Errors answered in the caller's generation (`compat.managementApi`, src/domain/compat.ts): an
 * AppError whose code answers another status under "1.x" (the quota codes: 403, 429 in 1.x) thrown
 * by the handler of an authenticated route is thrown again carrying the tenant's generation, so the
 * one error edge (src/http/errors.ts) answers with that generation's status. Every place that raises
 * a quota error stays as it is; replies that succeed pass untouched (a sync reply stays sync).
 */
export function answerInCallersGeneration(routes: readonly Route[], config: { view(tenant: Tenant): Promise<TenantConfigView> }): Route[] {
  const rethrow = async (req: Request, err: unknown): Promise<never> => {
    const tenant = req.principal?.tenant;
    if (!(err instanceof AppError) || tenant === undefined || statusOf(err.code, '1.x') === statusOf(err.code)) throw err;
    const generation = managementApi(await config.view(tenant));
    if (generation === '0.9') throw err;
    throw new AppError(err.code, err.message, { cause: err, generation, ...(err.headers === undefined ? {} : { headers: err.headers }) });
  };
  const wrap = (handler: Handler): Handler => (req) => {
    try {
      const out = handler(req);
      return out instanceof Promise ? out.catch((err: unknown) => rethrow(req, err)) : out;
    } catch (err) {
      return rethrow(req, err);
    }
  };
  return routes.map((route) => (route.auth === undefined ? route : { ...route, handler: wrap(route.handler) }));
}
