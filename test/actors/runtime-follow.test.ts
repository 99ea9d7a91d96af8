import { afterEach, describe, expect, inject, it } from 'vitest';
import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../src/domain/action.js';
import type { ActionEvent } from '../../src/domain/action.events.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { openStore } from '../../src/store/index.js';
import type { Store, Stored } from '../../src/store/port.js';
import { uniqueTenant } from '../helpers/redis.js';
import { anAction, aTarget } from '../fixtures/records.js';

const closedOk: ActionEvent = { type: 'device.feedback', execution: 'closed', finished: 'success', at: 5, timestamp: 5, code: null, details: [] };

/**
 * An action's step and its target's follow-up (ActorDefinition.follows) commit together: the device's
 * final feedback moves the target in the same commit, with compare-and-set on both records, and
 * nothing goes through the effects queue. On both stores.
 */
describe.each(['memory', 'redis'] as const)('actor runtime (%s): a target follows its action in one commit', (kind) => {
  const open: Store[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });

  async function setUp(target: Partial<TargetRecord> = {}) {
    const tenant = uniqueTenant('follow');
    const store = await openStore({ kind, redisUrl: kind === 'redis' ? inject('redisUrl') : undefined, schema: SCHEMA });
    open.push(store);
    const runtime = new ActorRuntime(store, ACTORS);
    expect((await runtime.create(tenant, TARGET, aTarget({ id: 1, updateStatus: 'pending', assignedDs: 7, ...target }))).ok).toBe(true);
    expect((await runtime.create(tenant, ACTION, anAction({ id: 10, targetId: 1, ds: 7 }))).ok).toBe(true);
    return { tenant, store, runtime };
  }

  it('a final feedback leaves the target in sync when send returns, with no effect queued', async () => {
    const { tenant, store, runtime } = await setUp();
    const sent = await runtime.send(tenant, ACTION, 10, closedOk);
    expect(sent.kind).toBe('committed');
    if (sent.kind === 'committed') expect(sent.effectIds).toEqual([]);
    expect(await store.pendingEffects(tenant)).toBe(0);
    const target = await store.get<TargetRecord>(tenant, TARGET, 1);
    expect(target?.version).toBe(2);
    expect(target?.value).toMatchObject({ updateStatus: 'in_sync', installedDs: 7, installedAction: 10, installedAt: 5 });
    expect((await store.members(tenant, TARGET, 'updateStatus', 'in_sync', { offset: 0, limit: 10 })).ids).toEqual([1]);
    expect((await store.get<ActionRecord>(tenant, ACTION, 10))?.value.status).toBe('finished');
  });

  it('a failure moves the target to error in the same commit', async () => {
    const { tenant, store, runtime } = await setUp();
    await runtime.send(tenant, ACTION, 10, { ...closedOk, finished: 'failure' });
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.value).toMatchObject({ updateStatus: 'error', assignedDs: null });
    expect(await store.pendingEffects(tenant)).toBe(0);
  });

  it('a target the event changes nothing on is not written', async () => {
    // the target has this action installed already: action.finished is nothing new (its alreadyInstalled guard)
    const { tenant, store, runtime } = await setUp({ updateStatus: 'in_sync', installedDs: 7, installedAction: 10, installedAt: 1 });
    expect((await runtime.send(tenant, ACTION, 10, closedOk)).kind).toBe('committed');
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.version).toBe(1);
    expect((await store.get<ActionRecord>(tenant, ACTION, 10))?.value.status).toBe('finished');
  });

  it('an action whose target is gone finishes alone', async () => {
    const { tenant, store, runtime } = await setUp();
    expect((await runtime.remove(tenant, TARGET, 1)).kind).toBe('removed');
    expect((await runtime.send(tenant, ACTION, 10, closedOk)).kind).toBe('committed');
    expect(await store.get(tenant, TARGET, 1)).toBeUndefined();
    expect(await store.pendingEffects(tenant)).toBe(0);
  });

  it('a stale cached copy of the target fails the compare-and-set: the retry keeps the edit made meanwhile', async () => {
    const { tenant, store, runtime } = await setUp();
    const old = await store.get<TargetRecord>(tenant, TARGET, 1);
    expect((await runtime.update(tenant, TARGET, 1, (t) => ({ ...t, description: 'edited' }))).kind).toBe('updated');
    // a runtime whose client-side cache still answers the target as it was before the edit
    const stale = new ActorRuntime(withCachedTarget(store, old!), ACTORS);
    expect((await stale.send(tenant, ACTION, 10, closedOk)).kind).toBe('committed');
    const target = await store.get<TargetRecord>(tenant, TARGET, 1);
    expect(target?.version).toBe(3);
    expect(target?.value).toMatchObject({ description: 'edited', updateStatus: 'in_sync', installedAction: 10 });
  });

  it('a known record that is stale is read again: no report is lost or counted twice', async () => {
    const { tenant, store, runtime } = await setUp();
    const known = (await store.get<ActionRecord>(tenant, ACTION, 10))!;
    const proceeding: ActionEvent = { type: 'device.feedback', execution: 'proceeding', finished: 'none', at: 2, timestamp: 2, code: null, details: ['a'] };
    expect((await runtime.send(tenant, ACTION, 10, proceeding, { known })).kind).toBe('committed');
    // the same snapshot again, now one version behind
    expect((await runtime.send(tenant, ACTION, 10, { ...proceeding, details: ['b'] }, { known })).kind).toBe('committed');
    const action = await store.get<ActionRecord>(tenant, ACTION, 10);
    expect(action?.version).toBe(3);
    expect(action?.value.entries).toBe(3);
    expect(await store.count(tenant, ACTION_STATUS, 'action', '10')).toBe(2);
  });

  it('a known record that looks final (stale) does not make the event ignored', async () => {
    const { tenant, store, runtime } = await setUp();
    const finished: Stored<ActionRecord> = { id: 10, version: 1, value: anAction({ id: 10, status: 'finished', active: false }) };
    expect((await runtime.send(tenant, ACTION, 10, closedOk, { known: finished })).kind).toBe('committed');
    expect((await store.get<ActionRecord>(tenant, ACTION, 10))?.value.status).toBe('finished');
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.value.updateStatus).toBe('in_sync');
  });
});

/** The store, except that its cached reads answer `target` for target 1 (a copy the cache has not dropped yet). */
function withCachedTarget(store: Store, target: Stored<TargetRecord>): Store {
  const cached = new Proxy(store.cached, {
    get(on, name) {
      if (name === 'get') {
        return (tenant: string, kind: string, id: number) =>
          (kind === TARGET && id === 1 ? Promise.resolve(target) : on.get(tenant, kind, id));
      }
      const v = Reflect.get(on, name, on) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(on) : v;
    },
  });
  return new Proxy(store, {
    get(on, name) {
      if (name === 'cached') return cached;
      const v = Reflect.get(on, name, on) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(on) : v;
    },
  });
}
