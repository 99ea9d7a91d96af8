import type { Services } from '../app/services.js';
import { ACTION, type ActionRecord } from '../domain/action.js';
import { deleteActions, statusSet } from '../mgmt/deployments/action-delete.js';
import { SCAN_LIMIT } from '../mgmt/kit/listing.js';
import type { Stored, Tenant } from '../store/port.js';

/**
 * Action cleanup (spec 2.11 `action.cleanup.*`): when enabled, closed actions whose status is listed
 * in `action.cleanup.actionStatus` and that were last modified more than `action.cleanup.actionExpiry`
 * ms ago are deleted with their status history. Returns the number deleted.
 */
export async function cleanupActions(services: Services, tenant: Tenant, now: number): Promise<number> {
  const cfg = await services.tenantConfig.view(tenant);
  if (!cfg.bool('action.cleanup.enabled')) return 0;
  const statuses = statusSet(String(cfg.get('action.cleanup.actionStatus')));
  const before = now - cfg.number('action.cleanup.actionExpiry');
  const store = services.ctx.store;
  let deleted = 0;
  for (const status of statuses) {
    const page = await store.members(tenant, ACTION, 'status', status, { offset: 0, limit: SCAN_LIMIT });
    for (let i = 0; i < page.ids.length; i += 1000) {
      const found = await store.getMany<ActionRecord>(tenant, ACTION, page.ids.slice(i, i + 1000));
      const expired = found.filter((a): a is Stored<ActionRecord> =>
        a !== undefined && !a.value.active && statuses.has(a.value.status) && a.value.lastModifiedAt < before);
      deleted += await deleteActions(store, services.runtime, tenant, expired);
    }
  }
  return deleted;
}
