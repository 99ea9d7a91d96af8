/**
 * The confirmation flow on the device side: `GET .../confirmationBase` (auto-confirm state and
 * links; registers an unknown target like the poll), `GET .../confirmationBase/{id}` (the action
 * waiting for confirmation), its feedback, and switching auto-confirmation on and off.
 * @see reference/hawkbit-api.md §1.1 rows 12-16, §1.7, §2 (DdiConfirmationBase)
 */
import type { DdiDeps } from './deps.js';
import { activateAutoConfirm, deactivateAutoConfirm } from '../actors/auto-confirm.js';
import { cancelLapsed, highestPriority, lapsed, maintenanceState } from '../device/active-actions.js';
import { sendToAction } from '../device/reports.js';
import { AppError, notFound } from '../domain/errors.js';
import type { TargetRecord } from '../domain/target.js';
import type { Handler } from '../http/types.js';
import { parseBody, validate } from '../http/json.js';
import { activeActionsOf } from '../store/named-reads.js';
import { actionEndpoint, linkedFetchParams, reportBody, windowOrGone } from './action-endpoint.js';
import { activateAutoConfirmBody, confirmationBody, messageCount } from './bodies.js';
import { addressOf, device, registerTarget, requireTarget } from './device.js';
import { deploymentJson } from './deployment-json.js';
import { deviceUrl } from './links.js';
import { linkHash } from './poll-values.js';
import type { PollRecorder } from './poll-recorder.js';

function autoConfirmJson(target: TargetRecord): object {
  const ac = target.autoConfirm;
  // hawkBit builds the inactive state with activatedAt 0 and NON_NULL inclusion, so 0 is sent (reference §2)
  if (ac === null) return { active: false, activatedAt: 0 };
  return {
    active: true,
    ...(ac.initiator === null ? {} : { initiator: ac.initiator }),
    ...(ac.remark === null ? {} : { remark: ac.remark }),
    activatedAt: ac.activatedAt,
  };
}

export function confirmationBaseHandler(services: DdiDeps, recorder: PollRecorder): Handler {
  return async (req) => {
    const d = device(req);
    const now = services.now();
    const address = addressOf(req);
    let target = d.target;
    if (target === undefined || target.updateStatus === 'unknown') target = await registerTarget(services, d, address, now);
    recorder.record(d.tenant, target.id, now, address);
    let top = highestPriority(await activeActionsOf(services.store, d.tenant, target.id));
    const state = top === undefined ? undefined : maintenanceState(top.value, now);
    if (top !== undefined && lapsed(state) && top.value.status !== 'canceling') top = await cancelLapsed(services, d.tenant, top, now);
    const base = `${deviceUrl(req, d)}/confirmationBase`;
    const links: Record<string, { href: string }> = {};
    if (target.autoConfirm === null) links['activateAutoConfirm'] = { href: `${base}/activateAutoConfirm` };
    else links['deactivateAutoConfirm'] = { href: `${base}/deactivateAutoConfirm` };
    if (top !== undefined && top.value.status === 'wait_for_confirmation') {
      links['confirmationBase'] = { href: `${base}/${top.value.id}?c=${linkHash(top, state, now)}` };
    }
    return { status: 200, json: { autoConfirm: autoConfirmJson(target), _links: links } };
  };
}

export function confirmationActionHandler(services: DdiDeps): Handler {
  return actionEndpoint(services, {
    read: linkedFetchParams,
    shows: (a) => a.status === 'wait_for_confirmation',
    serve: async (call) => {
      const now = services.now();
      const state = await windowOrGone(services, call, now);
      const json = await deploymentJson(services, call.req, call.d, call.action.value, { key: 'confirmation', history: call.params, state, now });
      return { status: 200, json };
    },
  });
}

export function confirmationFeedbackHandler(services: DdiDeps): Handler {
  return actionEndpoint(services, {
    read: (req) => reportBody(services, req, confirmationBody, messageCount),
    serve: async ({ d, action, params: body }) => {
      const a = action.value;
      if (!a.active) throw new AppError('ACTION_CLOSED', `Action ${a.id} is closed; it cannot be confirmed or denied.`);
      const waiting = a.status === 'wait_for_confirmation';
      if (body.confirmation === 'confirmed' && !waiting) throw notFound('Action', a.id);
      if (body.confirmation === 'denied' && !waiting) {
        // revoking a confirmed action needs the flow switched on (reference §1.7); a canceling one never
        const revocable = a.status !== 'canceling' && d.config.bool('user.confirmation.flow.enabled');
        if (!revocable) throw notFound('Action', a.id);
      }
      const now = services.now();
      const report = { at: now, timestamp: now, code: body.code ?? null, details: body.details ?? [] };
      await sendToAction(services, d.tenant, action, body.confirmation === 'confirmed' ? { type: 'device.confirmed', ...report } : { type: 'device.denied', ...report });
      return { status: 200 };
    },
  });
}

export function activateAutoConfirmHandler(services: DdiDeps): Handler {
  return async (req) => {
    const d = device(req);
    const target = requireTarget(d);
    // the body is optional: none, or an empty one, activates without initiator and remark
    const body = req.body === undefined || req.body.length === 0 ? {} : validate(parseBody(req), activateAutoConfirmBody);
    const opts = { initiator: body.initiator ?? null, remark: body.remark ?? null };
    await activateAutoConfirm(services, d.tenant, target.id, opts, services.now());
    return { status: 200 };
  };
}

export function deactivateAutoConfirmHandler(services: DdiDeps): Handler {
  return async (req) => {
    const d = device(req);
    await deactivateAutoConfirm(services, d.tenant, requireTarget(d).id);
    return { status: 200 };
  };
}
