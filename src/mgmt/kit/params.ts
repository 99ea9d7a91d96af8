import { AppError, notFound } from '../../domain/errors.js';
import type { Request } from '../../http/types.js';

const INTEGER = /^[+-]?[0-9]{1,20}$/;

/**
 * A numeric entity id from a path segment. Not a number at all: 400 (hawkBit's type mismatch on the
 * Long conversion); a number no entity can have (0, negative, too large): 404 naming the entity.
 */
export function parsePathId(raw: string, name: string, label: string): number {
  if (!INTEGER.test(raw)) throw new AppError('BAD_PARAMETER', `path parameter ${name} must be a number, got '${raw.slice(0, 64)}'`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1) throw notFound(label, raw);
  return n;
}

/** The same, for the route parameter `name` of a request. */
export function pathId(req: Request, name: string, label: string): number {
  return parsePathId(req.params[name] ?? '', name, label);
}
