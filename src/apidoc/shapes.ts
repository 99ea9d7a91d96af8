/**
 * The pieces response schemas are made of, shared by the Management and DDI resources: HAL links,
 * audit fields, the paged-list envelope and the error body. Objects allow properties they do not
 * name (newer releases add fields), and a field is required only where every reply carries it:
 * null fields are left out of replies (hawkBit's NON_NULL), so anything nullable is optional.
 * @see reference/hawkbit-api.md §3.0, §7
 */
import { z } from 'zod';

/** `{ "href": ..., "name"? }` */
export const linkSchema = z.looseObject({ href: z.string(), name: z.string().optional() });

/** `_links`: `self` always, others as the resource has them. */
export const linksSchema = z.object({ self: linkSchema }).catchall(linkSchema);

/** createdBy/At, lastModifiedBy/At (spec 2.1; times in ms since the epoch). */
export const auditShape = {
  createdBy: z.string(),
  createdAt: z.number().int(),
  lastModifiedBy: z.string(),
  lastModifiedAt: z.number().int(),
};

/** `{ content, total, size }` of a Management list. */
export function pageSchema<S extends z.ZodType>(item: S) {
  return z.looseObject({
    content: z.array(item),
    total: z.number().int().min(0).describe('all matches'),
    size: z.number().int().min(0).describe('items on this page'),
  });
}

/** The error body of every 4xx/5xx reply (spec 7). */
export const errorSchema = z.looseObject({
  exceptionClass: z.string(),
  errorCode: z.string(),
  message: z.string(),
}).meta({ id: 'ExceptionInfo' });
