import { z } from 'zod';
import type { TagRecord } from '../../domain/repository.js';
import { link } from '../../http/links.js';
import type { Request } from '../../http/types.js';
import { auditFields, defineFields, num, text } from '../../query/index.js';
import { auditJson } from '../kit/hal.js';

/** Target tags: JSON, query fields and request bodies. @see reference §3.2, spec 2.2 */

export const tagPath = (id: number): string => `/rest/v1/targettags/${id}`;

/** Tag JSON; single-entity responses (`full`) add the `assignedTargets` link. */
export function tagJson(req: Request, t: TagRecord, full: boolean): object {
  const out: Record<string, unknown> = { id: t.id, name: t.name };
  if (t.description !== null) out['description'] = t.description;
  if (t.colour !== null) out['colour'] = t.colour;
  Object.assign(out, auditJson(t));
  out['_links'] = full
    ? { self: link(req, tagPath(t.id)), assignedTargets: link(req, `${tagPath(t.id)}/assigned?offset=0&limit=50`) }
    : { self: link(req, tagPath(t.id)) };
  return out;
}

/** TargetTagFields (reference §5). */
export const tagFields = defineFields<TagRecord>({
  resource: 'targettag',
  id: (t) => t.id,
  fields: {
    id: num((t) => t.id),
    name: text((t) => t.name, { index: { name: 'name', unique: true } }),
    description: text((t) => t.description),
    colour: text((t) => t.colour),
    ...auditFields<TagRecord>(),
  },
});

export const TAG_LIMITS = { name: 64, description: 512, colour: 16 } as const;

export const tagCreateItem = z.object({
  name: z.string().min(1).max(TAG_LIMITS.name),
  description: z.string().max(TAG_LIMITS.description).nullable().optional(),
  colour: z.string().max(TAG_LIMITS.colour).nullable().optional(),
});

export const tagUpdateBody = z.object({
  name: z.string().min(1).max(TAG_LIMITS.name).nullable().optional(),
  description: z.string().max(TAG_LIMITS.description).nullable().optional(),
  colour: z.string().max(TAG_LIMITS.colour).nullable().optional(),
});

/** Controller ids as hawkBit 0.5 sends them (`[{"controllerId": ...}]`) or as newer releases do (`["..."]`). */
export const controllerIdList = z.preprocess(
  (v) => (Array.isArray(v) || v === undefined ? v : [v]),
  z.array(z.union([z.string().min(1).max(256), z.object({ controllerId: z.string().min(1).max(256) })])),
).transform((list) => list.map((x) => (typeof x === 'string' ? x : x.controllerId)));
