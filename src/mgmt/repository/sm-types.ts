/**
 * Software module types: `/rest/v1/softwaremoduletypes`.
 * @see reference §3.13, spec 2.5 and 4.3
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { created, touched } from '../../domain/audit.js';
import { DS_TYPE, SM, SM_TYPE, type DistributionSetTypeRecord, type SoftwareModuleTypeRecord } from '../../domain/repository.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { createRecords, deleteRecord, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { softwareModuleTypeFields } from './fields.js';
import { loadById } from './joins.js';
import { smTypeJson } from './json.js';
import { listViews } from './listing.js';
import { pathId, softDeletedMode, visibleIn } from './params.js';
import { colour, description, given, name, typeKey } from './schemas.js';

const LABEL = 'SoftwareModuleType';
const BASE = '/rest/v1/softwaremoduletypes';

const createBody = acceptSingleAsArray(z.object({
  name,
  key: typeKey,
  description,
  colour,
  maxAssignments: z.number().int().min(1).max(2_147_483_647).optional(),
}));
const updateBody = z.object({ description, colour });

export function smTypeRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'SOFTWARE_MODULE_TYPE');
  const store = () => services.ctx.store;
  const idOf = (req: Request) => pathId(req, 'softwareModuleTypeId', LABEL);

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const page = await listViews<SoftwareModuleTypeRecord, SoftwareModuleTypeRecord>(services, tenant, req, {
          kind: SM_TYPE, fields: softwareModuleTypeFields, visible: visibleIn(softDeletedMode(req)), join: async (r) => [...r],
        });
        return { status: 200, json: pageOf(page.content.map((t) => smTypeJson(req, t)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: auth.create,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, createBody);
        const at = services.now();
        const made = await createRecords<SoftwareModuleTypeRecord>(store(), tenant, SM_TYPE, LABEL, (id, i) => {
          const b = body[i] as (typeof body)[number];
          return {
            id, key: b.key, name: b.name, description: b.description ?? null, colour: b.colour ?? null,
            maxAssignments: b.maxAssignments ?? 1, deleted: false, ...created(username, at),
          };
        }, body.length);
        return { status: 201, json: made.map((t) => smTypeJson(req, t)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:softwareModuleTypeId`, auth: auth.read,
      handler: async (req) => {
        const found = await loadOr404<SoftwareModuleTypeRecord>(store(), principalOf(req).tenant, SM_TYPE, idOf(req), LABEL);
        return { status: 200, json: smTypeJson(req, found.value) };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:softwareModuleTypeId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        const body = readJson(req, updateBody);
        const next = await updateRecord<SoftwareModuleTypeRecord>(store(), tenant, SM_TYPE, id, LABEL, (t) => touched({
          ...t,
          description: given(body.description) ? body.description : t.description,
          colour: given(body.colour) ? body.colour : t.colour,
        }, username, services.now()));
        return { status: 200, json: smTypeJson(req, next) };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:softwareModuleTypeId`, auth: auth.delete,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        await loadOr404(store(), tenant, SM_TYPE, id, LABEL);
        // in use by a module or named by a set type: keep the record (soft delete), as hawkBit does
        if (await smTypeInUse(services, tenant, id)) {
          await updateRecord<SoftwareModuleTypeRecord>(store(), tenant, SM_TYPE, id, LABEL, (t) =>
            (t.deleted ? t : touched({ ...t, deleted: true }, username, services.now())));
        } else {
          await deleteRecord(store(), tenant, SM_TYPE, id, LABEL);
        }
        return { status: 204 };
      },
    },
  ];
}

async function smTypeInUse(services: Services, tenant: string, id: number): Promise<boolean> {
  const store = services.ctx.store;
  if ((await store.count(tenant, SM, 'type', String(id))) > 0) return true;
  const all = await store.ids(tenant, DS_TYPE, { offset: 0, limit: SCAN_LIMIT });
  const types = await loadById<DistributionSetTypeRecord>(store, tenant, DS_TYPE, all.ids);
  return [...types.values()].some((t) => t.mandatory.includes(id) || t.optional.includes(id));
}
