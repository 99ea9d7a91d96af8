import { z } from 'zod';
import type { DistributionSetRecord } from '../../domain/repository.js';
import type { TargetFilterRecord } from '../../domain/targeting.js';
import { link } from '../../http/links.js';
import { keepNulls } from '../../http/serialize.js';
import type { Request } from '../../http/types.js';
import { defineFields, num, text, timestamp } from '../../query/index.js';
import { auditJson } from '../kit/hal.js';

/** Target filter queries: JSON, query fields and bodies. @see reference §3.4, spec 2.8, 4.5 */

export const filterPath = (id: number): string => `/rest/v1/targetfilters/${id}`;

/** Every field is present, nulls included (reference §3.4; hawkBit's model is `Include.ALWAYS`). */
export function filterJson(req: Request, f: TargetFilterRecord, full: boolean): object {
  return keepNulls({
    id: f.id,
    name: f.name,
    query: f.query,
    autoAssignDistributionSet: f.autoAssignDs,
    autoAssignActionType: f.autoAssignActionType,
    autoAssignWeight: f.autoAssignWeight,
    confirmationRequired: f.confirmationRequired,
    ...auditJson(f),
    _links: full
      ? { self: link(req, filterPath(f.id)), autoAssignDS: link(req, `${filterPath(f.id)}/autoAssignDS`) }
      : { self: link(req, filterPath(f.id)) },
  });
}

/** A filter with the auto-assigned distribution set it names (for `autoassigndistributionset.*`). */
export interface FilterView {
  readonly f: TargetFilterRecord;
  readonly ds: DistributionSetRecord | undefined;
}

/** TargetFilterQueryFields (reference §5). */
export const filterFields = defineFields<FilterView>({
  resource: 'targetfilter',
  id: (v) => v.f.id,
  fields: {
    id: num((v) => v.f.id),
    name: text((v) => v.f.name),
    createdat: timestamp((v) => v.f.createdAt),
    createdby: text((v) => v.f.createdBy),
    lastmodifiedat: timestamp((v) => v.f.lastModifiedAt),
    lastmodifiedby: text((v) => v.f.lastModifiedBy),
    'autoassigndistributionset.name': text((v) => v.ds?.name ?? null),
    'autoassigndistributionset.version': text((v) => v.ds?.version ?? null),
  },
  aliases: { autoassigndistributionset: 'autoassigndistributionset.name' },
});

export const FILTER_LIMITS = { name: 64, query: 1024 } as const;

export const filterCreateBody = z.object({
  name: z.string().min(1).max(FILTER_LIMITS.name),
  query: z.string().min(1).max(FILTER_LIMITS.query),
});

export const filterUpdateBody = z.object({
  name: z.string().min(1).max(FILTER_LIMITS.name).nullable().optional(),
  query: z.string().min(1).max(FILTER_LIMITS.query).nullable().optional(),
});

/** POST .../autoAssignDS: `type` is checked by hand for hawkBit's own error on `timeforced`. */
export const autoAssignBody = z.object({
  id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  type: z.string().nullable().optional(),
  weight: z.number().int().min(0).max(1000).nullable().optional(),
  confirmationRequired: z.boolean().nullable().optional(),
});
