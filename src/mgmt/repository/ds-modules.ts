/**
 * The modules of a distribution set: `/rest/v1/distributionsets/{id}/assignedSM[/{smId}]`.
 * Locked sets answer 423, sets already assigned to targets 403 (their content is frozen).
 * @see reference §3.9
 */
import type { Services } from '../../app/services.js';
import { touched } from '../../domain/audit.js';
import { DS, DS_TYPE, SM, type DistributionSetRecord, type DistributionSetTypeRecord, type SoftwareModuleRecord } from '../../domain/repository.js';
import { acceptSingleAsArray, readJson } from '../../http/json.js';
import type { Request, Route } from '../../http/types.js';
import { loadOr404, updateRecord } from '../kit/entities.js';
import { pageOf } from '../kit/hal.js';
import { areaAuth, principalOf } from './auth.js';
import { addModules, assertModulesChangeable, liveModules } from './ds-rules.js';
import { softwareModuleFields } from './fields.js';
import { joinSoftwareModules, type SmView } from './joins.js';
import { listViews } from './listing.js';
import { pathId } from './params.js';
import { assertLive, assertUnlocked } from './rules.js';
import { idRef } from './schemas.js';
import { smJson } from './views.js';

const LABEL = 'DistributionSet';
const BASE = '/rest/v1/distributionsets/:distributionSetId/assignedSM';
const addBody = acceptSingleAsArray(idRef);

export function dsModuleRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET');
  const store = () => services.ctx.store;
  const idOf = (req: Request) => pathId(req, 'distributionSetId', LABEL);

  return [
    {
      method: 'GET', path: BASE, auth: auth.read,
      handler: async (req) => {
        const { tenant } = principalOf(req);
        const ds = (await loadOr404<DistributionSetRecord>(store(), tenant, DS, idOf(req), LABEL)).value;
        const page = await listViews<SoftwareModuleRecord, SmView>(services, tenant, req, {
          kind: SM, fields: softwareModuleFields, ids: ds.modules, join: (records) => joinSoftwareModules(store(), tenant, records),
        });
        return { status: 200, json: pageOf(page.content.map((v) => smJson(req, v)), page.total) };
      },
    },
    {
      method: 'POST', path: BASE, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        const ids = readJson(req, addBody).map((r) => r.id);
        const added = await liveModules(services, tenant, ids);
        await updateRecord<DistributionSetRecord>(store(), tenant, DS, id, LABEL, async (d) => {
          assertLive(d, LABEL);
          assertUnlocked(d, LABEL, 'assign software modules');
          const type = (await loadOr404<DistributionSetTypeRecord>(store(), tenant, DS_TYPE, d.type, 'DistributionSetType')).value;
          const current = await liveModulesOf(services, tenant, d);
          const next = addModules(services, type, current, added).map((m) => m.sm.id);
          if (sameList(next, d.modules)) return d;
          await assertModulesChangeable(services, tenant, d);
          return touched({ ...d, modules: next }, username, services.now());
        });
        return { status: 204 };
      },
    },
    {
      method: 'DELETE', path: `${BASE}/:softwareModuleId`, auth: auth.update,
      handler: async (req) => {
        const { tenant, username } = principalOf(req);
        const id = idOf(req);
        const smId = pathId(req, 'softwareModuleId', 'SoftwareModule');
        await loadOr404(store(), tenant, DS, id, LABEL);
        await loadOr404(store(), tenant, SM, smId, 'SoftwareModule');
        await updateRecord<DistributionSetRecord>(store(), tenant, DS, id, LABEL, async (d) => {
          assertLive(d, LABEL);
          assertUnlocked(d, LABEL, 'unassign software modules');
          if (!d.modules.includes(smId)) return d;
          await assertModulesChangeable(services, tenant, d);
          return touched({ ...d, modules: d.modules.filter((m) => m !== smId) }, username, services.now());
        });
        return { status: 204 };
      },
    },
  ];
}

/** The set's current modules with their types (soft-deleted ones included: they stay in the set). */
async function liveModulesOf(services: Services, tenant: string, d: DistributionSetRecord): Promise<SmView[]> {
  const found = await services.ctx.store.getMany<SoftwareModuleRecord>(tenant, SM, d.modules);
  return joinSoftwareModules(services.ctx.store, tenant, found.flatMap((f) => (f === undefined ? [] : [f.value])));
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
