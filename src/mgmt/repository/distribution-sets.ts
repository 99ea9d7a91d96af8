/**
 * Distribution sets: `/rest/v1/distributionsets[/{id}]`.
 * @see reference §3.9, spec 2.7 and 4.3
 */
import { z } from 'zod';
import { touched } from '../../domain/audit.js';
import { AppError } from '../../domain/errors.js';
import { DS } from '../../domain/repository.js';
import { TARGET_FILTER } from '../../domain/targeting.js';
import type { Route } from '../../http/types.js';
import { SCAN_ALL } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { bool, description, given, idRef, name, typeKey, version } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { namedRoutes, softDelete, type Context } from '../kit/named.js';
import { distributionSetResponse } from './responses.js';
import { updateRecord } from '../kit/store.js';
import type { RepositoryDeps } from './deps.js';
import { addModules, dsTypeOfNewSet, isAssigned, liveModules } from './ds-rules.js';
import { distributionSetFields, joinSetsForQuery } from './fields.js';
import { assertLive } from './rules.js';
import { renderDistributionSets } from './views.js';

const createItem = z.object({
  name,
  version,
  description,
  type: typeKey.nullish(),
  modules: z.array(idRef).nullish(),
  // the 0.5-0.9 shortcuts for one module each (reference §10)
  os: idRef.nullish(),
  runtime: idRef.nullish(),
  application: idRef.nullish(),
  requiredMigrationStep: bool().nullish(),
  locked: bool().nullish(),
});
const updateBody = z.object({
  name: name.nullish(), version: version.nullish(), description, locked: bool().nullish(), requiredMigrationStep: bool().nullish(),
});

export function distributionSetRoutes(deps: RepositoryDeps): Route[] {
  return namedRoutes(deps, {
    kind: DS,
    path: '/rest/v1/distributionsets',
    idParam: 'distributionSetId',
    access: ACCESS.distributionSet,
    render: (req, tenant, sets) => renderDistributionSets(deps, tenant, req, sets),
    schema: distributionSetResponse,
    list: {
      fields: distributionSetFields,
      softDeleted: true,
      views: { join: (tenant, sets, joins) => joinSetsForQuery(deps, tenant, sets, joins), record: (v) => v.ds },
    },
    create: {
      item: createItem,
      build: async (ctx, items) => {
        const prepared = [];
        for (const b of items) {
          const type = await dsTypeOfNewSet(deps, ctx.tenant, b.type ?? undefined);
          const ids = [...(b.modules ?? []), ...[b.os, b.runtime, b.application].filter(given)].map((r) => r.id);
          prepared.push({ b, type, modules: addModules(deps, type, [], await liveModules(deps, ctx.tenant, ids)) });
        }
        return prepared.map(({ b, type, modules }) => (id, audit) => ({
          id, name: b.name, version: b.version, description: b.description ?? null, type: type.id, modules: modules.map((m) => m.sm.id),
          requiredMigrationStep: b.requiredMigrationStep ?? false, locked: b.locked ?? false, valid: true, deleted: false,
          tags: [], metadata: {}, ...audit,
        }));
      },
    },
    update: {
      body: updateBody,
      apply: async (ctx, d, body) => {
        assertLive(d, 'DistributionSet');
        const migration = body.requiredMigrationStep;
        if (given(migration) && migration !== d.requiredMigrationStep && (await isAssigned(deps, ctx.tenant, d.id))) {
          throw new AppError('READ_ONLY', `distribution set ${d.id} is assigned to targets; requiredMigrationStep can no longer change`);
        }
        return {
          ...d,
          name: body.name ?? d.name,
          version: body.version ?? d.version,
          description: given(body.description) ? body.description : d.description,
          locked: given(body.locked) ? body.locked : d.locked,
          requiredMigrationStep: given(migration) ? migration : d.requiredMigrationStep,
        };
      },
    },
    /**
     * A set that actions refer to is soft-deleted (history and devices keep it); any other is
     * removed. Either way target filters stop auto-assigning it, as hawkBit does on delete.
     */
    remove: async (ctx, d) => {
      await clearAutoAssignments(deps, ctx, d.id);
      await softDelete(deps, ctx, DS, d.id, await isAssigned(deps, ctx.tenant, d.id));
    },
  });
}

/** Target filters that auto-assign this set stop doing so. */
export async function clearAutoAssignments(deps: Pick<KitDeps, 'store' | 'now'>, ctx: Context, dsId: number): Promise<void> {
  const filters = await deps.store.members(ctx.tenant, TARGET_FILTER, 'autoAssignDs', String(dsId), SCAN_ALL);
  for (const filterId of filters.ids) {
    await updateRecord(deps.store, ctx.tenant, TARGET_FILTER, filterId, (f) => (f.autoAssignDs !== dsId ? f : touched({
      ...f, autoAssignDs: null, autoAssignActionType: null, autoAssignWeight: null, confirmationRequired: null, autoAssignInitiatedBy: null,
    }, ctx.by, deps.now())));
  }
}
