/**
 * Invalidating a distribution set: `POST /rest/v1/distributionsets/{id}/invalidate` with
 * `{"actionCancelationType": "soft" | "force" | "none"}`. The set becomes `valid: false` (no new
 * assignments), target filters stop auto-assigning it, and its open actions are canceled (soft) or
 * canceled and force-quit (force). Rollouts are not stopped here: no rollout records exist yet.
 * @see reference §3.9
 */
import { z } from 'zod';
import type { Services } from '../../app/services.js';
import { ACTION, type ActionRecord } from '../../domain/action.js';
import { touched } from '../../domain/audit.js';
import { AppError } from '../../domain/errors.js';
import { DS, type DistributionSetRecord } from '../../domain/repository.js';
import { readJson } from '../../http/json.js';
import type { Route } from '../../http/types.js';
import { SCAN_LIMIT } from '../kit/listing.js';
import { loadOr404, updateRecord } from '../kit/entities.js';
import { areaAuth, principalOf } from './auth.js';
import { clearAutoAssignments } from './distribution-sets.js';
import { joinDistributionSets, loadById } from './joins.js';
import { pathId } from './params.js';
import { assertLive } from './rules.js';

const LABEL = 'DistributionSet';
const body = z.object({ actionCancelationType: z.enum(['soft', 'force', 'none']) });

export function dsLifecycleRoutes(services: Services): Route[] {
  const auth = areaAuth(services, 'DISTRIBUTION_SET');
  return [{
    method: 'POST', path: '/rest/v1/distributionsets/:distributionSetId/invalidate', auth: auth.update,
    handler: async (req) => {
      const { tenant, username } = principalOf(req);
      const id = pathId(req, 'distributionSetId', LABEL);
      const { actionCancelationType: mode } = readJson(req, body);
      const store = services.ctx.store;
      const ds = await loadOr404<DistributionSetRecord>(store, tenant, DS, id, LABEL);
      assertLive(ds.value, LABEL);
      const [view] = await joinDistributionSets(store, tenant, [ds.value]);
      if (view?.complete !== true) throw new AppError('DS_INCOMPLETE', `distribution set ${id} is incomplete and cannot be invalidated`);
      await updateRecord<DistributionSetRecord>(store, tenant, DS, id, LABEL, (d) => (d.valid ? touched({ ...d, valid: false }, username, services.now()) : d));
      await clearAutoAssignments(services, tenant, id, username);
      if (mode !== 'none') await cancelActions(services, tenant, id, username, mode === 'force');
      return { status: 204 };
    },
  }];
}

async function cancelActions(services: Services, tenant: string, dsId: number, username: string, force: boolean): Promise<void> {
  const ids = (await services.ctx.store.members(tenant, ACTION, 'ds', String(dsId), { offset: 0, limit: SCAN_LIMIT })).ids;
  const actions = await loadById<ActionRecord>(services.ctx.store, tenant, ACTION, ids);
  const effectIds: string[] = [];
  for (const action of actions.values()) {
    if (!action.active) continue;
    const steps = force ? (['mgmt.cancel', 'mgmt.forceQuit'] as const) : (['mgmt.cancel'] as const);
    for (const type of steps) {
      const event = type === 'mgmt.cancel' ? { type, at: services.now(), by: username, reason: 'manual' as const } : { type, at: services.now(), by: username };
      const result = await services.runtime.send(tenant, ACTION, action.id, event);
      if (result.kind === 'committed') effectIds.push(...result.effectIds);
    }
  }
  // the next request sees the targets' state after the cancelations
  if (effectIds.length > 0) await services.dispatcher.settle(effectIds);
}
