/**
 * Invalidating a distribution set: `POST /rest/v1/distributionsets/{id}/invalidate` with
 * `{"actionCancelationType": "soft" | "force" | "none"}`. The set becomes `valid: false` (no new
 * assignments), target filters stop auto-assigning it, and its open actions are canceled (soft) or
 * canceled and force-quit (force); its rollouts are stopped (soft) or deleted (force), and the rollout
 * engine does the rest.
 * @see reference §3.9
 */
import { z } from 'zod';
import { ACTION, type ActionRecord } from '../../domain/action.js';
import { touched } from '../../domain/audit.js';
import { AppError } from '../../domain/errors.js';
import { DS } from '../../domain/repository.js';
import { ROLLOUT } from '../../domain/rollout.js';
import type { Route } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import { SCAN_ALL, loadRecords } from '../../store/reads.js';
import { ACCESS } from '../kit/access.js';
import { readBody } from '../kit/body.js';
import { callerOf, pathId } from '../kit/request.js';
import { loadOr404, updateRecord } from '../kit/store.js';
import type { RepositoryDeps } from './deps.js';
import { clearAutoAssignments } from './distribution-sets.js';
import { assertLive } from './rules.js';
import { joinDistributionSets } from './views.js';

const LABEL = 'DistributionSet';
const body = z.object({ actionCancelationType: z.enum(['soft', 'force', 'none']) });

export function dsLifecycleRoutes(deps: RepositoryDeps): Route[] {
  return [{
    method: 'POST', path: '/rest/v1/distributionsets/:distributionSetId/invalidate', auth: deps.mgmtAuth(ACCESS.distributionSet.update),
    doc: { summary: 'Invalidate a distribution set', body, response: { status: 204 } },
    handler: async (req) => {
      const { tenant, username } = callerOf(req);
      const id = pathId(req, 'distributionSetId', LABEL);
      const { actionCancelationType: mode } = readBody(req, body);
      const ds = await loadOr404(deps.store, tenant, DS, id);
      assertLive(ds.value, LABEL);
      const [view] = await joinDistributionSets(deps, tenant, [ds.value]);
      if (view?.complete !== true) throw new AppError('DS_INCOMPLETE', `distribution set ${id} is incomplete and cannot be invalidated`);
      await updateRecord(deps.store, tenant, DS, id, (d) => (d.valid ? touched({ ...d, valid: false }, username, deps.now()) : d));
      await clearAutoAssignments(deps, { tenant, by: username }, id);
      if (mode !== 'none') await endRollouts(deps, tenant, id, username, mode === 'force');
      if (mode !== 'none') await cancelActions(deps, tenant, id, username, mode === 'force');
      return { status: 204 };
    },
  }];
}

async function endRollouts(deps: RepositoryDeps, tenant: Tenant, dsId: number, by: string, force: boolean): Promise<void> {
  const at = deps.now();
  for (const id of (await deps.store.members(tenant, ROLLOUT, 'ds', String(dsId), SCAN_ALL)).ids) {
    await deps.runtime.send(tenant, ROLLOUT, id, force ? { type: 'mgmt.delete', at, by } : { type: 'mgmt.stop', at, by });
  }
}

async function cancelActions(deps: RepositoryDeps, tenant: Tenant, dsId: number, by: string, force: boolean): Promise<void> {
  const ids = (await deps.store.members(tenant, ACTION, 'ds', String(dsId), SCAN_ALL)).ids;
  const effectIds: string[] = [];
  for (const { value: action } of await loadRecords<ActionRecord>(deps.store, tenant, ACTION, ids)) {
    if (!action.active) continue;
    const canceled = await deps.runtime.send(tenant, ACTION, action.id, { type: 'mgmt.cancel', at: deps.now(), by, reason: 'manual' });
    if (canceled.kind === 'committed') effectIds.push(...canceled.effectIds);
    if (!force) continue;
    const quit = await deps.runtime.send(tenant, ACTION, action.id, { type: 'mgmt.forceQuit', at: deps.now(), by });
    if (quit.kind === 'committed') effectIds.push(...quit.effectIds);
  }
  // the next request sees the targets' state after the cancelations
  if (effectIds.length > 0) await deps.dispatcher.settle(effectIds);
}
