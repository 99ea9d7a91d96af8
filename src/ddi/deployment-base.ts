/**
 * `GET .../deploymentBase/{actionId}` (the device fetches its action: RETRIEVED), `GET
 * .../installedBase/{actionId}` (its last installed action) and `PUT .../installedBase` (set running
 * version: the device reports the DS it runs, recorded as an offline assignment; it also decides an
 * install waiting for verification, install-check.ts).
 * @see reference/hawkbit-api.md §1.1 rows 5, 10, 11; §1.4
 */
import type { DdiDeps } from './deps.js';
import { assignOffline } from '../actors/assign.js';
import { maintenanceState } from '../device/active-actions.js';
import { checkShownSet } from '../device/install-verification.js';
import { sendToAction } from '../device/reports.js';
import { notFound } from '../domain/errors.js';
import { DS, type DistributionSetRecord } from '../domain/repository.js';
import type { Handler } from '../http/types.js';
import { readJson } from '../http/json.js';
import { actionEndpoint, historyParam, linkedFetchParams, windowOrGone } from './action-endpoint.js';
import { assignedVersionBody } from './bodies.js';
import { device, requireTarget } from './device.js';
import { deploymentJson, setModulesOf } from './deployment-json.js';
import { heldMemo, keepable, memoReply, remember } from './deployment-replies.js';

/** Actions a device must not fetch as a deployment: not started, waiting for confirmation, being cancelled. */
const HIDDEN = new Set(['scheduled', 'wait_for_confirmation', 'canceling', 'canceled']);

export function deploymentBaseHandler(services: DdiDeps): Handler {
  const sets = setModulesOf(services.store.cached);
  return actionEndpoint(services, {
    read: linkedFetchParams,
    shows: (a) => !HIDDEN.has(a.status),
    // as the poll reads it (coherent: this process's writes at once, other processes' when Redis's invalidation arrives)
    cached: true,
    serve: async (call) => {
      const { action, params: history } = call;
      const now = services.now();
      // a fetch with nothing to do but answer: the reply kept for the action (deployment-replies.ts)
      if (history === 0 && keepable(action.value, now)) {
        const { req, d } = call;
        const memo = heldMemo(action, req, d, sets.peek(d.tenant, action.value.ds))
          ?? remember(action, req, d, await sets.get(d.tenant, action.value.ds), now);
        return memoReply(memo);
      }
      const state = await windowOrGone(services, call, now);
      // hawkBit serves closed actions here too; only an active one records the retrieval, once in a row
      // (the action's own guard; checked here first so a repeated fetch costs no actor round)
      const retrieve = action.value.active && action.value.lastEntry !== 'retrieved';
      const record = retrieve ? ((await sendToAction(services, call.d.tenant, action, { type: 'device.retrieved', at: now })) ?? action.value) : action.value;
      return { status: 200, json: await deploymentJson(services, call.req, call.d, record, { key: 'deployment', history, state, now }) };
    },
  });
}

/** Closed actions that installed (or downloaded, or failed to install) something. */
const INSTALLED = new Set(['finished', 'error', 'downloaded']);

export function installedBaseHandler(services: DdiDeps): Handler {
  return actionEndpoint(services, {
    read: historyParam,
    shows: (a) => INSTALLED.has(a.status),
    serve: async ({ req, d, action, params: history }) => {
      const now = services.now();
      const state = maintenanceState(action.value, now);
      return { status: 200, json: await deploymentJson(services, req, d, action.value, { key: 'deployment', history, state, now }) };
    },
  });
}

/** 201 when the DS is newly recorded as installed, 200 when it was assigned already (or an update is pending). */
export function setRunningVersionHandler(services: DdiDeps): Handler {
  return async (req) => {
    const d = device(req);
    const target = requireTarget(d);
    const body = readJson(req, assignedVersionBody);
    // verifyInstall: the set it runs decides the action it closed with success, whatever the answer below
    if (target.verifyAction != null) await checkShownSet(services, d.tenant, target, body, services.now());
    const store = services.store;
    const dsId = await store.lookup(d.tenant, DS, 'nameVersion', `${body.name.toLowerCase()}\u0000${body.version.toLowerCase()}`);
    const ds = dsId === undefined ? undefined : (await store.get<DistributionSetRecord>(d.tenant, DS, dsId))?.value;
    if (ds === undefined || ds.deleted) throw notFound('DistributionSet', `${body.name}:${body.version}`);
    const outcome = await assignOffline(
      { store, runtime: services.runtime, maxActionsPerTarget: services.quotas.maxActionsPerTarget },
      d.tenant,
      {
        targetId: target.id, ds: ds.id, actionType: 'forced', forceTime: 0, weight: null, confirmationRequired: false, maintenanceWindow: null,
        by: d.controllerId, message: `Installed version ${ds.name}:${ds.version} reported by target '${d.controllerId}'`,
      },
      services.now(),
    );
    if (outcome.kind === 'alreadyAssigned') return { status: 200 };
    await services.dispatcher.settle(outcome.effectIds);
    return { status: 201 };
  };
}
