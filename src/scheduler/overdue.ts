import { Gauge } from 'prom-client';
import type { Tenant } from '../store/port.js';
import type { SchedulerDeps } from './deps.js';

/**
 * Overdue detection: a target is overdue when its last poll is older than pollingTime plus
 * pollingOverdueTime (spec 2.3 pollStatus.overdue). The count per tenant is the gauge
 * `peregrine_targets_overdue{tenant}`. Every instance refreshes it (a read, no lease), so each one
 * reports the same value; aggregate with max().
 */
export function overdueGauge(services: SchedulerDeps): Gauge<'tenant'> {
  return new Gauge({
    name: 'peregrine_targets_overdue',
    help: 'Targets whose last poll is older than pollingTime + pollingOverdueTime, by tenant',
    labelNames: ['tenant'] as const,
    registers: [services.ctx.metrics.registry],
  });
}

/** Counts the tenant's overdue targets and sets the gauge; returns the count. */
export async function refreshOverdue(services: SchedulerDeps, gauge: Gauge<'tenant'>, tenant: Tenant, now: number): Promise<number> {
  const cfg = await services.tenantConfig.view(tenant);
  const overdueBefore = now - cfg.durationMs('pollingTime') - cfg.durationMs('pollingOverdueTime');
  const page = await services.store.pollRange(tenant, 0, overdueBefore - 1, { offset: 0, limit: 0 });
  gauge.set({ tenant }, page.total);
  return page.total;
}
