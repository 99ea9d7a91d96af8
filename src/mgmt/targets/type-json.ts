import { z } from 'zod';
import type { TargetTypeRecord } from '../../domain/targeting.js';
import { link } from '../../http/links.js';
import type { Request } from '../../http/types.js';
import { auditFields, defineFields, num, text } from '../../query/index.js';
import { auditJson } from '../kit/hal.js';

/** Target types: JSON, query fields and request bodies. @see reference §3.3 */

export const typePath = (id: number): string => `/rest/v1/targettypes/${id}`;

export function targetTypeJson(req: Request, t: TargetTypeRecord, full: boolean): object {
  const out: Record<string, unknown> = { id: t.id };
  if (t.key !== null) out['key'] = t.key;
  out['name'] = t.name;
  if (t.description !== null) out['description'] = t.description;
  if (t.colour !== null) out['colour'] = t.colour;
  out['deleted'] = t.deleted;
  Object.assign(out, auditJson(t));
  out['_links'] = full
    ? { self: link(req, typePath(t.id)), compatibledistributionsettypes: link(req, `${typePath(t.id)}/compatibledistributionsettypes`) }
    : { self: link(req, typePath(t.id)) };
  return out;
}

/** TargetTypeFields (reference §5). */
export const targetTypeFields = defineFields<TargetTypeRecord>({
  resource: 'targettype',
  id: (t) => t.id,
  fields: {
    id: num((t) => t.id),
    key: text((t) => t.key, { index: { name: 'key', unique: true } }),
    name: text((t) => t.name, { index: { name: 'name', unique: true } }),
    description: text((t) => t.description),
    ...auditFields<TargetTypeRecord>(),
  },
});

export const TYPE_LIMITS = { name: 64, key: 64, description: 512, colour: 16 } as const;

const idRef = z.object({ id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });
export const idRefList = z.preprocess((v) => (Array.isArray(v) || v === undefined ? v : [v]), z.array(idRef));

export const typeCreateItem = z.object({
  name: z.string().min(1).max(TYPE_LIMITS.name),
  key: z.string().min(1).max(TYPE_LIMITS.key).nullable().optional(),
  description: z.string().max(TYPE_LIMITS.description).nullable().optional(),
  colour: z.string().max(TYPE_LIMITS.colour).nullable().optional(),
  compatibledistributionsettypes: idRefList.nullable().optional(),
});

export const typeUpdateBody = z.object({
  name: z.string().min(1).max(TYPE_LIMITS.name).nullable().optional(),
  description: z.string().max(TYPE_LIMITS.description).nullable().optional(),
  colour: z.string().max(TYPE_LIMITS.colour).nullable().optional(),
});
