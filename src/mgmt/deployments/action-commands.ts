import { ACTION, type ActionRecord } from '../../domain/action.js';
import type { ActionEvent } from '../../domain/action.events.js';
import { AppError } from '../../domain/errors.js';
import type { Quotas } from '../../domain/quotas.js';
import type { Tenant } from '../../store/port.js';
import { command, type CommandDeps } from '../kit/commands.js';

/**
 * Management commands on one action (reference §3.1, §4.2). Every state change is an event to the
 * action's actor; when the machine does not take it in the action's state, the documented error.
 */
interface ActionCommandDeps extends CommandDeps {
  now(): number;
}

/** Cancel (CANCELING, the device is asked to stop): 405 when not active or already canceling. */
export function cancelAction(deps: ActionCommandDeps, tenant: Tenant, action: ActionRecord, by: string): Promise<ActionRecord> {
  return command(deps, tenant, ACTION, action.id, { type: 'mgmt.cancel', at: deps.now(), by, reason: 'manual' }, () =>
    new AppError('ACTION_NOT_CANCELABLE', `Action [id: ${action.id}] is not active or already canceling and cannot be canceled.`));
}

/** Force quit (CANCELED without the device): only a canceling action, else 405. */
export function forceQuitAction(deps: ActionCommandDeps, tenant: Tenant, action: ActionRecord, by: string): Promise<ActionRecord> {
  return command(deps, tenant, ACTION, action.id, { type: 'mgmt.forceQuit', at: deps.now(), by }, () =>
    new AppError('ACTION_NOT_FORCE_QUITABLE', `Action [id: ${action.id}] is not canceling and cannot be force quit; cancel it first.`));
}

/** Switch to forced. Already forced (or closed) actions stay as they are: the answer is the action. */
export function forceAction(deps: ActionCommandDeps, tenant: Tenant, action: ActionRecord, by: string): Promise<ActionRecord> {
  return command(deps, tenant, ACTION, action.id, { type: 'mgmt.force', at: deps.now(), by });
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
export async function confirmAction(
  deps: ActionCommandDeps & { readonly quotas: Pick<Quotas, 'maxStatusEntriesPerAction' | 'maxMessagesPerActionStatus'> },
  tenant: Tenant, a: ActionRecord, body: ConfirmationBody,
): Promise<void> {
  if (!a.active) throw new AppError('ACTION_CLOSED', `Action [id: ${a.id}] is closed and cannot be confirmed or denied.`);
  const notWaiting = () => new AppError('NOT_FOUND', `Action [id: ${a.id}] is not waiting for confirmation.`);
  if (a.status !== 'wait_for_confirmation') throw notWaiting();
  const { quotas } = deps;
  if (a.entries >= quotas.maxStatusEntriesPerAction) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: action ${a.id} has ${a.entries} status entries; at most ${quotas.maxStatusEntriesPerAction} are allowed.`);
  }
  if (body.details.length > quotas.maxMessagesPerActionStatus) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: ${body.details.length} details in one status; at most ${quotas.maxMessagesPerActionStatus} are allowed.`);
  }
  const now = deps.now();
  const report = { at: now, timestamp: now, code: body.code, details: body.details };
  const event: ActionEvent = body.confirmation === 'confirmed' ? { type: 'device.confirmed', ...report } : { type: 'device.denied', ...report };
  await command(deps, tenant, ACTION, a.id, event, notWaiting);
}
