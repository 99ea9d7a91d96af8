/**
 * Delivering a device report to an action actor, for DDI and DMF alike: the quota checks hawkBit
 * makes first, the send, and `settle` so the effects (target in sync, error, next assigned DS) are
 * visible to the device's next request.
 * @see reference/hawkbit-api.md §4.2 (maxMessages), §8
 */
import { ACTION, type ActionRecord } from '../domain/action.js';
import type { ActionEvent } from '../domain/action.events.js';
import { AppError, concurrent, notFound } from '../domain/errors.js';
import type { Quotas } from '../domain/quotas.js';
import type { Stored } from '../store/port.js';
import type { ActionSendDeps } from './active-actions.js';

/** At most `maxMessagesPerActionStatus` messages in one status entry. */
export function checkMessageQuota(deps: { readonly quotas: Pick<Quotas, 'maxMessagesPerActionStatus'> }, messages: number): void {
  const max = deps.quotas.maxMessagesPerActionStatus;
  if (messages > max) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: a status report may carry at most ${max} messages (details plus the status code), got ${messages}.`);
  }
}

/** At most `maxStatusEntriesPerAction` entries; only intermediate reports count (a final one is never refused). */
export function checkEntryQuota(deps: { readonly quotas: Pick<Quotas, 'maxStatusEntriesPerAction'> }, action: ActionRecord): void {
  const max = deps.quotas.maxStatusEntriesPerAction;
  if (action.entries >= max) {
    throw new AppError('QUOTA_EXCEEDED', `Quota exceeded: action ${action.id} has ${action.entries} status entries; at most ${max} are allowed.`);
  }
}

export function entryQuotaLeft(deps: { readonly quotas: Pick<Quotas, 'maxStatusEntriesPerAction'> }, action: ActionRecord): boolean {
  return action.entries < deps.quotas.maxStatusEntriesPerAction;
}

/**
 * Sends the event, stepping the action as the caller read it first (the runtime reads it again only
 * when that was not the latest version), committed with the concurrent reports of other devices (the
 * runtime's group commit); waits until the effects it caused were handled.
 */
export async function sendToAction(
  deps: ActionSendDeps, tenant: string, action: Stored<ActionRecord>, event: ActionEvent,
): Promise<ActionRecord | undefined> {
  const r = await deps.runtime.send(tenant, ACTION, action.id, event, { known: action, group: true });
  switch (r.kind) {
    case 'committed':
      await deps.dispatcher.settle(r.effectIds);
      return r.record;
    case 'ignored':
      return r.record;
    case 'duplicate':
      return undefined;
    case 'missing':
      throw notFound('Action', action.id);
    case 'contended':
      throw concurrent('action', action.id);
  }
}
