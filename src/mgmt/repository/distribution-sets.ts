/**
 * Distribution sets: `/rest/v1/distributionsets[/{id}]`.
 * @see reference §3.9, spec 2.7 and 4.3
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { created, touched } from '../../domain/audit.js';
import { AppError } from '../../domain/errors.js';
import { DS, type DistributionSetRecord, type DistributionSetTypeRecord } from '../../domain/repository.js';
import { TARGET_FILTER, type TargetFilterRecord } from '../../domain/targeting.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { createRecords, deleteRecord, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { addModules, dsTypeByKey, isAssigned, liveModules } from './ds-rules.js';
import { distributionSetFields } from './fields.js';
import { joinDistributionSets, type DsView, type SmView } from './joins.js';
import { listViews } from './listing.js';
import { pathId, softDeletedMode, visibleIn } from './params.js';
import { assertLive } from './rules.js';
import { description, given, idRef, name, typeKey, version } from './schemas.js';
import { dsJson } from './views.js';

export const DS_LABEL = 'DistributionSet';
const BASE = '/rest/v1/distributionsets';

const createBody = acceptSingleAsArray(z.object({
  name,
  version,
  description,
  type: typeKey.nullish(),
  modules: z.array(idRef).nullish(),
  // the 0.5-0.9 shortcuts for one module each (reference §10)
  os: idRef.nullish(),
  runtime: idRef.nullish(),
  application: idRef.nullish(),
  requiredMigrationStep: z.boolean().nullish(),
  locked: z.boolean().nullish(),
}));
const updateBody = z.object({
  name: name.nullish(), version: version.nullish(), description, locked: z.boolean().nullish(), requiredMigrationStep: z.boolean().nullish(),
});

export function distributionSetRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET');
  const store = () => services.ctx.store;
  const idOf = (req: Request) => pathId(req, 'distributionSetId', DS_LABEL);
  const render = async (req: Request, tenant: string, sets: readonly DistributionSetRecord[]) =>
    (await joinDistributionSets(store(), tenant, sets)).map((v) => dsJson(req, v));

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const page = await listViews<DistributionSetRecord, DsView>(services, tenant, req, {
          kind: DS, fields: distributionSetFields, visible: visibleIn(softDeletedMode(req)),
          join: (records) => joinDistributionSets(store(), tenant, records),
        });
        return { status: 200, json: pageOf(page.content.map((v) => dsJson(req, v)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: auth.create,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, createBody);
        const prepared: { b: (typeof body)[number]; type: DistributionSetTypeRecord; modules: SmView[] }[] = [];
        for (const b of body) {
          const type = await dsTypeByKey(services, tenant, b.type ?? undefined);
          const ids = [...(b.modules ?? []), ...[b.os, b.runtime, b.application].filter(given)].map((r) => r.id);
          const modules = addModules(services, type, [], await liveModules(services, tenant, ids));
          prepared.push({ b, type, modules });
        }
        const at = services.now();
        const made = await createRecords<DistributionSetRecord>(store(), tenant, DS, DS_LABEL, (id, i) => {
          const { b, type, modules } = prepared[i] as (typeof prepared)[number];
          return {
            id, name: b.name, version: b.version, description: b.description ?? null, type: type.id, modules: modules.map((m) => m.sm.id),
            requiredMigrationStep: b.requiredMigrationStep ?? false, locked: b.locked ?? false, valid: true, deleted: false,
            tags: [], metadata: {}, ...created(username, at),
          };
        }, body.length);
        return { status: 201, json: await render(req, tenant, made) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:distributionSetId`, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const found = await loadOr404<DistributionSetRecord>(store(), tenant, DS, idOf(req), DS_LABEL);
        return { status: 200, json: (await render(req, tenant, [found.value]))[0] };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:distributionSetId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        const body = readJson(req, updateBody);
        const next = await updateRecord<DistributionSetRecord>(store(), tenant, DS, id, DS_LABEL, async (d) => {
          assertLive(d, DS_LABEL);
          const migration = body.requiredMigrationStep;
          if (given(migration) && migration !== d.requiredMigrationStep && (await isAssigned(services, tenant, id))) {
            throw new AppError('READ_ONLY', `distribution set ${id} is assigned to targets; requiredMigrationStep can no longer change`);
          }
          return touched({
            ...d,
            name: body.name ?? d.name,
            version: body.version ?? d.version,
            description: given(body.description) ? body.description : d.description,
            locked: given(body.locked) ? body.locked : d.locked,
            requiredMigrationStep: given(migration) ? migration : d.requiredMigrationStep,
          }, username, services.now());
        });
        return { status: 200, json: (await render(req, tenant, [next]))[0] };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:distributionSetId`, auth: auth.delete,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        await deleteDistributionSet(services, tenant, idOf(req), username);
        return { status: 204 };
      },
    },
  ];
}

/**
 * A set that actions refer to is soft-deleted (history and devices keep it); any other is removed.
 * Either way target filters stop auto-assigning it, as hawkBit does on delete.
 */
async function deleteDistributionSet(services: Services, tenant: string, id: number, username: string): Promise<void> {
  const store = services.ctx.store;
  const current = await loadOr404<DistributionSetRecord>(store, tenant, DS, id, DS_LABEL);
  await clearAutoAssignments(services, tenant, id, username);
  if (await isAssigned(services, tenant, id)) {
    if (current.value.deleted) return;
    await updateRecord<DistributionSetRecord>(store, tenant, DS, id, DS_LABEL, (d) => touched({ ...d, deleted: true }, username, services.now()));
  } else {
    await deleteRecord(store, tenant, DS, id, DS_LABEL);
  }
}

/** Target filters that auto-assign this set stop doing so. */
export async function clearAutoAssignments(services: Services, tenant: string, dsId: number, username: string): Promise<void> {
  const store = services.ctx.store;
  const filters = await store.members(tenant, TARGET_FILTER, 'autoAssignDs', String(dsId), { offset: 0, limit: SCAN_LIMIT });
  for (const filterId of filters.ids) {
    await updateRecord<TargetFilterRecord>(store, tenant, TARGET_FILTER, filterId, 'TargetFilterQuery', (f) =>
      (f.autoAssignDs !== dsId ? f : touched({
        ...f, autoAssignDs: null, autoAssignActionType: null, autoAssignWeight: null, confirmationRequired: null, autoAssignInitiatedBy: null,
      }, username, services.now())));
  }
}
