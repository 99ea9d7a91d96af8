import { createClient } from 'redis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openRedisStore, type RedisTarget } from '../../src/store/redis/index.js';
import { MISS, type Store } from '../../src/store/port.js';
import { TrackingCache } from '../../src/store/redis/cached-reads.js';
import { uniqueBucket } from '../../src/store/redis/keys.js';
import { startRedis, uniqueTenant } from '../helpers/redis.js';
import { CONTRACT_SCHEMA, ENTRY, THING } from './contract-schema.js';

/** One Redis and a Redis Cluster: the targets of the tests that run on both. */
const TARGETS: [string, () => RedisTarget][] = [
  ['one Redis', () => inject('redisUrl')],
  ['a Redis Cluster', () => inject('redisClusterUrls')],
];

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
  it.each(TARGETS)('sees writes of its own instance and of another instance on %s', async (_, target) => {
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

  // a packed record's cached read hangs on its packed hash (keys.ts recordPlace), which is what a write of it touches
  it.each(TARGETS)('drops a cached record of a packed kind that another instance wrote or deleted on %s', async (_, target) => {
    const tenant = uniqueTenant('cache');
    const [a, b] = [await open(target()), await open(target())];
    await a.commit(tenant, { writes: [33, 34].map((id) => ({ kind: ENTRY, id, expect: 0, after: { thing: 1 } })) });
    expect((await a.cached.getMany(tenant, ENTRY, [33, 34])).map((s) => s?.version)).toEqual([1, 1]);
    await b.commit(tenant, { writes: [{ kind: ENTRY, id: 33, expect: 1, before: { thing: 1 }, after: { thing: 2 } }] });
    await expect.poll(async () => (await a.cached.get(tenant, ENTRY, 33))?.value, { timeout: 1000, interval: 5 }).toEqual({ thing: 2 });
    await b.commit(tenant, { writes: [{ kind: ENTRY, id: 34, expect: 1, before: { thing: 1 }, after: null }] });
    await expect.poll(async () => a.cached.get(tenant, ENTRY, 34), { timeout: 1000, interval: 5 }).toBeUndefined();
    expect((await a.cached.get(tenant, ENTRY, 33))?.version).toBe(2);
  });

  // the scheduler's idle looks: whether a kind or an index holds anything, cached until another instance writes it
  it.each(TARGETS)('sees a record another instance created in the cached ids and members of an empty kind on %s', async (_, target) => {
    const tenant = uniqueTenant('cache');
    const [a, b] = [await open(target()), await open(target())];
    const first = { offset: 0, limit: 1 };
    expect(await a.cached.ids(tenant, THING, first)).toEqual({ ids: [], total: 0 });
    expect(await a.cached.members(tenant, THING, 'group', 'g', first)).toEqual({ ids: [], total: 0 });
    await b.commit(tenant, { writes: [{ kind: THING, id: 4, expect: 0, after: { name: 'four', group: 'g' } }] });
    await expect.poll(async () => (await a.cached.ids(tenant, THING, first)).total, { timeout: 1000, interval: 5 }).toBe(1);
    expect(await a.cached.members(tenant, THING, 'group', 'g', first)).toEqual({ ids: [4], total: 1 });
    await a.commit(tenant, { writes: [{ kind: THING, id: 4, expect: 1, before: { name: 'four', group: 'g' }, after: null }] });
    expect(await a.cached.ids(tenant, THING, first)).toEqual({ ids: [], total: 0 }); // its own write: at once
  });

  // The rollout start's pattern: many concurrent commits by another connection (the engine's 256 starts,
  // each adding an action to its target's own index key) while the same keys are read through the cache.
  // A read that reaches Redis after the commits returned is answered after every invalidation they caused
  // (one connection, in order), so from then on no cached read may be stale.
  it.each(TARGETS)('is fresh after a burst of concurrent writes by another instance, with reads in flight, on %s', async (_, target) => {
    const tenant = uniqueTenant('cache');
    const [reader, writer] = [await open(target()), await open(target())];
    const ids = Array.from({ length: 300 }, (_, i) => i + 1);
    const before = (id: number) => ({ name: `t${id}`, group: `waiting-${id}` });
    const after = (id: number) => ({ name: `t${id}`, group: `running-${id}` });
    const page = { offset: 0, limit: 10 };
    await Promise.all(ids.map((id) => writer.commit(tenant, { writes: [{ kind: THING, id, expect: 0, after: before(id) }] })));
    const readAll = (id: number) => Promise.all([
      reader.cached.get(tenant, THING, id),
      reader.cached.members(tenant, THING, 'group', `waiting-${id}`, page),
      reader.cached.members(tenant, THING, 'group', `running-${id}`, page),
    ]);
    // every key cached (and tracked) before the burst
    for (const id of ids) expect((await readAll(id))[0]?.version).toBe(1);
    for (let i = 0; i < ids.length; i += 256) {
      const chunk = ids.slice(i, i + 256);
      await Promise.all(chunk.flatMap((id) => [
        readAll(id),
        writer.commit(tenant, { writes: [{ kind: THING, id, expect: 1, before: before(id), after: after(id) }] })
          .then((r) => expect(r.ok).toBe(true)),
        readAll(id),
      ]));
    }
    expect(await reader.cached.get(tenant, THING, 10_000)).toBeUndefined(); // never cached: this one reaches Redis
    const stale: number[] = [];
    for (const id of ids) {
      const [thing, waiting, running] = await readAll(id);
      if (thing?.version !== 2 || waiting.total !== 0 || running.ids[0] !== id) stale.push(id);
    }
    expect(stale).toEqual([]);
  });

  // Redis invalidates per key: a new unique key drops the cached lookups of its bucket, not of the whole index
  it.each(TARGETS)('keeps the cached lookups of other buckets when a unique key is claimed, on %s', async (_, target) => {
    const tenant = uniqueTenant('cache');
    const store = await open(target());
    const names = Array.from({ length: 200 }, (_, i) => `n${i + 1}`);
    await store.commit(tenant, { writes: names.map((name, i) => ({ kind: THING, id: i + 1, expect: 0, after: { name } })) });
    for (const [i, name] of names.entries()) expect(await store.cached.lookup(tenant, THING, 'name', name)).toBe(i + 1);
    expect(await store.cached.lookup(tenant, THING, 'name', 'new')).toBeUndefined();
    await store.commit(tenant, { writes: [{ kind: THING, id: 201, expect: 0, after: { name: 'new' } }] });
    await expect.poll(() => store.cached.lookup(tenant, THING, 'name', 'new'), { timeout: 1000, interval: 5 }).toBe(201);
    const dropped = names.filter((name) => store.cached.peekLookup(tenant, THING, 'name', name) === MISS);
    expect(dropped).toEqual(names.filter((name) => uniqueBucket(name) === uniqueBucket('new')));
    expect(dropped.length).toBeLessThan(names.length);
  });

  // Redis's invalidation push travels on another connection and may land after the commit's answer:
  // the writing process must not wait for it to read what it wrote
  it.each(TARGETS)('reads its own writes at once, before the invalidation arrives, on %s', async (_, target) => {
    const tenant = uniqueTenant('cache');
    const store = await open(target());
    await store.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'one', group: 'g' } }] });
    for (let round = 1; round <= 20; round++) {
      const cached = await store.cached.get(tenant, THING, 1);
      expect(cached?.version).toBe(round);
      const [oldName, newName] = [round === 1 ? 'one' : `v${round - 1}`, `v${round}`];
      expect(await store.cached.lookup(tenant, THING, 'name', oldName)).toBe(1);
      expect(await store.cached.lookup(tenant, THING, 'name', newName)).toBeUndefined();
      const value = { name: newName, group: `g${round}` };
      const r = await store.commit(tenant, { writes: [{ kind: THING, id: 1, expect: round, before: cached?.value, after: value }] });
      expect(r.ok).toBe(true);
      // no await in between: nothing the push could have delivered yet
      expect(store.cached.peekGet(tenant, THING, 1)).toBe(MISS);
      expect(store.cached.peekLookup(tenant, THING, 'name', oldName)).toBe(MISS);
      expect(store.cached.peekLookup(tenant, THING, 'name', newName)).toBe(MISS);
    }
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

  // the poll lane keeps what it derived from cached values while `changes` stays: a fleet whose values
  // outnumber cacheEntries must not move it with every eviction (every device's slot would be made again)
  it('keeps `changes` through evictions, and moves it when an evicted value is written', async () => {
    const tenant = uniqueTenant('cache');
    const store = await openRedisStore(inject('redisUrl'), CONTRACT_SCHEMA, { cacheEntries: 2 });
    stores.push(store);
    const reads = store.cached;
    const ids = [1, 2, 3, 4];
    await store.commit(tenant, { writes: ids.map((id) => ({ kind: THING, id, expect: 0, after: { name: `n${id}`, group: 'g' } })) });
    for (const id of [1, 2]) await reads.get(tenant, THING, id);
    const changes = reads.changes;
    for (const id of [3, 4]) await reads.get(tenant, THING, id);
    const evicted = ids.filter((id) => reads.peekGet(tenant, THING, id) === MISS);
    expect(evicted.length).toBe(2);
    expect(reads.changes).toBe(changes);
    // another instance writes an evicted value: Redis pushes the invalidation, which moves `changes`
    const other = await openRedisStore(inject('redisUrl'), CONTRACT_SCHEMA);
    stores.push(other);
    const id = evicted[0]!;
    const before = { name: `n${id}`, group: 'g' };
    expect((await other.commit(tenant, { writes: [{ kind: THING, id, expect: 1, before, after: { name: 'x', group: 'g' } }] })).ok).toBe(true);
    await expect.poll(() => reads.changes, { timeout: 1000, interval: 5 }).not.toBe(changes);
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

  // node-redis 5.12's cache never drops the key of a value it evicts from its key -> cache keys map: a
  // bounded cache still grew by a Map entry, a Set and a string per key ever read
  it('keeps nothing per key read in node-redis\'s cache, and still reports every invalidation', async () => {
    const tracking = new TrackingCache({ maxEntries: 4, recordStats: false });
    const invalidated: (string | null)[] = [];
    tracking.onInvalidate((key) => invalidated.push(key));
    const reader = createClient({ url: inject('redisUrl'), RESP: 3, clientSideCache: tracking });
    const writer = createClient({ url: inject('redisUrl') });
    await Promise.all([reader.connect(), writer.connect()]);
    try {
      const keys = Array.from({ length: 50 }, (_, i) => `{t:${uniqueTenant('track')}}:r:thing:${i}`);
      await Promise.all(keys.map((k, i) => writer.hSet(k, { v: '1', d: String(i) })));
      for (const [i, k] of keys.entries()) expect(await reader.hGet(k, 'd')).toBe(String(i));
      expect(tracking.size()).toBe(0);
      expect([...tracking.keySetEntries()]).toEqual([]);
      // a read is not answered from a copy: a write is seen at once, and Redis still pushes its invalidation
      await writer.hSet(keys[7]!, 'd', 'changed');
      expect(await reader.hGet(keys[7]!, 'd')).toBe('changed');
      await expect.poll(() => invalidated.includes(keys[7]!), { timeout: 1000, interval: 5 }).toBe(true);
    } finally {
      await Promise.all([reader.close(), writer.close()]);
    }
  });
});
