import { AppError, notFound } from '../../domain/errors.js';
import type { MgmtPrincipal, Request } from '../../http/types.js';
import { show } from '../../query/operands.js';

/** What a Management request names: its caller, path parameters and the query parameters every resource reads. */

/** The caller; every Management route authenticates, so a request without one is a bug. */
export function callerOf(req: Request): MgmtPrincipal {
  const p = req.principal;
  if (p?.kind !== 'mgmt') throw new Error(`route ${req.method} ${req.path} has no Management authenticator`);
  return p;
}

/** The caller holds this permission (or ALL). */
export function holds(req: Request, permission: string): boolean {
  const p = req.principal;
  return p?.kind === 'mgmt' && (p.permissions.has(permission) || p.permissions.has('ALL'));
}

const INTEGER = /^[+-]?[0-9]{1,20}$/;

/**
 * A numeric entity id from the path parameter `name`. Not a number at all: 400 (hawkBit's type
 * mismatch on the Long conversion); a number no entity can have (0, negative, too large): 404 naming
 * the entity (`label`).
 */
export function pathId(req: Request, name: string, label: string): number {
  const raw = req.params[name] ?? '';
  if (!INTEGER.test(raw)) throw new AppError('BAD_PARAMETER', `path parameter ${name} must be a number, got '${show(raw)}'`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw notFound(label, raw);
  return n;
}

/** A path parameter taken as text (controller ids, metadata and configuration keys). */
export function pathText(req: Request, name: string): string {
  return req.params[name] ?? '';
}

/** `representation=full|compact`; hawkBit falls back to compact for any other value (reference §3.0). */
export function isFull(req: Request): boolean {
  return req.query.get('representation')?.toLowerCase() === 'full';
}

/** A query parameter with a fixed set of values, matched ignoring case; absent or empty: `fallback`. */
export function queryChoice<T extends string>(req: Request, name: string, values: readonly T[], fallback: T): T {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return fallback;
  const found = values.find((v) => v.toUpperCase() === raw.toUpperCase());
  if (found === undefined) throw new AppError('BAD_PARAMETER', `${name} must be one of ${values.join(', ')}, got '${show(raw)}'`);
  return found;
}

/** A boolean query parameter (`?offline=true`); absent or empty: false. */
export function queryFlag(req: Request, name: string): boolean {
  return queryChoice(req, name, ['true', 'false'], 'false') === 'true';
}
