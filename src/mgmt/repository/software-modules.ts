/**
 * Software modules: `/rest/v1/softwaremodules[/{id}]`.
 * @see reference §3.12, spec 2.6 and 4.3
 */
import { z } from 'zod';
import { AppError, notFound } from '../../domain/errors.js';
import { ARTIFACT, DS, SM, SM_TYPE, type ArtifactRecord } from '../../domain/repository.js';
import type { Route } from '../../http/types.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { bool, description, given, name, typeKey, vendor, version } from '../kit/body.js';
import { namedRoutes, softDelete } from '../kit/named.js';
import { softwareModuleResponse } from './responses.js';
import { deleteRecord } from '../kit/store.js';
import { releaseBinaries } from './binaries.js';
import type { RepositoryDeps } from './deps.js';
import { joinModulesForQuery, softwareModuleFields } from './fields.js';
import { assertLive } from './rules.js';
import { renderSoftwareModules } from './views.js';

const createItem = z.object({ name, version, type: typeKey, description, vendor, encrypted: bool().nullish() });
const updateBody = z.object({ description, vendor, locked: bool().nullish() });

export function softwareModuleRoutes(deps: RepositoryDeps): Route[] {
  return namedRoutes(deps, {
    kind: SM,
    path: '/rest/v1/softwaremodules',
    idParam: 'softwareModuleId',
    access: ACCESS.softwareModule,
    render: (req, tenant, modules) => renderSoftwareModules(deps, tenant, req, modules),
    schema: softwareModuleResponse,
    list: {
      fields: softwareModuleFields,
      softDeleted: true,
      views: { join: (tenant, modules, joins) => joinModulesForQuery(deps, tenant, modules, joins), record: (v) => v.sm },
    },
    create: {
      item: createItem,
      build: async (ctx, items) => {
        // no encryption provider: hawkBit answers 400 rather than serve the artifacts in clear as "encrypted"
        const encrypted = items.findIndex((b) => b.encrypted === true);
        if (encrypted >= 0) {
          throw new AppError('ENCRYPTION_NOT_SUPPORTED', `body[${encrypted}].encrypted: artifact encryption is not supported (no encryption provider)`);
        }
        const typeIds = await deps.store.lookupMany(ctx.tenant, SM_TYPE, 'key', items.map((b) => b.type.toLowerCase()));
        return items.map((b, i) => {
          const type = typeIds[i];
          if (type === undefined) throw notFound('SoftwareModuleType', b.type); // hawkBit resolves the key with getByKey().orElseThrow()
          return (id, audit) => ({
            id, name: b.name, version: b.version, type, description: b.description ?? null, vendor: b.vendor ?? null,
            encrypted: false, locked: false, deleted: false, metadata: {}, ...audit,
          });
        });
      },
    },
    update: {
      body: updateBody,
      // unlocking is allowed, though the spec advises against it (spec 2.6)
      apply: (_ctx, m, body) => {
        assertLive(m, 'SoftwareModule');
        return {
          ...m,
          description: given(body.description) ? body.description : m.description,
          vendor: given(body.vendor) ? body.vendor : m.vendor,
          locked: given(body.locked) ? body.locked : m.locked,
        };
      },
    },
    /**
     * A module that a distribution set holds is soft-deleted (it stays in the set, its artifacts stay
     * downloadable); any other is removed with its artifacts, and their content when nothing else refers to it.
     */
    remove: async (ctx, m) => {
      if ((await deps.store.count(ctx.tenant, DS, 'module', String(m.id))) > 0) {
        await softDelete(deps, ctx, SM, m.id, true);
        return;
      }
      let artifacts: ArtifactRecord[] = [];
      await deleteRecord(deps.store, ctx.tenant, SM, m.id, async () => {
        const ids = (await deps.store.members(ctx.tenant, ARTIFACT, 'module', String(m.id), SCAN_ALL)).ids;
        const found = await loadRecords<ArtifactRecord>(deps.store, ctx.tenant, ARTIFACT, ids);
        artifacts = found.map((a) => a.value);
        return found.map((a) => ({ kind: ARTIFACT, id: a.id, expect: a.version, before: a.value, after: null }));
      });
      await releaseBinaries(deps, ctx.tenant, artifacts.map((a) => a.hashes.sha1));
    },
  });
}
