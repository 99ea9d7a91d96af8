/**
 * Rollouts and actions by status on /metrics, counted from the store's status indexes when scraped
 * (summed over the tenants there are at the scrape: no tenant label). Registered by the primary loop only, so the
 * worker loops' registries, summed at a scrape, do not count them twice. A store that cannot answer
 * leaves the gauges out of that scrape (store_errors_total and /ready tell that story).
 */
import { Gauge, type Registry } from 'prom-client';
import { ACTION, ACTION_STATUSES } from '../domain/action.js';
import { ROLLOUT, ROLLOUT_STATUSES } from '../domain/rollout.js';
import type { Store, Tenant } from '../store/port.js';

export function registerStatusGauges(registry: Registry, store: Pick<Store, 'count'>, tenants: () => readonly Tenant[]): void {
  const gauge = (name: string, help: string, kind: string, statuses: readonly string[]): void => {
    new Gauge({
      name, help, labelNames: ['status'], registers: [registry],
      async collect() {
        this.reset();
        const counts = await Promise.all(statuses.map(async (status) => {
          const each = await Promise.all(tenants().map((t) => store.count(t, kind, 'status', status)));
          return each.reduce((a, b) => a + b, 0);
        })).catch(() => undefined);
        counts?.forEach((n, i) => this.set({ status: statuses[i] ?? '' }, n));
      },
    });
  };
  gauge('rollouts_by_status', 'Rollouts by status now', ROLLOUT, ROLLOUT_STATUSES);
  gauge('actions_by_status', 'Actions by status now', ACTION, ACTION_STATUSES);
}
