import type { ActionRecord, ActionStatusRecord } from '../../domain/action.js';
import { windowState } from '../../domain/maintenance.js';
import { parseDuration } from '../../domain/tenant-config.js';
import type { Request } from '../../http/types.js';
import type { Tenant } from '../../store/port.js';
import type { KitDeps } from '../kit/deps.js';
import { auditJson, link, segment, type Link } from '../kit/hal.js';
import type { ManagementApiGeneration } from '../../domain/compat.js';
import { pendingOrFinished } from './action-fields.js';
import { loadJoins } from './joins.js';

/**
 * Action JSON of the 0.5-0.9 API (spec 2.10): `status` pending|finished plus `detailStatus`, with the
 * newer fields (`active`, `maintenanceWindow.nextStartAt`, `lastStatusCode`, ...) as additions; with
 * `compat.managementApi` "1.x", hawkBit 1.x's MgmtAction: `status` is the detailed status in lower
 * case (MgmtTargetMapper: `action.getStatus().toString().toLowerCase()`) beside `active`, and no
 * `detailStatus`. Null fields are left out, as hawkBit's NON_NULL inclusion does.
 * @see reference/hawkbit-api.md §3.6
 */
export function actionPath(a: Pick<ActionRecord, 'controllerId' | 'id'>): string {
  return `/rest/v1/targets/${segment(a.controllerId)}/actions/${a.id}`;
}

/**
 * Renders actions in the tenant's generation; `full` adds the target, distribution set, status,
 * rollout and canceledaction links.
 */
export async function renderActions(
  deps: Pick<KitDeps, 'store' | 'now'>, tenant: Tenant, req: Request, actions: readonly ActionRecord[],
  opts: { full?: boolean; generation: ManagementApiGeneration },
): Promise<object[]> {
  const full = opts.full === true;
  const status = opts.generation === '1.x'
    ? (a: ActionRecord) => ({ status: a.status })
    : (a: ActionRecord) => ({ status: pendingOrFinished(a), detailStatus: a.status });
  const joins = await loadJoins(deps.store, tenant, actions, new Set(full ? ['targets', 'sets', 'rollouts'] as const : ['rollouts'] as const));
  const now = deps.now();
  return actions.map((a) => {
    const self = actionPath(a);
    const cancel = a.status === 'canceling' || a.status === 'canceled';
    const rolloutName = a.rollout === null ? undefined : joins.rolloutName(a.rollout);
    const links: Record<string, Link> = { self: link(req, self) };
    if (full) {
      const target = joins.target(a.targetId);
      const ds = joins.ds(a.ds);
      links['target'] = link(req, `/rest/v1/targets/${segment(a.controllerId)}`, target?.name ?? a.controllerId);
      links['distributionset'] = ds === undefined
        ? link(req, `/rest/v1/distributionsets/${a.ds}`)
        : link(req, `/rest/v1/distributionsets/${a.ds}`, `${ds.name}:${ds.version}`);
      links['status'] = link(req, `${self}/status?offset=0&limit=50&sort=id:DESC`);
      if (a.rollout !== null) links['rollout'] = link(req, `/rest/v1/rollouts/${a.rollout}`, rolloutName);
      if (cancel) links['canceledaction'] = link(req, self);
    }
    return {
      ...auditJson(a),
      id: a.id,
      type: cancel ? 'cancel' : 'update',
      ...status(a),
      active: a.active,
      forceType: a.actionType,
      ...(a.actionType === 'timeforced' ? { forceTime: a.forceTime } : {}),
      ...(a.weight === null ? {} : { weight: a.weight }),
      ...(a.maintenanceWindow === null ? {} : { maintenanceWindow: windowJson(a.maintenanceWindow, now) }),
      ...(a.rollout === null ? {} : { rollout: a.rollout }),
      ...(rolloutName === undefined ? {} : { rolloutName }),
      // the rollback of an aborted rollout (issue 25); other actions have no such field
      ...(a.rollback === true ? { rollback: true } : {}),
      // a retry of its rollout's `retry` (issue 25): the attempt of its target, from 2
      ...(a.attempt !== undefined && a.attempt > 1 ? { attempt: a.attempt } : {}),
      ...(a.lastStatusCode === null ? {} : { lastStatusCode: a.lastStatusCode }),
      ...(a.externalRef === null ? {} : { externalRef: a.externalRef }),
      _links: links,
    };
  });
}

/** `nextStartAt`: the start of the window we are in, else of the next one (hawkBit's getMaintenanceWindowStartTime). */
function windowJson(w: NonNullable<ActionRecord['maintenanceWindow']>, now: number): object {
  let nextStartAt: number | null = null;
  try {
    const state = windowState(w, now);
    nextStartAt = state.available ? windowState(w, now - (parseDuration(w.duration) ?? 0)).nextStart : state.nextStart;
  } catch {
    // a schedule that no longer parses shows without a start
  }
  return { schedule: w.schedule, duration: w.duration, timezone: w.timezone, ...(nextStartAt === null ? {} : { nextStartAt }) };
}

/** One entry of `GET .../actions/{id}/status` (reference §3.6 ActionStatus). */
export function renderActionStatus(s: ActionStatusRecord): object {
  return {
    id: s.id,
    type: s.type,
    messages: s.messages,
    reportedAt: s.reportedAt,
    timestamp: s.timestamp,
    ...(s.code === null ? {} : { code: s.code }),
  };
}
