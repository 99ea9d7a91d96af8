/**
 * Distribution set types: `/rest/v1/distributionsettypes`.
 * @see reference §3.10, spec 2.5 and 4.3
 */
import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { DS_TYPE } from '../../domain/repository.js';
import { TARGET_TYPE } from '../../domain/targeting.js';
import type { Route } from '../../http/types.js';
import { ACCESS } from '../kit/access.js';
import { colour, description, idRef, name, typeKey } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { jsonOf, lookUpdate, namedRoutes, softDelete } from '../kit/named.js';
import { distributionSetTypeResponse } from './responses.js';
import type { RepositoryDeps } from './deps.js';
import { dsTypeInUse, liveSmTypes, moduleTypeLists, type TypeRuleDeps } from './ds-type-rules.js';
import { distributionSetTypeFields } from './fields.js';
import { dsTypeJson } from './json.js';

const createItem = z.object({
  name,
  key: typeKey,
  description,
  colour,
  mandatorymodules: z.array(idRef).nullish(),
  optionalmodules: z.array(idRef).nullish(),
});

export function dsTypeRoutes(deps: KitDeps & TypeRuleDeps & Pick<RepositoryDeps, 'tenantConfig'>): Route[] {
  return namedRoutes(deps, {
    kind: DS_TYPE,
    path: '/rest/v1/distributionsettypes',
    idParam: 'distributionSetTypeId',
    access: ACCESS.distributionSetType,
    render: jsonOf(dsTypeJson),
    schema: distributionSetTypeResponse,
    list: { fields: distributionSetTypeFields, softDeleted: true },
    create: {
      item: createItem,
      build: async (ctx, items) => {
        const lists = items.map((b) => moduleTypeLists(
          deps,
          (b.mandatorymodules ?? []).map((r) => r.id),
          (b.optionalmodules ?? []).map((r) => r.id),
        ));
        await liveSmTypes(deps, ctx.tenant, lists.flatMap((l) => [...l.mandatory, ...l.optional]));
        return items.map((b, i) => (id, audit) => ({
          id, key: b.key, name: b.name, description: b.description ?? null, colour: b.colour ?? null,
          mandatory: lists[i]?.mandatory ?? [], optional: lists[i]?.optional ?? [], deleted: false, ...audit,
        }));
      },
    },
    // hawkBit changes only the description and colour of a type
    update: lookUpdate(false),
    // used by a set, or named compatible by a target type: keep the record (soft delete)
    remove: async (ctx, t) => {
      const used = (await dsTypeInUse(deps, ctx.tenant, t.id)) || (await deps.store.count(ctx.tenant, TARGET_TYPE, 'dsType', String(t.id))) > 0;
      // the tenant's default.ds.type must keep naming a record (hawkBit's foreign key refuses removing it)
      if (!used && t.id === (await deps.tenantConfig.defaultDsType(ctx.tenant))) {
        throw new AppError('CONSTRAINT_VIOLATION', `distribution set type '${t.key}' is the tenant's default.ds.type; make another type the default first`);
      }
      await softDelete(deps, ctx, DS_TYPE, t.id, used);
    },
  });
}
