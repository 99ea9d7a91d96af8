/**
 * UPDATE_ACTION_STATUS in the device operations, without the broker: how often a report reads its
 * action (the action a report committed is stepped again without a read), and what a report decided on
 * a copy another instance moved meanwhile comes to (decided again on a fresh read). On both stores.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { EffectDispatcher } from '../../src/actors/dispatcher.js';
import { effectHandlers } from '../../src/actors/effect-handlers.js';
import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../src/domain/action.js';
import { AppError } from '../../src/domain/errors.js';
import { QUOTA_DEFAULTS, type Quotas } from '../../src/domain/quotas.js';
import { builtInDefaults } from '../../src/domain/tenant-config.js';
import { TARGET } from '../../src/domain/target.js';
import { DeviceOps, DmfRejection } from '../../src/dmf/device-ops.js';
import type { ActionUpdateStatusBody, DmfActionStatus } from '../../src/dmf/protocol.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/port.js';
import { TenantConfigService } from '../../src/tenancy/tenant-config-service.js';
import { anAction, aTarget } from '../fixtures/records.js';
import { uniqueTenant } from '../helpers/redis.js';

const body = (actionStatus: DmfActionStatus, message: string[] = []): ActionUpdateStatusBody =>
  ({ actionId: 10, actionStatus, timestamp: null, message, code: null });

describe.each(['memory', 'redis'] as const)('DMF status reports (%s store)', (kind) => {
  const open: Store[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });

  /** One target with a running action (10); `instance()` is one server's device operations over the store. */
  async function setUp(quotas: Partial<Quotas> = {}) {
    const tenant = uniqueTenant('dmf-report');
    const store = await openStore({ kind, redisUrl: kind === 'redis' ? inject('redisUrl') : undefined, schema: SCHEMA });
    open.push(store);
    const actionReads = { count: 0 };
    const commits = { count: 0 };
    const counted = new Proxy(store, {
      get(on, name) {
        const v = Reflect.get(on, name, on) as unknown;
        if (name === 'commit') {
          return (...args: Parameters<Store['commit']>) => {
            commits.count++;
            return on.commit(...args);
          };
        }
        if (name !== 'get') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(on) : v;
        return (t: string, k: string, id: number) => {
          if (k === ACTION) actionReads.count++;
          return on.get(t, k, id);
        };
      },
    });
    const instance = (): DeviceOps => {
      const runtime = new ActorRuntime(counted, ACTORS);
      const tenantConfig = new TenantConfigService({ store, globals: builtInDefaults(), ttlMs: 60_000, clock: Date.now });
      const log = { warn: () => undefined, error: () => undefined };
      // never started: these reports wait for no effect (only the install check does)
      const handlers = effectHandlers({ store, runtime, dmf: undefined, log });
      const dispatcher = new EffectDispatcher(store, { consumer: 'c', tenants: () => [tenant], handlers, log });
      const deps = { store: counted, runtime, dispatcher, quotas: { ...QUOTA_DEFAULTS, ...quotas }, tenantConfig, now: () => 5 };
      return new DeviceOps(deps, log);
    };
    const runtime = new ActorRuntime(store, ACTORS);
    expect((await runtime.create(tenant, TARGET, aTarget({ id: 1, updateStatus: 'pending', assignedDs: 7 }))).ok).toBe(true);
    expect((await runtime.create(tenant, ACTION, anAction({ id: 10, targetId: 1, ds: 7 }))).ok).toBe(true);
    const action = async () => (await store.get<ActionRecord>(tenant, ACTION, 10))!;
    const entries = () => store.count(tenant, ACTION_STATUS, 'action', '10');
    return { tenant, runtime, instance, actionReads, commits, action, entries };
  }

  it('reads the action once for its first report and never for the reports after it', async () => {
    const { tenant, instance, actionReads, action, entries } = await setUp();
    const ops = instance();
    await ops.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5);
    expect(actionReads.count).toBe(1);
    for (let i = 0; i < 5; i++) await ops.reportStatus(tenant, 'dev-1', body('RUNNING', [`step ${i}`]), null, 5);
    await ops.reportStatus(tenant, 'dev-1', body('FINISHED'), null, 5);
    expect(actionReads.count).toBe(1);
    expect((await action()).value).toMatchObject({ status: 'finished', active: false, entries: 8 });
    expect((await action()).version).toBe(8);
    expect(await entries()).toBe(7);
  });

  it('a report on a copy another instance moved is decided on a fresh read: nothing lost or counted twice', async () => {
    const { tenant, instance, actionReads, action, entries } = await setUp();
    const here = instance();
    const there = instance();
    await here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5);
    await there.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5); // `here` still knows version 2
    actionReads.count = 0;
    await here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5);
    expect(actionReads.count).toBeGreaterThan(0);
    expect((await action()).value.entries).toBe(4);
    expect(await entries()).toBe(3);
    actionReads.count = 0;
    await here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5); // known again
    expect(actionReads.count).toBe(0);
    expect((await action()).value.entries).toBe(5);
  });

  it('a report its stale copy would allow, a fresh read refuses (the status-entry quota)', async () => {
    const { tenant, instance, action, entries } = await setUp({ maxStatusEntriesPerAction: 3 });
    const here = instance();
    const there = instance();
    await here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5); // 2 entries; `here` knows it
    await there.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5); // 3: the quota is reached
    await expect(here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5)).rejects.toThrow(AppError);
    expect((await action()).value.entries).toBe(3);
    expect(await entries()).toBe(2);
    await here.reportStatus(tenant, 'dev-1', body('FINISHED'), null, 5); // a final report is never refused
    expect((await action()).value).toMatchObject({ status: 'finished', entries: 4 });
  });

  it('a report on an action another instance closed is refused, not ignored', async () => {
    const { tenant, instance, action, entries } = await setUp();
    const here = instance();
    await here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5);
    await instance().reportStatus(tenant, 'dev-1', body('FINISHED'), null, 5);
    await expect(here.reportStatus(tenant, 'dev-1', body('RUNNING'), null, 5)).rejects.toThrow(DmfRejection);
    expect((await action()).value).toMatchObject({ status: 'finished', entries: 3 });
    expect(await entries()).toBe(2);
  });

  it('reports to different actions that arrive together commit in one commit, each with its outcome', async () => {
    const { tenant, runtime, instance, commits, entries } = await setUp();
    for (const id of [2, 3, 4]) {
      expect((await runtime.create(tenant, TARGET, aTarget({ id, controllerId: `dev-${id}`, updateStatus: 'pending', assignedDs: 7 }))).ok).toBe(true);
      expect((await runtime.create(tenant, ACTION, anAction({ id: 10 * id, targetId: id, controllerId: `dev-${id}`, ds: 7 }))).ok).toBe(true);
    }
    const ops = instance();
    const report = (id: number, status: DmfActionStatus) => ops.reportStatus(tenant, `dev-${id / 10}`, { ...body(status), actionId: id }, null, 5);
    const all = (status: DmfActionStatus) => Promise.allSettled([10, 20, 30, 40].map((id) => report(id, status)));
    commits.count = 0;
    expect((await all('RUNNING')).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(commits.count).toBe(1); // read afresh, committed together
    commits.count = 0;
    // known now: stepped on the copies; one is refused on its own (CANCELED needs a cancel first)
    const outcomes = await Promise.allSettled([report(10, 'RUNNING'), report(20, 'CANCELED'), report(30, 'FINISHED'), report(40, 'RUNNING')]);
    expect(outcomes.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(commits.count).toBe(1);
    expect(await entries()).toBe(2);
  });
});
