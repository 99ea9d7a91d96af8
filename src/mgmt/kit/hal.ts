import type { Request } from '../../http/types.js';

/** HAL link objects and the paged-list envelope of the Management API (reference §3.0). */
export interface Link {
  readonly href: string;
  readonly name?: string;
  readonly templated?: boolean;
}

export function link(req: Request, path: string, name?: string): Link {
  return name === undefined ? { href: req.baseUrl + path } : { href: req.baseUrl + path, name };
}

/** `{content, total, size}`: `total` counts all matches, `size` the items on this page. */
export function pageOf<T>(content: readonly T[], total: number): { content: readonly T[]; total: number; size: number } {
  return { content, total, size: content.length };
}

/** The audit fields of spec 2.1 as they appear in JSON. */
export function auditJson(e: { createdBy: string; createdAt: number; lastModifiedBy: string; lastModifiedAt: number }) {
  return { createdBy: e.createdBy, createdAt: e.createdAt, lastModifiedBy: e.lastModifiedBy, lastModifiedAt: e.lastModifiedAt };
}
