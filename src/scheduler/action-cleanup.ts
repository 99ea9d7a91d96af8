import { deleteActions } from '../actors/removal.js';
import { ACTION, statusSet, type ActionRecord } from '../domain/action.js';
import type { Tenant } from '../store/port.js';
import { SCAN_ALL, loadRecords } from '../store/reads.js';
import type { SchedulerDeps } from './deps.js';

/**
 * Action cleanup (spec 2.11 `action.cleanup.*`): when enabled, closed actions whose status is listed
 * in `action.cleanup.actionStatus` and that were last modified more than `action.cleanup.actionExpiry`
 * ms ago are deleted with their status history. Returns the number deleted.
 */
export async function cleanupActions(services: SchedulerDeps, tenant: Tenant, now: number): Promise<number> {
  const cfg = await services.tenantConfig.view(tenant);
  if (!cfg.bool('action.cleanup.enabled')) return 0;
  const statuses = statusSet(String(cfg.get('action.cleanup.actionStatus')));
  const before = now - cfg.number('action.cleanup.actionExpiry');
  const expired = (a: ActionRecord): boolean => !a.active && statuses.has(a.status) && a.lastModifiedAt < before;
  let deleted = 0;
  for (const status of statuses) {
    const page = await services.store.members(tenant, ACTION, 'status', status, SCAN_ALL);
    for (let i = 0; i < page.ids.length; i += 1000) {
      const found = await loadRecords<ActionRecord>(services.store, tenant, ACTION, page.ids.slice(i, i + 1000));
      // judged again by the removal itself, on the action as it is then
      deleted += await deleteActions(services, tenant, found.filter((a) => expired(a.value)).map((a) => a.id), expired);
    }
  }
  return deleted;
}
