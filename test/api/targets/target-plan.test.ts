import { beforeAll, describe, expect, it } from 'vitest';
import { TARGET } from '../../../src/domain/target.js';
import { DEFAULT_TARGET_SORT, queryTargets, targetFields } from '../../../src/query/targets.js';
import { parseFilter } from '../../../src/query/index.js';
import type { Store } from '../../../src/store/port.js';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { seedTarget } from '../../helpers/seed.js';
import { createTag } from './fixtures.js';

/**
 * Indexed target queries read only their candidates: the real store, counting what is read.
 * 300 targets; 5 registered; 3 tagged "beta"; 4 polled long ago.
 */
describe.each(STORES)('target query plans on the %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind);
    const beta = await createTag(app, 'beta');
    const items = Array.from({ length: 300 }, (_, i) => ({ controllerId: `plan-${String(i).padStart(3, '0')}`, description: i % 50 === 0 ? 'foo' : 'bar' }));
    expect((await app.mgmt.post('/rest/v1/targets', { json: items })).status).toBe(201);
    for (let i = 0; i < 5; i++) await seedTarget(app, `reg-${i}`, { updateStatus: 'registered' });
    for (const cid of ['plan-001', 'plan-002', 'plan-003']) expect((await app.mgmt.post(`/rest/v1/targettags/${beta.id}/assigned/${cid}`)).status).toBe(204);
    const polled = await app.store.lookupMany(app.tenant, TARGET, 'controllerId', ['plan-010', 'plan-011', 'plan-012', 'plan-013']);
    await app.store.recordPolls(app.tenant, polled.map((id) => ({ id: id as number, at: 1000, address: null })));
  });

  /** Runs a query through a store that counts target records read and full id scans. */
  async function run(q: string): Promise<{ total: number; read: number; scans: number }> {
    let read = 0;
    let scans = 0;
    const counting = new Proxy(app.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'getMany') {
          return (tenant: string, k: string, ids: readonly number[]) => {
            if (k === TARGET) read += ids.length;
            return target.getMany(tenant, k, ids);
          };
        }
        if (prop === 'ids') {
          return (tenant: string, k: string, page: Parameters<Store['ids']>[2]) => {
            if (k === TARGET) scans++;
            return target.ids(tenant, k, page);
          };
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const filter = parseFilter(q, targetFields);
    const now = Date.now();
    const page = { offset: 0, limit: 50, sort: DEFAULT_TARGET_SORT, filter };
    const result = await queryTargets(counting, app.tenant, page, { now, overdueTs: now - 1000 });
    return { total: result.total, read, scans };
  }

  it.each([
    ['updatestatus==registered', 5, 5],
    ['tag==beta', 3, 3],
    ['tag==bet*', 3, 3],
    ['controllerid==plan-007', 1, 1],
    ['id=in=(plan-007,plan-008,nope)', 2, 2],
    ['updatestatus==unknown;tag==beta', 3, 3], // the smaller index wins
    ['tag==beta;description==*foo*', 0, 3],
    ['lastcontrollerrequestat=lt=${OVERDUE_TS}', 4, 4],
  ])('%s reads only its candidates', async (q, total, read) => {
    expect(await run(q)).toEqual({ total, read, scans: 0 });
  });

  it.each([
    ['description==*foo*', 6],
    ['name==plan-001,tag==beta', 3],
    ["tag==''", 302],
  ])('%s scans all targets', async (q, total) => {
    expect(await run(q)).toEqual({ total, read: 305, scans: 1 });
  });
});
