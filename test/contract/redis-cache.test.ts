import { createClient } from 'redis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openRedisStore, type RedisTarget } from '../../src/store/redis/index.js';
import { MISS, type Store } from '../../src/store/port.js';
import { startRedis, uniqueTenant } from '../helpers/redis.js';
import { CONTRACT_SCHEMA, THING } from './contract-schema.js';

/**
 * The cached read view: served from the client-side cache, and still never stale for longer than the
 * invalidation takes, whether this instance or another one wrote.
 */
describe('redis cached reads', () => {
  const stores: Store[] = [];
  afterEach(async () => { await Promise.all(stores.splice(0).map((s) => s.close())); });
  const open = async (target: RedisTarget): Promise<Store> => {
    const s = await openRedisStore(target, CONTRACT_SCHEMA);
    stores.push(s);
    return s;
  };

  // on the cluster, each instance's tracking connection to the tenant's node gets the invalidations
  it.each([
    ['one Redis', () => inject('redisUrl')],
    ['a Redis Cluster', () => inject('redisClusterUrls')],
  ])('sees writes of its own instance and of another instance on %s', async (_, target) => {
    const tenant = uniqueTenant('cache');
    const [a, b] = [await open(target()), await open(target())];
    expect(a.cached).not.toBe(a);
    await a.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'one', group: 'g' } }] });
    expect((await a.cached.get(tenant, THING, 1))?.value).toEqual({ name: 'one', group: 'g' });
    expect((await b.cached.get(tenant, THING, 1))?.version).toBe(1);
    // b changes it: a's cached entry is invalidated by Redis
    await b.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 1, before: { name: 'one', group: 'g' }, after: { name: 'uno', group: 'h' } }] });
    await expect.poll(async () => (await a.cached.get(tenant, THING, 1))?.version, { timeout: 1000, interval: 5 }).toBe(2);
    expect(await a.cached.lookup(tenant, THING, 'name', 'uno')).toBe(1);
    expect((await a.cached.members(tenant, THING, 'group', 'h', { offset: 0, limit: 5 })).ids).toEqual([1]);
    expect((await a.cached.members(tenant, THING, 'group', 'g', { offset: 0, limit: 5 })).ids).toEqual([]);
  });

  it('answers repeated reads without asking Redis again', async () => {
    // a private redis-server: the command counters must not see other test files' traffic
    const redis = await startRedis();
    const tenant = uniqueTenant('cache');
    const store = await openRedisStore(redis.url, CONTRACT_SCHEMA);
    stores.push(store);
    await store.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'one', group: 'g' } }] });
    await store.cached.get(tenant, THING, 1); // fills the cache
    const admin = createClient({ url: redis.url });
    await admin.connect();
    try {
      const hmgetCalls = async (): Promise<number> => Number(/cmdstat_hmget:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
      const before = await hmgetCalls();
      for (let i = 0; i < 100; i++) expect((await store.cached.get(tenant, THING, 1))?.version).toBe(1);
      expect(await hmgetCalls()).toBe(before);
    } finally {
      await admin.close();
      await store.close();
      stores.splice(stores.indexOf(store), 1);
      await redis.stop();
    }
  });

  it('holds at most cacheEntries values, evicting ones not read lately, and stays coherent', async () => {
    const tenant = uniqueTenant('cache');
    const store = await openRedisStore(inject('redisUrl'), CONTRACT_SCHEMA, { cacheEntries: 3 });
    stores.push(store);
    const reads = store.cached as typeof store.cached & { readonly size: number };
    const writes = [1, 2, 3, 4, 5].map((id) => ({ kind: THING, id, expect: 0, after: { name: `n${id}`, group: 'g' } }));
    await store.commit(tenant, { writes });
    for (const id of [1, 2, 3]) await reads.get(tenant, THING, id);
    expect(reads.size).toBe(3);
    // 4 and 5 take the places of two of them
    for (const id of [4, 5]) expect((await reads.get(tenant, THING, id))?.value).toEqual({ name: `n${id}`, group: 'g' });
    expect(reads.size).toBe(3);
    expect([1, 2, 3, 4, 5].filter((id) => reads.peekGet(tenant, THING, id) !== MISS).length).toBe(3);
    // an evicted value is read again from Redis; a cached one is still invalidated by a write
    expect((await reads.get(tenant, THING, 2))?.version).toBe(1);
    const cached = [1, 2, 3, 4, 5].find((id) => reads.peekGet(tenant, THING, id) !== MISS) as number;
    await store.commit(tenant, { writes: [{ kind: THING, id: cached, expect: 1, before: { name: `n${cached}`, group: 'g' }, after: { name: 'x', group: 'g' } }] });
    await expect.poll(async () => (await reads.get(tenant, THING, cached))?.version, { timeout: 1000, interval: 5 }).toBe(2);
    expect(reads.size).toBeLessThanOrEqual(3);
  });

  it('forgets everything it cached when the connection to Redis was lost', async () => {
    const redis = await startRedis();
    const tenant = uniqueTenant('cache');
    const store = await openRedisStore(redis.url, CONTRACT_SCHEMA, { reconnectMaxDelayMs: 100 });
    try {
      await store.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'one', group: 'g' } }] });
      expect((await store.cached.get(tenant, THING, 1))?.version).toBe(1);
      // Redis restarts empty (no persistence): nothing it could invalidate, the record is simply gone
      await redis.stop();
      const again = await startRedis({ port: redis.port });
      try {
        await expect.poll(async () => {
          try { return await store.cached.get(tenant, THING, 1); } catch { return 'unavailable'; }
        }, { timeout: 5000, interval: 50 }).toBeUndefined();
      } finally {
        await again.stop();
      }
    } finally {
      await store.close();
    }
  });
});
