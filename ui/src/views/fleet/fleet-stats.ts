/**
 * The fleet overview's numbers, each one count query on the target list (`limit=1`, read `total`):
 * per update status, online and overdue (last poll within / beyond the tenant's overdue bound, the
 * server's `${OVERDUE_TS}`), and devices that polled in the last minute.
 */
import { api } from '../../api.js';
import { UPDATE_STATUSES } from '../../model/target.js';

export interface FleetStats {
  readonly total: number;
  readonly byStatus: Readonly<Record<(typeof UPDATE_STATUSES)[number], number>>;
  readonly online: number;
  readonly overdue: number;
  readonly lastMinute: number;
  readonly at: number;
}

const TARGETS = '/rest/v1/targets';

async function count(q?: string): Promise<number> {
  return (await api.page(TARGETS, { q, limit: 1 })).total;
}

export async function loadFleetStats(now = Date.now()): Promise<FleetStats> {
  const [total, online, overdue, lastMinute, ...statuses] = await Promise.all([
    count(),
    count('lastControllerRequestAt=ge=${OVERDUE_TS}'),
    count('lastControllerRequestAt=lt=${OVERDUE_TS}'),
    count(`lastControllerRequestAt=ge=${now - 60_000}`),
    ...UPDATE_STATUSES.map((s) => count(`updateStatus==${s}`)),
  ]);
  const byStatus = Object.fromEntries(UPDATE_STATUSES.map((s, i) => [s, statuses[i] ?? 0])) as FleetStats['byStatus'];
  return { total, byStatus, online, overdue, lastMinute, at: now };
}
