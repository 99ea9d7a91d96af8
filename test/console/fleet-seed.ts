/**
 * A small fleet for the console tests and the README screenshots: targets in every update status,
 * most polling recently, some overdue, a few never seen, with attributes; a complete distribution set.
 */
import type { App } from '../helpers/app.js';
import { seedDistributionSet, seedTarget, type SeededDs } from '../helpers/seed.js';

const STATUSES = [
  ...Array<string>(18).fill('in_sync'), ...Array<string>(6).fill('pending'), ...Array<string>(3).fill('error'),
  ...Array<string>(4).fill('registered'), ...Array<string>(2).fill('unknown'),
] as const;

export interface SeededFleet {
  readonly ds: SeededDs;
  readonly controllerIds: readonly string[];
  /** What the fleet page should show. */
  readonly counts: {
    readonly total: number; readonly byStatus: Readonly<Record<string, number>>; readonly overdue: number; readonly online: number;
  };
}

export async function seedFleet(app: App, now = Date.now()): Promise<SeededFleet> {
  const ds = await seedDistributionSet(app, { name: 'edge-os', version: '2.4.0' });
  const controllerIds: string[] = [];
  const polls: { id: number; at: number; address: string }[] = [];
  for (let i = 0; i < STATUSES.length; i++) {
    // 7 and the fleet's size share no factor: a fixed shuffle, so every page shows several statuses
    const status = STATUSES[(i * 7) % STATUSES.length] as string;
    const controllerId = `gateway-${String(i + 1).padStart(3, '0')}`;
    const t = await seedTarget(app, controllerId, {
      name: `Gateway ${i + 1}`,
      updateStatus: status as 'in_sync',
      attributes: { 'hw.revision': `rev-${(i % 3) + 1}`, 'os.kernel': '6.1.0' },
      createdAt: now - 86_400_000 * (10 - (i % 10)),
    });
    controllerIds.push(controllerId);
    if (status === 'unknown') continue;
    // every 7th device last seen three days ago (overdue with hawkBit's default polling and overdue times, 12 h + 24 h),
    // the others within the last few minutes
    const ago = i % 7 === 3 ? 3 * 86_400_000 : ((i * 37) % 240) * 1000;
    polls.push({ id: t.id, at: now - ago, address: `http://10.0.${Math.floor(i / 250)}.${(i % 250) + 1}` });
  }
  await app.store.recordPolls(app.tenant, polls);
  const byStatus: Record<string, number> = {};
  for (const s of STATUSES) byStatus[s] = (byStatus[s] ?? 0) + 1;
  const overdue = polls.filter((p) => now - p.at > 86_400_000).length;
  return { ds, controllerIds, counts: { total: STATUSES.length, byStatus, overdue, online: polls.length - overdue } };
}
