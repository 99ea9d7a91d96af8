/**
 * Software modules: `/rest/v1/softwaremodules[/{id}]`.
 * @see reference §3.12, spec 2.6 and 4.3
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { created, touched } from '../../domain/audit.js';
import { AppError, notFound } from '../../domain/errors.js';
import { ARTIFACT, DS, SM, SM_TYPE, type ArtifactRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { createRecords, expectCommitted, loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { releaseBinaries } from './binaries.js';
import { softwareModuleFields } from './fields.js';
import { joinSoftwareModules, type SmView } from './joins.js';
import { listViews } from './listing.js';
import { pathId, softDeletedMode, visibleIn } from './params.js';
import { assertLive } from './rules.js';
import { description, given, name, typeKey, vendor, version } from './schemas.js';
import { smJson } from './views.js';

export const SM_LABEL = 'SoftwareModule';
const BASE = '/rest/v1/softwaremodules';

const createBody = acceptSingleAsArray(z.object({ name, version, type: typeKey, description, vendor, encrypted: z.boolean().nullish() }));
const updateBody = z.object({ description, vendor, locked: z.boolean().nullish() });

export function softwareModuleRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'SOFTWARE_MODULE');
  const store = () => services.ctx.store;
  const idOf = (req: Request) => pathId(req, 'softwareModuleId', SM_LABEL);
  const render = async (req: Request, tenant: string, modules: readonly SoftwareModuleRecord[]) =>
    (await joinSoftwareModules(store(), tenant, modules)).map((v) => smJson(req, v));

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const page = await listViews<SoftwareModuleRecord, SmView>(services, tenant, req, {
          kind: SM, fields: softwareModuleFields, visible: visibleIn(softDeletedMode(req)),
          join: (records) => joinSoftwareModules(store(), tenant, records),
        });
        return { status: 200, json: pageOf(page.content.map((v) => smJson(req, v)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: auth.create,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const body = readJson(req, createBody);
        const typeIds = await store().lookupMany(tenant, SM_TYPE, 'key', body.map((b) => b.type.toLowerCase()));
        typeIds.forEach((t, i) => {
          if (t === undefined) throw notFound('SoftwareModuleType', body[i]?.type ?? ''); // hawkBit resolves the key with getByKey().orElseThrow()
        });
        const at = services.now();
        const made = await createRecords<SoftwareModuleRecord>(store(), tenant, SM, SM_LABEL, (id, i) => {
          const b = body[i] as (typeof body)[number];
          return {
            id, name: b.name, version: b.version, type: typeIds[i] as number, description: b.description ?? null, vendor: b.vendor ?? null,
            encrypted: b.encrypted ?? false, locked: false, deleted: false, metadata: {}, ...created(username, at),
          };
        }, body.length);
        return { status: 201, json: await render(req, tenant, made) };
      },
    },
    {
      method: 'GET', path: `${BASE}/:softwareModuleId`, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const found = await loadOr404<SoftwareModuleRecord>(store(), tenant, SM, idOf(req), SM_LABEL);
        return { status: 200, json: (await render(req, tenant, [found.value]))[0] };
      },
    },
    {
      method: 'PUT', path: `${BASE}/:softwareModuleId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        const body = readJson(req, updateBody);
        // unlocking is allowed, though the spec advises against it (spec 2.6)
        const next = await updateRecord<SoftwareModuleRecord>(store(), tenant, SM, id, SM_LABEL, (m) => {
          assertLive(m, SM_LABEL);
          return touched({
            ...m,
            description: given(body.description) ? body.description : m.description,
            vendor: given(body.vendor) ? body.vendor : m.vendor,
            locked: given(body.locked) ? body.locked : m.locked,
          }, username, services.now());
        });
        return { status: 200, json: (await render(req, tenant, [next]))[0] };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:softwareModuleId`, auth: auth.delete,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        await deleteSoftwareModule(services, tenant, idOf(req), username);
        return { status: 204 };
      },
    },
  ];
}

/**
 * A module that a distribution set holds is soft-deleted (it stays in the set, its artifacts stay
 * downloadable); any other is removed with its artifacts, and their content when nothing else refers to it.
 */
async function deleteSoftwareModule(services: Services, tenant: string, id: number, username: string): Promise<void> {
  const store = services.ctx.store;
  for (let attempt = 1; attempt <= 8; attempt++) {
    const current = await loadOr404<SoftwareModuleRecord>(store, tenant, SM, id, SM_LABEL);
    if ((await store.count(tenant, DS, 'module', String(id))) > 0) {
      if (current.value.deleted) return;
      await updateRecord<SoftwareModuleRecord>(store, tenant, SM, id, SM_LABEL, (m) => touched({ ...m, deleted: true }, username, services.now()));
      return;
    }
    const artifactIds = (await store.members(tenant, ARTIFACT, 'module', String(id), { offset: 0, limit: SCAN_LIMIT })).ids;
    const stored = await store.getMany<ArtifactRecord>(tenant, ARTIFACT, artifactIds);
    const artifacts = stored.filter((a) => a !== undefined);
    const result = await store.commit(tenant, {
      writes: [
        { kind: SM, id, expect: current.version, before: current.value, after: null },
        ...artifacts.map((a) => ({ kind: ARTIFACT, id: a.id, expect: a.version, before: a.value, after: null })),
      ],
    });
    if (result.ok) {
      await releaseBinaries(services, tenant, artifacts.map((a) => a.value.hashes.sha1));
      return;
    }
    if (result.reason !== 'stale-version') expectCommitted(result, `${SM_LABEL} ${id}`);
  }
  throw new AppError('CONCURRENT_MODIFICATION', `${SM_LABEL} ${id} is being modified concurrently; retry the request`);
}
