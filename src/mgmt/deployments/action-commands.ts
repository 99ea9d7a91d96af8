import type { Services } from '../../app/services.js';
import type { SendResult } from '../../actors/runtime.js';
import { ACTION, type ActionRecord } from '../../domain/action.js';
import type { ActionEvent } from '../../domain/action.machine.js';
import { AppError, notFound, type ErrorCode } from '../../domain/errors.js';
import type { Stored } from '../../store/port.js';

/**
 * Management commands on one action (reference §3.1, §4.2). Every state change is an event to the
 * action's actor; an `ignored` result means the machine does not allow it in the action's state,
 * which maps to the documented error.
 */
async function send(
  services: Services, tenant: string, actionId: number, event: ActionEvent, refused: { code: ErrorCode; message: string },
): Promise<ActionRecord> {
  const result: SendResult<ActionRecord> = await services.runtime.send<ActionRecord>(tenant, ACTION, actionId, event);
  switch (result.kind) {
    case 'committed':
      await services.dispatcher.settle(result.effectIds);
      return result.record;
    case 'ignored':
      throw new AppError(refused.code, refused.message);
    case 'missing':
      throw notFound('Action', actionId);
    case 'duplicate':
    case 'contended':
      throw new AppError('CONCURRENT_MODIFICATION', `action ${actionId} is being modified concurrently; retry`);
  }
}

/** Cancel (CANCELING, the device is asked to stop): 405 when not active or already canceling. */
export function cancelAction(services: Services, tenant: string, action: ActionRecord, by: string): Promise<ActionRecord> {
  return send(services, tenant, action.id, { type: 'mgmt.cancel', at: services.now(), by, reason: 'manual' }, {
    code: 'ACTION_NOT_CANCELABLE', message: `Action [id: ${action.id}] is not active or already canceling and cannot be canceled.`,
  });
}

/** Force quit (CANCELED without the device): only a canceling action, else 405. */
export function forceQuitAction(services: Services, tenant: string, action: ActionRecord, by: string): Promise<ActionRecord> {
  return send(services, tenant, action.id, { type: 'mgmt.forceQuit', at: services.now(), by }, {
    code: 'ACTION_NOT_FORCE_QUITABLE', message: `Action [id: ${action.id}] is not canceling and cannot be force quit; cancel it first.`,
  });
}

/** Switch to forced. Already forced (or closed) actions stay as they are: the answer is the action. */
export async function forceAction(services: Services, tenant: string, action: ActionRecord, by: string): Promise<ActionRecord> {
  const result = await services.runtime.send<ActionRecord>(tenant, ACTION, action.id, { type: 'mgmt.force', at: services.now(), by });
  if (result.kind === 'committed' || result.kind === 'ignored') return result.record;
  if (result.kind === 'missing') throw notFound('Action', action.id);
  throw new AppError('CONCURRENT_MODIFICATION', `action ${action.id} is being modified concurrently; retry`);
}

export interface ConfirmationBody {
  readonly confirmation: 'confirmed' | 'denied';
  readonly code: number | null;
  readonly details: readonly string[];
}

/**
 * Confirms or denies an action waiting for confirmation (reference §3.1, §1.7 in the 0.5-0.9 form):
 * 410 when the action is closed, 404 when it is not waiting, 403 when its status history is full.
 */
export async function confirmAction(services: Services, tenant: string, action: Stored<ActionRecord>, body: ConfirmationBody): Promise<void> {
  const a = action.value;
  if (!a.active) throw new AppError('ACTION_CLOSED', `Action [id: ${a.id}] is closed and cannot be confirmed or denied.`);
  const notWaiting = { code: 'NOT_FOUND' as const, message: `Action [id: ${a.id}] is not waiting for confirmation.` };
  if (a.status !== 'wait_for_confirmation') throw new AppError(notWaiting.code, notWaiting.message);
  const quotas = services.quotas;
  if (a.entries >= quotas.maxStatusEntriesPerAction) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: action ${a.id} has ${a.entries} status entries; at most ${quotas.maxStatusEntriesPerAction} are allowed.`);
  }
  if (body.details.length > quotas.maxMessagesPerActionStatus) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: ${body.details.length} details in one status; at most ${quotas.maxMessagesPerActionStatus} are allowed.`);
  }
  const now = services.now();
  const report = { at: now, timestamp: now, code: body.code, details: body.details };
  const event: ActionEvent = body.confirmation === 'confirmed' ? { type: 'device.confirmed', ...report } : { type: 'device.denied', ...report };
  await send(services, tenant, a.id, event, notWaiting);
}
