import { AppError, notFound } from '../../domain/errors.js';
import { parsePositiveInt } from '../../domain/ids.js';
import type { MgmtPrincipal, Request } from '../../http/types.js';

/** Path parameters and the caller of Management routes, parsed where they enter. */

/** The Management caller; every route of this module authenticates, so a missing one is a bug. */
export function principalOf(req: Request): MgmtPrincipal {
  const p = req.principal;
  if (p?.kind !== 'mgmt') throw new Error(`route ${req.method} ${req.path} has no Management authenticator`);
  return p;
}

/**
 * A numeric entity id from the path. Not a number at all: 400 (hawkBit's type mismatch); a number
 * that no entity can have (0, negative, too large): 404 naming the entity.
 */
export function idParam(req: Request, name: string, label: string): number {
  const raw = req.params[name] ?? '';
  const id = parsePositiveInt(raw);
  if (id !== undefined) return id;
  if (/^[+-]?\d+$/.test(raw)) throw notFound(label, raw);
  throw new AppError('BAD_PARAMETER', `path parameter ${name} must be a number, got '${raw.slice(0, 64)}'`);
}

/** A path parameter taken as text (controller ids, metadata and configuration keys). */
export function textParam(req: Request, name: string): string {
  return req.params[name] ?? '';
}

/** The caller may see target security tokens (reference §3.1: READ_TARGET_SECURITY_TOKEN). */
export function maySeeTokens(req: Request): boolean {
  const p = req.principal;
  return p?.kind === 'mgmt' && (p.permissions.has('READ_TARGET_SECURITY_TOKEN') || p.permissions.has('ALL'));
}
