/**
 * Path and query parameters of the DDI routes.
 * @see reference/hawkbit-api.md §1.1 (notes)
 */
import { AppError } from '../domain/errors.js';
import { parsePositiveInt } from '../domain/ids.js';
import type { Request } from '../http/types.js';

export function idParam(req: Request, name: string): number {
  const raw = req.params[name] ?? '';
  const id = parsePositiveInt(raw);
  if (id === undefined) throw new AppError('BAD_PARAMETER', `path parameter ${name} must be a positive whole number, got ${JSON.stringify(raw.slice(0, 40))}`);
  return id;
}

const INT = /^-?[0-9]{1,10}$/;

/** An int32 query parameter, or `fallback` when absent. */
export function intQuery(req: Request, name: string, fallback: number): number {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return fallback;
  const n = INT.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n > 2_147_483_647 || n < -2_147_483_648) {
    throw new AppError('BAD_PARAMETER', `query parameter ${name} must be a whole number, got ${JSON.stringify(raw.slice(0, 40))}`);
  }
  return n;
}
