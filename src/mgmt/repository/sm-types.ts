/**
 * Software module types: `/rest/v1/softwaremoduletypes`.
 * @see reference §3.13, spec 2.5 and 4.3
 */
import { z } from 'zod';
import { DS_TYPE, SM, SM_TYPE, type DistributionSetTypeRecord } from '../../domain/repository.js';
import type { Route } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { colour, description, int, name, typeKey } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { jsonOf, lookUpdate, namedRoutes, softDelete } from '../kit/named.js';
import { softwareModuleTypeResponse } from './responses.js';
import { softwareModuleTypeFields } from './fields.js';
import { smTypeJson } from './json.js';

const createItem = z.object({
  name, key: typeKey, description, colour, maxAssignments: int(1, 2_147_483_647).optional(), minArtifacts: int(0, 2_147_483_647).optional(),
});

export function smTypeRoutes(deps: KitDeps): Route[] {
  return namedRoutes(deps, {
    kind: SM_TYPE,
    path: '/rest/v1/softwaremoduletypes',
    idParam: 'softwareModuleTypeId',
    access: ACCESS.softwareModuleType,
    render: jsonOf(smTypeJson),
    schema: softwareModuleTypeResponse,
    list: { fields: softwareModuleTypeFields, softDeleted: true },
    create: {
      item: createItem,
      build: async (_ctx, items) => items.map((b) => (id, audit) => ({
        id, key: b.key, name: b.name, description: b.description ?? null, colour: b.colour ?? null,
        maxAssignments: b.maxAssignments ?? 1, minArtifacts: b.minArtifacts ?? 0, deleted: false, ...audit,
      })),
    },
    // hawkBit changes only the description and colour of a type (minArtifacts is set at creation)
    update: lookUpdate(false),
    // in use by a module or named by a set type: keep the record (soft delete), as hawkBit does
    remove: async (ctx, t) => softDelete(deps, ctx, SM_TYPE, t.id, await smTypeInUse(deps, ctx.tenant, t.id)),
  });
}

async function smTypeInUse(deps: KitDeps, tenant: Tenant, id: number): Promise<boolean> {
  if ((await deps.store.count(tenant, SM, 'type', String(id))) > 0) return true;
  const all = await deps.store.ids(tenant, DS_TYPE, SCAN_ALL);
  const types = await loadRecords<DistributionSetTypeRecord>(deps.store, tenant, DS_TYPE, all.ids);
  return types.some((t) => t.value.mandatory.includes(id) || t.value.optional.includes(id));
}
