/**
 * The module-type lists of a distribution set type:
 * `/rest/v1/distributionsettypes/{id}/mandatorymoduletypes[/{smTypeId}]` and `.../optionalmoduletypes[/...]`.
 * Adding a type to one list takes it out of the other (a module type has one role per set type).
 * @see reference §3.10, spec 4.3
 */
import { touched } from '../../domain/audit.js';
import { notFound } from '../../domain/errors.js';
import { DS_TYPE, SM_TYPE, type SoftwareModuleTypeRecord } from '../../domain/repository.js';
import type { Request, Route } from '../../http/types.js';
import { loadMap } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { idRefs, readBody } from '../kit/body.js';
import type { KitDeps } from '../kit/deps.js';
import { callerOf, pathId } from '../kit/request.js';
import { loadOr404, updateRecord } from '../kit/store.js';
import { assertModuleTypesChangeable, liveSmTypes, moduleTypeLists, type TypeRuleDeps } from './ds-type-rules.js';
import { smTypeJson } from './json.js';
import { z } from 'zod';
import { softwareModuleTypeResponse } from './responses.js';

const LABEL = 'DistributionSetType';
const BASE = '/rest/v1/distributionsettypes/:distributionSetTypeId';

type Role = 'mandatory' | 'optional';
const SEGMENT: Record<Role, string> = { mandatory: 'mandatorymoduletypes', optional: 'optionalmoduletypes' };

export function dsTypeModuleRoutes(deps: KitDeps & TypeRuleDeps): Route[] {
  const read = deps.mgmtAuth(ACCESS.distributionSetType.read);
  const update = deps.mgmtAuth(ACCESS.distributionSetType.update);
  const typeId = (req: Request) => pathId(req, 'distributionSetTypeId', LABEL);
  const smTypeId = (req: Request) => pathId(req, 'softwareModuleTypeId', 'SoftwareModuleType');

  const routesFor = (role: Role): Route[] => [
    {
      method: 'GET', path: `${BASE}/${SEGMENT[role]}`, auth: read, doc: { response: z.array(softwareModuleTypeResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const type = (await loadOr404(deps.store, tenant, DS_TYPE, typeId(req))).value;
        const smTypes = await loadMap<SoftwareModuleTypeRecord>(deps.store, tenant, SM_TYPE, type[role]);
        const list = type[role].map((id) => smTypes.get(id)).filter((t): t is SoftwareModuleTypeRecord => t !== undefined);
        return { status: 200, json: list.map((t) => smTypeJson(req, t)) };
      },
    },
    {
      method: 'GET', path: `${BASE}/${SEGMENT[role]}/:softwareModuleTypeId`, auth: read, doc: { response: softwareModuleTypeResponse },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const type = (await loadOr404(deps.store, tenant, DS_TYPE, typeId(req))).value;
        const id = smTypeId(req);
        if (!type[role].includes(id)) throw notFound('SoftwareModuleType', id);
        const smType = await loadOr404(deps.store, tenant, SM_TYPE, id);
        return { status: 200, json: smTypeJson(req, smType.value) };
      },
    },
    {
      method: 'POST', path: `${BASE}/${SEGMENT[role]}`, auth: update, doc: { body: idRefs, response: { status: 204 } },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const id = typeId(req);
        const added = readBody(req, idRefs).map((r) => r.id);
        await loadOr404(deps.store, tenant, DS_TYPE, id);
        await liveSmTypes(deps, tenant, added);
        await updateRecord(deps.store, tenant, DS_TYPE, id, async (t) => {
          const missing = added.filter((a) => !t[role].includes(a));
          if (missing.length === 0) return t;
          await assertModuleTypesChangeable(deps, tenant, t);
          const lists = role === 'mandatory'
            ? moduleTypeLists(deps, [...t.mandatory, ...missing], t.optional)
            : moduleTypeLists(deps, t.mandatory.filter((m) => !missing.includes(m)), [...t.optional, ...missing]);
          return touched({ ...t, ...lists }, username, deps.now());
        });
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/${SEGMENT[role]}/:softwareModuleTypeId`, auth: update, doc: { response: { status: 204 } },
      handler: async (req) => {
        const { tenant, username } = callerOf(req);
        const id = typeId(req);
        const removed = smTypeId(req);
        await loadOr404(deps.store, tenant, DS_TYPE, id);
        await loadOr404(deps.store, tenant, SM_TYPE, removed);
        await updateRecord(deps.store, tenant, DS_TYPE, id, async (t) => {
          if (!t[role].includes(removed)) return t;
          await assertModuleTypesChangeable(deps, tenant, t);
          return touched({ ...t, [role]: t[role].filter((m) => m !== removed) }, username, deps.now());
        });
        return { status: 204 };
      },
    },
  ];
  return [...routesFor('mandatory'), ...routesFor('optional')];
}
