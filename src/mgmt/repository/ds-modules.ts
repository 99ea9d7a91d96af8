/**
 * The modules of a distribution set: `/rest/v1/distributionsets/{id}/assignedSM[/{smId}]`.
 * Locked sets answer 423, sets already assigned to targets 403 (their content is frozen).
 * @see reference §3.9
 */
import { touched } from '../../domain/audit.js';
import { DS, DS_TYPE, SM, type DistributionSetRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import type { Request, Route } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { idRefs, readBody } from '../kit/body.js';
import { pageOf } from '../kit/hal.js';
import { listPage } from '../kit/list.js';
import { callerOf, pathId } from '../kit/request.js';
import { loadOr404, updateRecord } from '../kit/store.js';
import type { RepositoryDeps } from './deps.js';
import { addModules, assertModulesChangeable, liveModules } from './ds-rules.js';
import { joinModulesForQuery, softwareModuleFields } from './fields.js';
import { assertLive, assertUnlocked } from './rules.js';
import { joinSoftwareModules, renderSoftwareModules, type SmView } from './views.js';
import { pageSchema } from '../../apidoc/shapes.js';
import { softwareModuleResponse } from './responses.js';

const LABEL = 'DistributionSet';
const BASE = '/rest/v1/distributionsets/:distributionSetId/assignedSM';

export function dsModuleRoutes(deps: RepositoryDeps): Route[] {
  const idOf = (req: Request) => pathId(req, 'distributionSetId', LABEL);
  /** Changes the set's module list (`change` gets the set and returns the new list), stamping who did it. */
  const setModules = async (
    req: Request, what: string, change: (d: DistributionSetRecord) => Promise<readonly number[]>,
  ): Promise<void> => {
    const { tenant, username } = callerOf(req);
    await updateRecord(deps.store, tenant, DS, idOf(req), async (d) => {
      assertLive(d, LABEL);
      assertUnlocked(d, LABEL, what);
      const next = await change(d);
      if (next.length === d.modules.length && next.every((x, i) => x === d.modules[i])) return d;
      await assertModulesChangeable(deps, tenant, d);
      return touched({ ...d, modules: next }, username, deps.now());
    });
  };
  return [
    {
      method: 'GET', path: BASE, auth: deps.mgmtAuth(ACCESS.distributionSet.read),
      doc: { summary: "List a distribution set's software modules", list: true, response: pageSchema(softwareModuleResponse) },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const ds = (await loadOr404(deps.store, tenant, DS, idOf(req))).value;
        const page = await listPage(deps, tenant, req, {
          kind: SM, fields: softwareModuleFields, ids: ds.modules,
          join: (records: readonly SoftwareModuleRecord[], joins) => joinModulesForQuery(deps, tenant, records, joins),
        });
        return { status: 200, json: pageOf(await renderSoftwareModules(deps, tenant, req, page.content.map((v) => v.sm)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: deps.mgmtAuth(ACCESS.distributionSet.update),
      doc: { summary: 'Assign software modules to a distribution set', body: idRefs, response: { status: 204 } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        idOf(req);
        const added = await liveModules(deps, tenant, readBody(req, idRefs).map((r) => r.id));
        await setModules(req, 'assign software modules', async (d) => {
          const type = (await loadOr404(deps.store, tenant, DS_TYPE, d.type)).value;
          return addModules(deps, type, await modulesOf(deps, tenant, d), added).map((m) => m.sm.id);
        });
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:softwareModuleId`, auth: deps.mgmtAuth(ACCESS.distributionSet.update), doc: { response: { status: 204 } },
      handler: async (req) => {
        const { tenant } = callerOf(req);
        const smId = pathId(req, 'softwareModuleId', 'SoftwareModule');
        await loadOr404(deps.store, tenant, DS, idOf(req));
        await loadOr404(deps.store, tenant, SM, smId);
        await setModules(req, 'unassign software modules', async (d) => d.modules.filter((m) => m !== smId));
        return { status: 204 };
      },
    },
  ];
}

/** The set's current modules with their types (soft-deleted ones included: they stay in the set). */
async function modulesOf(deps: RepositoryDeps, tenant: Tenant, d: DistributionSetRecord): Promise<SmView[]> {
  const modules = await loadRecords<SoftwareModuleRecord>(deps.store, tenant, SM, d.modules);
  return joinSoftwareModules(deps, tenant, modules.map((m) => m.value));
}
