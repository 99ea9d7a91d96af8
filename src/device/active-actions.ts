/**
 * A target's active actions (read with activeActionsOf, src/store/named-reads.ts) as a device sees
 * them, for DDI and DMF alike: which one it is offered (the highest priority), the maintenance window state of an action, and the cancellation of an
 * action whose maintenance schedule has no window left.
 * @see reference/hawkbit-api.md §1.3, §1.4, §4.2 (maintenance schedule lapsed)
 */
import type { EffectDispatcher } from '../actors/dispatcher.js';
import type { ActorSender } from '../actors/roles.js';
import { ACTION, WEIGHT_IF_ABSENT, type ActionRecord } from '../domain/action.js';
import { windowState, type WindowState } from '../domain/maintenance.js';
import type { Stored, Tenant } from '../store/port.js';

/** Highest weight (absent = 1000) first; among equals the oldest (lowest id). */
export function highestPriority<T extends { readonly value: ActionRecord }>(actions: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const a of actions) {
    if (best === undefined) {
      best = a;
      continue;
    }
    const w = a.value.weight ?? WEIGHT_IF_ABSENT;
    const bw = best.value.weight ?? WEIGHT_IF_ABSENT;
    if (w > bw || (w === bw && a.value.id < best.value.id)) best = a;
  }
  return best;
}

/** The window state, or undefined without a schedule; a schedule that cannot be evaluated counts as lapsed. */
export function maintenanceState(action: ActionRecord, now: number): WindowState | undefined {
  if (action.maintenanceWindow === null) return undefined;
  try {
    return windowState(action.maintenanceWindow, now);
  } catch {
    return { available: false, nextStart: null };
  }
}

export function lapsed(state: WindowState | undefined): boolean {
  return state !== undefined && !state.available && state.nextStart === null;
}

/** What sending a device's event to an action goes through: the send, and `settle` for the effects it caused. */
export interface ActionSendDeps {
  readonly runtime: ActorSender;
  readonly dispatcher: Pick<EffectDispatcher, 'settle'>;
}

/**
 * Cancels an action whose maintenance schedule has no window left (reference §4.2); returns the
 * action as it is afterwards (canceling), or as it was when the cancel did not apply.
 */
export async function cancelLapsed(
  deps: ActionSendDeps, tenant: Tenant, action: Stored<ActionRecord>, now: number,
): Promise<Stored<ActionRecord>> {
  const r = await deps.runtime.send(tenant, ACTION, action.id, { type: 'mgmt.cancel', at: now, by: 'system', reason: 'maintenance' });
  if (r.kind === 'committed') {
    await deps.dispatcher.settle(r.effectIds);
    return { id: action.id, version: r.version, value: r.record };
  }
  return action;
}
