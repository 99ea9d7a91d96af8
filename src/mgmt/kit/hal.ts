/** The paged-list envelope and audit fields of the Management API (reference §3.0); links: src/http/links.ts. */
export { link, segment, type Link } from '../../http/links.js';

/** `{content, total, size}`: `total` counts all matches, `size` the items on this page. */
export function pageOf<T>(content: readonly T[], total: number): { content: readonly T[]; total: number; size: number } {
  return { content, total, size: content.length };
}

/** The audit fields of spec 2.1 as they appear in JSON. */
export function auditJson(e: { createdBy: string; createdAt: number; lastModifiedBy: string; lastModifiedAt: number }) {
  return { createdBy: e.createdBy, createdAt: e.createdAt, lastModifiedBy: e.lastModifiedBy, lastModifiedAt: e.lastModifiedAt };
}
