import { ACTION, type ActionRecord } from '../domain/action.js';
import { windowLapsed } from '../domain/maintenance.js';
import type { Tenant } from '../store/port.js';
import { openActionIds } from '../store/named-reads.js';
import { loadRecords } from '../store/reads.js';
import type { SchedulerDeps } from './deps.js';

/**
 * Active actions whose maintenance schedule has no window now and none to come are cancelled
 * (reference §4.2, "maintenance schedule lapsed"; hawkBit checks on the device's poll, we also sweep
 * so that devices that stopped polling do not keep them open). Returns the number cancelled.
 */
export async function cancelLapsedWindows(services: SchedulerDeps, tenant: Tenant, now: number): Promise<number> {
  const store = services.store;
  const ids = await openActionIds(store, tenant);
  let canceled = 0;
  for (let i = 0; i < ids.length; i += 1000) {
    for (const a of await loadRecords<ActionRecord>(store, tenant, ACTION, ids.slice(i, i + 1000))) {
      if (!lapsed(a.value, now)) continue;
      const result = await services.runtime.send(tenant, ACTION, a.id, { type: 'mgmt.cancel', at: now, by: 'system', reason: 'maintenance' });
      if (result.kind === 'committed') canceled++;
    }
  }
  return canceled;
}

function lapsed(a: ActionRecord, now: number): boolean {
  if (a.maintenanceWindow === null || !a.active || a.status === 'canceling') return false;
  try {
    return windowLapsed(a.maintenanceWindow, now);
  } catch {
    return false; // a schedule that no longer parses is left to an operator
  }
}
