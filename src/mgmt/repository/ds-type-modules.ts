/**
 * The module-type lists of a distribution set type:
 * `/rest/v1/distributionsettypes/{id}/mandatorymoduletypes[/{smTypeId}]` and `.../optionalmoduletypes[/...]`.
 * Adding a type to one list takes it out of the other (a module type has one role per set type).
 * @see reference §3.10, spec 4.3
 */
import type { Services } from '../../app/services.js';
import { touched } from '../../domain/audit.js';
import { notFound } from '../../domain/errors.js';
import { DS_TYPE, SM_TYPE, type DistributionSetTypeRecord, type SoftwareModuleTypeRecord } from '../../domain/repository.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { loadOr404, updateRecord } from '../kit/entities.js';
import { areaAuth, principalOf } from './auth.js';
import { assertModuleTypesChangeable, liveSmTypes, moduleTypeLists } from './ds-type-rules.js';
import { loadById } from './joins.js';
import { smTypeJson } from './json.js';
import { pathId } from './params.js';
import { idRef } from './schemas.js';

const LABEL = 'DistributionSetType';
const BASE = '/rest/v1/distributionsettypes/:distributionSetTypeId';
const addBody = acceptSingleAsArray(idRef);

type Role = 'mandatory' | 'optional';
const SEGMENT: Record<Role, string> = { mandatory: 'mandatorymoduletypes', optional: 'optionalmoduletypes' };

export function dsTypeModuleRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET_TYPE');
  const store = () => services.ctx.store;
  const typeId = (req: Request) => pathId(req, 'distributionSetTypeId', LABEL);
  const smTypeId = (req: Request) => pathId(req, 'softwareModuleTypeId', 'SoftwareModuleType');

  const routesFor = (role: Role): Route[] => [
    {
      method: 'GET', path: `${BASE}/${SEGMENT[role]}`, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const type = (await loadOr404<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, typeId(req), LABEL)).value;
        const smTypes = await loadById<SoftwareModuleTypeRecord>(store(), tenant, SM_TYPE, type[role]);
        const list = type[role].map((id) => smTypes.get(id)).filter((t): t is SoftwareModuleTypeRecord => t !== undefined);
        return { status: 200, json: list.map((t) => smTypeJson(req, t)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/${SEGMENT[role]}/:softwareModuleTypeId`, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const type = (await loadOr404<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, typeId(req), LABEL)).value;
        const id = smTypeId(req);
        if (!type[role].includes(id)) throw notFound('SoftwareModuleType', id);
        const smType = await loadOr404<SoftwareModuleTypeRecord>(store(), tenant, SM_TYPE, id, 'SoftwareModuleType');
        return { status: 200, json: smTypeJson(req, smType.value) };
      },
    },
    {
      method: 'POST', path: `${BASE}/${SEGMENT[role]}`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = typeId(req);
        const added = readJson(req, addBody).map((r) => r.id);
        await loadOr404(store(), tenant, DS_TYPE, id, LABEL);
        await liveSmTypes(services, tenant, added);
        await updateRecord<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, id, LABEL, async (t) => {
          const missing = added.filter((a) => !t[role].includes(a));
          if (missing.length === 0) return t;
          await assertModuleTypesChangeable(services, tenant, t);
          const lists = role === 'mandatory'
            ? moduleTypeLists(services, [...t.mandatory, ...missing], t.optional)
            : moduleTypeLists(services, t.mandatory.filter((m) => !missing.includes(m)), [...t.optional, ...missing]);
          return touched({ ...t, ...lists }, username, services.now());
        });
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/${SEGMENT[role]}/:softwareModuleTypeId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = typeId(req);
        const removed = smTypeId(req);
        await loadOr404(store(), tenant, DS_TYPE, id, LABEL);
        await loadOr404(store(), tenant, SM_TYPE, removed, 'SoftwareModuleType');
        await updateRecord<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, id, LABEL, async (t) => {
          if (!t[role].includes(removed)) return t;
          await assertModuleTypesChangeable(services, tenant, t);
          return touched({ ...t, [role]: t[role].filter((m) => m !== removed) }, username, services.now());
        });
        return { status: 204 };
      },
    },
  ];
  return [...routesFor('mandatory'), ...routesFor('optional')];
}
