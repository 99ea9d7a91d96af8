import { AppError } from '../../domain/errors.js';
import type { Request } from '../../http/types.js';
import { show } from '../../query/index.js';

/** Path and query parameters shared by the repository routes. */
export { pathId } from '../kit/params.js';

export type SoftDeletedMode = 'EXCLUDE_SOFT_DELETED' | 'ONLY_SOFT_DELETED' | 'INCLUDE_SOFT_DELETED';
const MODES: readonly SoftDeletedMode[] = ['EXCLUDE_SOFT_DELETED', 'ONLY_SOFT_DELETED', 'INCLUDE_SOFT_DELETED'];

/** `soft_deleted_mode` (reference §3.0); soft-deleted entities are hidden unless asked for. */
export function softDeletedMode(req: Request): SoftDeletedMode {
  const raw = req.query.get('soft_deleted_mode');
  if (raw === null || raw === '') return 'EXCLUDE_SOFT_DELETED';
  const mode = MODES.find((m) => m === raw.toUpperCase());
  if (mode === undefined) throw new AppError('BAD_PARAMETER', `soft_deleted_mode must be one of ${MODES.join(', ')}, got '${show(raw)}'`);
  return mode;
}

export function visibleIn(mode: SoftDeletedMode): (e: { readonly deleted: boolean }) => boolean {
  switch (mode) {
    case 'EXCLUDE_SOFT_DELETED':
      return (e) => !e.deleted;
    case 'ONLY_SOFT_DELETED':
      return (e) => e.deleted;
    case 'INCLUDE_SOFT_DELETED':
      return () => true;
  }
}

/** `representation=full|compact`; hawkBit falls back to compact for any other value (reference §3.0). */
export function isFullRepresentation(req: Request): boolean {
  return req.query.get('representation')?.toLowerCase() === 'full';
}
