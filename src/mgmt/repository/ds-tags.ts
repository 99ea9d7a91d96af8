/**
 * Distribution set tags: `/rest/v1/distributionsettags[/{id}]` and the sets of a tag,
 * `.../{id}/assigned[/{dsId}]` and `.../assigned/toggleTagAssignment`; the 0.5-0.9 bodies
 * (`[{"id": n}]`, answered with the sets) and newer ones (`[n, ...]`, answered 204).
 * @see reference §3.11 and §10, spec 2.2 and 4.2
 */
import { z } from 'zod';
import { touched } from '../../domain/audit.js';
import { DS, DS_TAG, type DistributionSetRecord, type TagRecord } from '../../domain/repository.js';
import type { Route } from '../../http/types.js';
import { defineFields, num, text } from '../../query/index.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_ALL, loadMap } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { plainId } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { pageOf } from '../kit/hal.js';
import { listPage } from '../kit/list.js';
import { softDeletedFilter } from '../kit/named.js';
import { pathId } from '../kit/request.js';
import { updateAllRecords } from '../kit/store.js';
import { tagDecided } from '../kit/tag-members.js';
import { tagFields, tagRoutes } from '../kit/tag-kinds.js';
import { distributionSetFields, joinSetsForQuery } from './fields.js';
import { renderDistributionSets } from './views.js';
import { notFound } from '../../domain/errors.js';
import { distributionSetResponse } from './responses.js';

/** A tag with the sets carrying it (loaded only when the query names `distributionset`). */
interface TagView {
  readonly tag: TagRecord;
  readonly sets?: readonly { readonly id: number; readonly name: string }[];
}

/** DistributionSetTagFields (reference §5). */
const fields = defineFields<TagView, typeof DS_TAG>({
  resource: 'DistributionSetTag',
  id: (v) => v.tag.id,
  fields: {
    ...tagFields((v: TagView) => v.tag),
    'distributionset.id': num((v) => (v.sets ?? []).map((s) => s.id), { join: 'sets' }),
    'distributionset.name': text((v) => (v.sets ?? []).map((s) => s.name), { join: 'sets' }),
  },
});

export function dsTagRoutes(deps: KitDeps): Route[] {
  /** Tags with the sets carrying them. */
  const joinSets = async (tenant: Tenant, tags: readonly TagRecord[], joins: ReadonlySet<string>): Promise<TagView[]> => {
    if (!joins.has('sets')) return tags.map((tag) => ({ tag }));
    const members = await Promise.all(tags.map((t) => deps.store.members(tenant, DS, 'tag', String(t.id), SCAN_ALL)));
    const sets = await loadMap<DistributionSetRecord>(deps.store, tenant, DS, members.flatMap((m) => m.ids));
    return tags.map((tag, i) => ({
      tag,
      sets: (members[i]?.ids ?? []).flatMap((id) => {
        const d = sets.get(id);
        return d === undefined ? [] : [{ id: d.id, name: d.name }];
      }),
    }));
  };
  return tagRoutes(deps, {
    kind: DS_TAG,
    path: '/rest/v1/distributionsettags',
    idParam: 'distributionsetTagId',
    access: ACCESS.distributionSet,
    membersRel: 'assignedDistributionSets',
    list: { fields, views: { join: joinSets, record: (v) => v.tag } },
    memberKind: DS,
    members: {
      // `distributionsets`: the path of the older reference for the same list (spec 4.2)
      listPaths: ['assigned', 'distributionsets'],
      list: async (req, tenant, tag) => {
        const page = await listPage(deps, tenant, req, {
          kind: DS, fields: distributionSetFields, within: { index: 'tag', key: String(tag) }, visible: softDeletedFilter(req),
          join: (records: readonly DistributionSetRecord[], joins) => joinSetsForQuery(deps, tenant, records, joins),
        });
        return pageOf(await renderDistributionSets(deps, tenant, req, page.content.map((v) => v.ds)), page.total);
      },
      memberSchema: distributionSetResponse,
      memberParam: 'distributionsetId',
      memberKey: (req) => pathId(req, 'distributionsetId', 'DistributionSet'),
      key: plainId,
      legacyKey: z.object({ id: plainId }),
      legacyField: 'id',
      find: async (tenant, ids) => {
        const found = await loadMap<DistributionSetRecord>(deps.store, tenant, DS, ids);
        return { found: ids.flatMap((id) => found.get(id) ?? []), missing: ids.filter((id) => !found.has(id)) };
      },
      notFound: (missing) => notFound('DistributionSet', missing[0] ?? '?'),
      policy: false,
      tags: (d) => d.tags,
      setTag: (tenant, sets, tag, on, by) => {
        const now = deps.now();
        return updateAllRecords(deps.store, tenant, DS, sets.map((d) => d.id), (current) => {
          const put = tagDecided(on, current);
          return current.map((d) => (d.tags.includes(tag) === put ? d : touched({
            ...d, tags: put ? [...d.tags, tag] : d.tags.filter((t) => t !== tag),
          }, by, now)));
        });
      },
      render: (req, tenant, sets) => renderDistributionSets(deps, tenant, req, sets),
      toggleFields: ['assignedDistributionSets', 'unassignedDistributionSets'],
    },
  });
}
