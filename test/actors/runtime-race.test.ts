import { afterEach, describe, expect, inject, it } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../src/domain/action.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { uniqueTenant } from '../helpers/redis.js';
import { aTarget } from '../fixtures/records.js';
import { openInstance, seedAssigned, type Instance } from './runtime-fixture.js';

/**
 * Two server instances (separate connections, runtimes and dispatchers) on one Redis race on the
 * same actors: compare-and-set with reload-and-retry loses no update and applies none twice.
 */
describe('actor runtime: two instances racing on one Redis', () => {
  const open: Instance[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((i) => i.close())); });

  async function twoInstances(tenant: string): Promise<[Instance, Instance]> {
    const url = inject('redisUrl');
    const a = await openInstance('redis', url, tenant, 'a');
    const b = await openInstance('redis', url, tenant, 'b');
    open.push(a, b);
    return [a, b];
  }

  it('a target registering at its first poll from both instances at once commits exactly once', async () => {
    const tenant = uniqueTenant('race');
    const [a, b] = await twoInstances(tenant);
    await a.runtime.create(tenant, TARGET, aTarget({ id: 1, updateStatus: 'unknown' }));
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => a.runtime.send(tenant, TARGET, 1, { type: 'device.polled', at: 1 })),
      ...Array.from({ length: 10 }, () => b.runtime.send(tenant, TARGET, 1, { type: 'device.polled', at: 1 })),
    ]);
    expect(results.filter((r) => r.kind === 'committed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'ignored')).toHaveLength(19);
    const stored = await b.store.get<TargetRecord>(tenant, TARGET, 1);
    expect(stored?.value.updateStatus).toBe('registered');
    expect(stored?.version).toBe(2);
  });

  it('200 concurrent feedback reports through both instances all land: no lost update', async () => {
    const tenant = uniqueTenant('race');
    const [a, b] = await twoInstances(tenant);
    await seedAssigned(a.runtime, tenant);
    const report = (i: number) => ({ type: 'device.feedback', execution: 'proceeding', finished: 'none', at: i, timestamp: i, code: i, details: [`step ${i}`] }) as const;
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).runtime.send(tenant, ACTION, 10, report(i))));
    expect(results.every((r) => r.kind === 'committed')).toBe(true);
    const action = await a.store.get<ActionRecord>(tenant, ACTION, 10);
    expect(action?.value.entries).toBe(201);
    expect(action?.version).toBe(201);
    expect(await a.store.count(tenant, ACTION_STATUS, 'action', '10')).toBe(200);
  });

  it('the effect of a closed action reaches the target once although both dispatchers run', async () => {
    const tenant = uniqueTenant('race');
    const [a, b] = await twoInstances(tenant);
    await seedAssigned(a.runtime, tenant);
    a.dispatcher.start();
    b.dispatcher.start();
    // an action's end by cancellation reaches its target through the queue (a final feedback does not: runtime-follow.test.ts)
    const sent = await a.runtime.send(tenant, ACTION, 10, { type: 'mgmt.close', at: 5, by: 'test' });
    expect(sent.kind).toBe('committed');
    if (sent.kind === 'committed') expect(sent.effectIds).toHaveLength(1);
    await expect.poll(async () => (await a.store.get<TargetRecord>(tenant, TARGET, 1))?.value.updateStatus).toBe('in_sync');
    await expect.poll(async () => a.store.pendingEffects(tenant)).toBe(0);
    const target = await b.store.get<TargetRecord>(tenant, TARGET, 1);
    expect(target?.version).toBe(2);
    expect(target?.value).toMatchObject({ installedDs: null, assignedDs: null });
  });

  it('a final feedback on one instance and an edit of its target on the other: both land, the target once', async () => {
    const tenant = uniqueTenant('race');
    const [a, b] = await twoInstances(tenant);
    await seedAssigned(a.runtime, tenant);
    // instance a has the target in its client-side cache, then b changes it: a's first attempt may step a stale copy
    await a.store.cached.get<TargetRecord>(tenant, TARGET, 1);
    const [sent, edited] = await Promise.all([
      a.runtime.send(tenant, ACTION, 10, { type: 'device.feedback', execution: 'closed', finished: 'success', at: 5, timestamp: 5, code: null, details: [] }),
      b.runtime.update(tenant, TARGET, 1, (t) => ({ ...t, description: 'edited' })),
    ]);
    expect(sent.kind).toBe('committed');
    expect(edited.kind).toBe('updated');
    const target = await b.store.get<TargetRecord>(tenant, TARGET, 1);
    expect(target?.version).toBe(3);
    expect(target?.value).toMatchObject({ description: 'edited', updateStatus: 'in_sync', installedDs: 7, installedAction: 10 });
    expect(await a.store.pendingEffects(tenant)).toBe(0);
  });
});
