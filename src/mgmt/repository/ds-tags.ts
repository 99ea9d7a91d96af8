/**
 * Distribution set tags: `/rest/v1/distributionsettags[/{id}]`.
 * @see reference §3.11, spec 2.2 and 4.2
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { created, touched } from '../../domain/audit.js';
import { DS, DS_TAG, type DistributionSetRecord, type TagRecord } from '../../domain/repository.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import type { ListParams } from '../../query/index.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { createRecords, deleteRecord, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { updateSets } from './ds-tag-assignment.js';
import { distributionSetTagFields, type TagView } from './fields.js';
import { loadById } from './joins.js';
import { dsTagJson } from './json.js';
import { listViews } from './listing.js';
import { pathId } from './params.js';
import { colour, description, given, name } from './schemas.js';

export const TAG_LABEL = 'DistributionSetTag';
const BASE = '/rest/v1/distributionsettags';

const createBody = acceptSingleAsArray(z.object({ name, description, colour }));
const updateBody = z.object({ name: name.nullish(), description, colour });

export function dsTagRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET');
  const store = () => services.ctx.store;
  const idOf = (req: Request) => pathId(req, 'distributionsetTagId', TAG_LABEL);

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const page = await listViews<TagRecord, TagView>(services, tenant, req, {
          kind: DS_TAG, fields: distributionSetTagFields, join: (tags, params) => joinSets(services, tenant, tags, params),
        });
        return { status: 200, json: pageOf(page.content.map((v) => dsTagJson(req, v.tag)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: auth.create,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, createBody);
        const at = services.now();
        const made = await createRecords<TagRecord>(store(), tenant, DS_TAG, TAG_LABEL, (id, i) => {
          const b = body[i] as (typeof body)[number];
          return { id, name: b.name, description: b.description ?? null, colour: b.colour ?? null, ...created(username, at) };
        }, body.length);
        return { status: 201, json: made.map((t) => dsTagJson(req, t)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:distributionsetTagId`, auth: auth.read,
      handler: async (req) => {
        const found = await loadOr404<TagRecord>(store(), principalOf(req).tenant, DS_TAG, idOf(req), TAG_LABEL);
        return { status: 200, json: dsTagJson(req, found.value) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:distributionsetTagId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, updateBody);
        const next = await updateRecord<TagRecord>(store(), tenant, DS_TAG, idOf(req), TAG_LABEL, (t) => touched({
          ...t,
          name: body.name ?? t.name,
          description: given(body.description) ? body.description : t.description,
          colour: given(body.colour) ? body.colour : t.colour,
        }, username, services.now()));
        return { status: 200, json: dsTagJson(req, next) };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:distributionsetTagId`, auth: auth.delete,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        await loadOr404<TagRecord>(store(), tenant, DS_TAG, id, TAG_LABEL);
        const tagged = (await store().members(tenant, DS, 'tag', String(id), { offset: 0, limit: SCAN_LIMIT })).ids;
        await updateSets(services, tenant, tagged, username, (d) => ({ ...d, tags: d.tags.filter((t) => t !== id) }));
        await deleteRecord(store(), tenant, DS_TAG, id, TAG_LABEL);
        return { status: 204 };
      },
    },
  ];
}

/** Tags with the sets carrying them, read only when the query filters or sorts by `distributionset`. */
async function joinSets(services: Services, tenant: string, tags: readonly TagRecord[], params: ListParams<TagView>): Promise<TagView[]> {
  const needed = /distributionset/i.test(params.q ?? '') || params.sort.some((s) => s.field.startsWith('distributionset'));
  if (!needed) return tags.map((tag) => ({ tag, sets: [] }));
  const store = services.ctx.store;
  const members = await Promise.all(tags.map((t) => store.members(tenant, DS, 'tag', String(t.id), { offset: 0, limit: SCAN_LIMIT })));
  const sets = await loadById<DistributionSetRecord>(store, tenant, DS, members.flatMap((m) => m.ids));
  return tags.map((tag, i) => ({
    tag,
    sets: (members[i]?.ids ?? []).flatMap((id) => {
      const d = sets.get(id);
      return d === undefined ? [] : [{ id: d.id, name: d.name }];
    }),
  }));
}
