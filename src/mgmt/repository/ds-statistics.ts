/**
 * Statistics of a distribution set: `GET /rest/v1/distributionsets/{id}/statistics` (actions and
 * rollouts counted by status, with a `total` each, and the number of auto-assignments) and its parts
 * `/statistics/actions`, `/statistics/rollouts`, `/statistics/autoassignments`, in hawkBit's JSON
 * (MgmtDistributionSetStatistics, NON_EMPTY): statuses are the enum names (`RUNNING`, `FINISHED`,
 * ...); the full answer always has all three fields, a part leaves out what is empty (hawkBit's
 * count of auto-assignments is null, so left out, when there are none).
 * @see reference §3.9
 */
import { z } from 'zod';
import { ACTION, type ActionRecord } from '../../domain/action.js';
import { DS } from '../../domain/repository.js';
import { ROLLOUT, type RolloutRecord } from '../../domain/rollout.js';
import { TARGET_FILTER } from '../../domain/targeting.js';
import type { Request, Route } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { countValues } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import type { KitDeps } from '../kit/deps.js';
import { callerOf, pathId } from '../kit/request.js';
import { loadOr404 } from '../kit/store.js';

type Counts = Record<string, number>;

const counts = z.record(z.string(), z.number().int()).describe('counts by status name (RUNNING, FINISHED, ...) and their total');
/** MgmtDistributionSetStatistics: the full answer has all three, a part only what is not empty. */
const statistics = z.looseObject({
  actions: counts.optional(), rollouts: counts.optional(), totalAutoAssignments: z.number().int().optional(),
}).meta({ id: 'MgmtDistributionSetStatistics' });

/** hawkBit's map of counts by status name with their `total`. */
function withTotal(counts: ReadonlyMap<string, number>): Counts {
  const out: Counts = Object.fromEntries(counts);
  out['total'] = [...counts.values()].reduce((a, b) => a + b, 0);
  return out;
}

export function dsStatisticsRoutes(deps: KitDeps): Route[] {
  const base = '/rest/v1/distributionsets/:distributionSetId/statistics';
  const auth = deps.mgmtAuth(ACCESS.distributionSet.read);
  /** The set's id (404 when there is no such set) and tenant. */
  const setOf = async (req: Request): Promise<{ tenant: Tenant; key: string }> => {
    const { tenant } = callerOf(req);
    const ds = await loadOr404(deps.store, tenant, DS, pathId(req, 'distributionSetId', 'DistributionSet'));
    return { tenant, key: String(ds.id) };
  };
  const actions = (tenant: Tenant, key: string) =>
    countValues(deps.store, tenant, ACTION, 'ds', key, (a: ActionRecord) => a.status.toUpperCase());
  const rollouts = (tenant: Tenant, key: string) =>
    countValues(deps.store, tenant, ROLLOUT, 'ds', key, (r: RolloutRecord) => r.status.toUpperCase());
  const autoAssignments = (tenant: Tenant, key: string) => deps.store.count(tenant, TARGET_FILTER, 'autoAssignDs', key);
  return [
    {
      method: 'GET', path: base, auth, doc: { response: statistics },
      handler: async (req) => {
        const { tenant, key } = await setOf(req);
        const [a, r, n] = await Promise.all([actions(tenant, key), rollouts(tenant, key), autoAssignments(tenant, key)]);
        return { status: 200, json: { actions: withTotal(a), rollouts: withTotal(r), totalAutoAssignments: n } };
      },
    },
    {
      method: 'GET', path: `${base}/actions`, auth, doc: { response: statistics },
      handler: async (req) => {
        const { tenant, key } = await setOf(req);
        const a = await actions(tenant, key);
        return { status: 200, json: a.size === 0 ? {} : { actions: withTotal(a) } };
      },
    },
    {
      method: 'GET', path: `${base}/rollouts`, auth, doc: { response: statistics },
      handler: async (req) => {
        const { tenant, key } = await setOf(req);
        const r = await rollouts(tenant, key);
        return { status: 200, json: r.size === 0 ? {} : { rollouts: withTotal(r) } };
      },
    },
    {
      method: 'GET', path: `${base}/autoassignments`, auth, doc: { response: statistics },
      handler: async (req) => {
        const { tenant, key } = await setOf(req);
        const n = await autoAssignments(tenant, key);
        return { status: 200, json: n === 0 ? {} : { totalAutoAssignments: n } };
      },
    },
  ];
}
