import type { MgmtPrincipal, Request } from '../../http/types.js';

/** Path parameters and the caller of Management routes, parsed where they enter. */

/** The Management caller; every route of this module authenticates, so a missing one is a bug. */
export function principalOf(req: Request): MgmtPrincipal {
  const p = req.principal;
  if (p?.kind !== 'mgmt') throw new Error(`route ${req.method} ${req.path} has no Management authenticator`);
  return p;
}

/** A numeric entity id from the path (400 not a number, 404 no such id). */
export { pathId as idParam } from '../kit/params.js';

/** A path parameter taken as text (controller ids, metadata and configuration keys). */
export function textParam(req: Request, name: string): string {
  return req.params[name] ?? '';
}

/** The caller may see target security tokens (reference §3.1: READ_TARGET_SECURITY_TOKEN). */
export function maySeeTokens(req: Request): boolean {
  const p = req.principal;
  return p?.kind === 'mgmt' && (p.permissions.has('READ_TARGET_SECURITY_TOKEN') || p.permissions.has('ALL'));
}
