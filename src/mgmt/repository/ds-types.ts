/**
 * Distribution set types: `/rest/v1/distributionsettypes`.
 * @see reference §3.10, spec 2.5 and 4.3
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { created, touched } from '../../domain/audit.js';
import { DS_TYPE, type DistributionSetTypeRecord } from '../../domain/repository.js';
import { TARGET_TYPE } from '../../domain/targeting.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { createRecords, deleteRecord, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { dsTypeInUse, liveSmTypes, moduleTypeLists } from './ds-type-rules.js';
import { distributionSetTypeFields } from './fields.js';
import { dsTypeJson } from './json.js';
import { listViews } from './listing.js';
import { pathId, softDeletedMode, visibleIn } from './params.js';
import { colour, description, given, idRef, name, typeKey } from './schemas.js';

const LABEL = 'DistributionSetType';
const BASE = '/rest/v1/distributionsettypes';

const createBody = acceptSingleAsArray(z.object({
  name,
  key: typeKey,
  description,
  colour,
  mandatorymodules: z.array(idRef).nullish(),
  optionalmodules: z.array(idRef).nullish(),
}));
const updateBody = z.object({ description, colour });

export function dsTypeRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET_TYPE');
  const store = () => services.ctx.store;
  const idOf = (req: Request) => pathId(req, 'distributionSetTypeId', LABEL);

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const page = await listViews<DistributionSetTypeRecord, DistributionSetTypeRecord>(services, tenant, req, {
          kind: DS_TYPE, fields: distributionSetTypeFields, visible: visibleIn(softDeletedMode(req)), join: async (r) => [...r],
        });
        return { status: 200, json: pageOf(page.content.map((t) => dsTypeJson(req, t)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: auth.create,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, createBody);
        const lists = body.map((b) => moduleTypeLists(services, (b.mandatorymodules ?? []).map((r) => r.id), (b.optionalmodules ?? []).map((r) => r.id)));
        await liveSmTypes(services, tenant, lists.flatMap((l) => [...l.mandatory, ...l.optional]));
        const at = services.now();
        const made = await createRecords<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, LABEL, (id, i) => {
          const b = body[i] as (typeof body)[number];
          const l = lists[i] as (typeof lists)[number];
          return {
            id, key: b.key, name: b.name, description: b.description ?? null, colour: b.colour ?? null,
            mandatory: l.mandatory, optional: l.optional, deleted: false, ...created(username, at),
          };
        }, body.length);
        return { status: 201, json: made.map((t) => dsTypeJson(req, t)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:distributionSetTypeId`, auth: auth.read,
      handler: async (req) => {
        const found = await loadOr404<DistributionSetTypeRecord>(store(), principalOf(req).tenant, DS_TYPE, idOf(req), LABEL);
        return { status: 200, json: dsTypeJson(req, found.value) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:distributionSetTypeId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        const body = readJson(req, updateBody);
        const next = await updateRecord<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, id, LABEL, (t) => touched({
          ...t,
          description: given(body.description) ? body.description : t.description,
          colour: given(body.colour) ? body.colour : t.colour,
        }, username, services.now()));
        return { status: 200, json: dsTypeJson(req, next) };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:distributionSetTypeId`, auth: auth.delete,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        await loadOr404(store(), tenant, DS_TYPE, id, LABEL);
        // used by a set, or named compatible by a target type: keep the record (soft delete)
        const used = (await dsTypeInUse(services, tenant, id)) || (await store().count(tenant, TARGET_TYPE, 'dsType', String(id))) > 0;
        if (used) {
          await updateRecord<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, id, LABEL, (t) =>
            (t.deleted ? t : touched({ ...t, deleted: true }, username, services.now())));
        } else {
          await deleteRecord(store(), tenant, DS_TYPE, id, LABEL);
        }
        return { status: 204 };
      },
    },
  ];
}
