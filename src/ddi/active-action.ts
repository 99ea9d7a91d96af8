/**
 * What the device is offered next: the target's highest-priority active action, its maintenance
 * window state, the `c` value of its link and the suggested poll interval. Pure apart from the reads
 * and the one cancellation of a lapsed maintenance schedule.
 * @see reference/hawkbit-api.md §1.3, §1.4, §4.2 (maintenance schedule lapsed)
 */
import type { Services } from '../app/services.js';
import { ACTION, WEIGHT_IF_ABSENT, type ActionRecord } from '../domain/action.js';
import { windowState, type WindowState } from '../domain/maintenance.js';
import type { TenantConfigView } from '../domain/tenant-config.js';
import { formatDuration } from '../domain/tenant-config.js';
import { MISS, type CachedReads, type Miss, type Page, type Reads, type Stored, type Tenant } from '../store/port.js';

/** Far more active actions than any target has; the index is read in one page. */
const ACTIVE_PAGE: Page = Object.freeze({ offset: 0, limit: 1000 });

export async function activeActions(reads: Reads, tenant: Tenant, targetId: number): Promise<Stored<ActionRecord>[]> {
  const page = await reads.members(tenant, ACTION, 'activeByTarget', String(targetId), ACTIVE_PAGE);
  if (page.ids.length === 0) return [];
  const found = await reads.getMany<ActionRecord>(tenant, ACTION, page.ids);
  const out: Stored<ActionRecord>[] = [];
  for (const a of found) if (a !== undefined && a.value.active) out.push(a);
  return out;
}

/** The same from the cache alone, or MISS when any part of it must be read. */
export function peekActiveActions(reads: CachedReads, tenant: Tenant, targetId: number): Stored<ActionRecord>[] | Miss {
  const page = reads.peekMembers(tenant, ACTION, 'activeByTarget', String(targetId), ACTIVE_PAGE);
  if (page === MISS) return MISS;
  if (page.ids.length === 0) return NONE;
  const out: Stored<ActionRecord>[] = [];
  for (const id of page.ids) {
    const a = reads.peekGet<ActionRecord>(tenant, ACTION, id);
    if (a === MISS) return MISS;
    if (a !== undefined && a.value.active) out.push(a);
  }
  return out;
}
const NONE: Stored<ActionRecord>[] = [];

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

/**
 * Cancels an action whose maintenance schedule has no window left (reference §4.2); returns the
 * action as it is afterwards (canceling), or as it was when the cancel did not apply.
 */
export async function cancelLapsed(
  services: Services, tenant: Tenant, action: Stored<ActionRecord>, now: number,
): Promise<Stored<ActionRecord>> {
  const r = await services.runtime.send(tenant, ACTION, action.id, { type: 'mgmt.cancel', at: now, by: 'system', reason: 'maintenance' });
  if (r.kind === 'committed') {
    await services.dispatcher.settle(r.effectIds);
    return { id: action.id, version: r.version, value: r.record };
  }
  return action;
}

/**
 * `c` of the deploymentBase / confirmationBase link: `31 * hash(action) + offset` as hawkBit computes
 * it, with the action's id and record version standing in for its JPA hashCode. Offsets: 1249 while
 * a maintenance window is open, 1231 once a time-forced action's force time is reached, else 1237.
 * It only has to change the poll body (and so its ETag) when the action changes.
 */
export function linkHash(action: Stored<ActionRecord>, state: WindowState | undefined, now: number): number {
  const a = action.value;
  const hash = (Math.imul(31, a.id | 0) + action.version) | 0;
  const offset = state?.available === true ? 1249 : a.actionType === 'timeforced' && now >= a.forceTime ? 1231 : 1237;
  return (Math.imul(31, hash) + offset) | 0;
}

/**
 * `config.polling.sleep`: the tenant's pollingTime; before a maintenance window opens, the time to
 * its start divided by maintenanceWindowPollCount, kept within [minPollingTime, pollingTime].
 */
export function pollSleep(config: TenantConfigView, state: WindowState | undefined, now: number): string {
  const polling = String(config.get('pollingTime'));
  if (state === undefined || state.available || state.nextStart === null) return polling;
  const max = config.durationMs('pollingTime');
  const min = config.durationMs('minPollingTime');
  const count = Math.max(1, config.number('maintenanceWindowPollCount'));
  const wait = Math.min(max, Math.max(min, (state.nextStart - now) / count));
  return formatDuration(wait);
}
