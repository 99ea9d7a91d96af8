import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/port.js';
import type { Store } from '../../src/store/port.js';
import { openRedisStore } from '../../src/store/redis/index.js';
import { uniqueBucket } from '../../src/store/redis/keys.js';
import { uniqueTenant } from '../helpers/redis.js';
import { CONTRACT_SCHEMA, ENTRY, NOTE, sleep, THING } from './contract-schema.js';

/** What only the Redis adapter has: its key layout, its connections, its error mapping, durability across clients. */
describe('redis store specifics', () => {
  const raw = createClient({ url: inject('redisUrl'), RESP: 3 });
  const opened: Store[] = [];
  const open = async (): Promise<Store> => {
    const store = await openRedisStore(inject('redisUrl'), CONTRACT_SCHEMA);
    opened.push(store);
    return store;
  };
  beforeAll(async () => {
    await raw.connect();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await raw.close();
  });

  it('keeps every key of a tenant under its hash tag, and dedupe markers for 7 days', async () => {
    const store = await open();
    const tenant = uniqueTenant('layout');
    await store.commit(tenant, {
      writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'a', group: 'g', seen: 5 } }],
      effects: [{ type: 'e' }],
      dedupe: 'evt',
    });
    await store.nextIds(tenant, THING);
    const keys = (await raw.keys(`*${tenant}*`)).sort();
    const tag = `{t:${tenant}}`;
    expect(keys).toEqual([
      `${tag}:all:thing`, `${tag}:done:evt`, `${tag}:fx`, `${tag}:m:thing:group:g`, `${tag}:m:thing:seen:all`,
      `${tag}:r:thing:1`, `${tag}:seq`, `${tag}:u:thing:name:${uniqueBucket('a')}`,
    ]);
    expect(await raw.hGetAll(`${tag}:r:thing:1`)).toEqual({ v: '1', d: '{"name":"a","group":"g","seen":5}' });
    const ttl = await raw.pTTL(`${tag}:done:evt`);
    expect(ttl).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
  });

  it('keeps the records of a packed kind 32 ids to a hash, a version and a JSON field each', async () => {
    const store = await open();
    const tenant = uniqueTenant('packed');
    const tag = `{t:${tenant}}`;
    const first = await store.nextIds(tenant, ENTRY, 40);
    expect(first).toBe(1);
    const writes = Array.from({ length: 40 }, (_, i) => ({ kind: ENTRY, id: i + 1, expect: 0, fresh: true, after: { thing: 7 } }));
    expect((await store.commit(tenant, { writes })).ok).toBe(true);
    expect((await raw.keys(`${tag}:[pr]:*`)).sort()).toEqual([`${tag}:p:entry:0`, `${tag}:p:entry:1`]);
    expect(await raw.hLen(`${tag}:p:entry:0`)).toBe(62); // ids 1-31
    expect(await raw.hLen(`${tag}:p:entry:1`)).toBe(18); // ids 32-40
    expect(await raw.hmGet(`${tag}:p:entry:1`, ['v32', 'd32'])).toEqual(['1', '{"thing":7}']);
    expect(await raw.objectEncoding(`${tag}:p:entry:0`)).toBe('listpack');
  });

  it('does not check that a fresh create (an id its caller reserved) is free: a command fewer per status entry', async () => {
    const store = await open();
    const tenant = uniqueTenant('fresh');
    await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { n: 1 } }] });
    // misuse on purpose (the id was not reserved): only an unchecked create overwrites the record
    expect(await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { n: 2 } }] }))
      .toMatchObject({ ok: false, reason: 'stale-version' });
    const fresh = { kind: NOTE, id: 1, expect: 0, fresh: true, after: { n: 2 } };
    expect(await store.commit(tenant, { writes: [fresh] })).toEqual({ ok: true, versions: [1] });
    expect((await store.get(tenant, NOTE, 1))?.value).toEqual({ n: 2 });
  });

  it('keeps tenants apart whose names contain hash-tag characters', async () => {
    const store = await open();
    const base = uniqueTenant('tag');
    const tenants = [`${base}}x`, `${base}%7dx`, `{${base}`];
    for (const [i, t] of tenants.entries()) await store.commit(t, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { i } }] });
    expect(await Promise.all(tenants.map(async (t) => (await store.get(t, NOTE, 1))?.value))).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
  });

  it('serves other commands while an effects read blocks', async () => {
    const store = await open();
    const tenant = uniqueTenant('block');
    await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }] });
    await store.readEffects([tenant], { consumer: 'c', count: 1, blockMs: 10, reclaimIdleMs: 60_000 });
    const blocked = store.readEffects([tenant], { consumer: 'c', count: 1, blockMs: 2000, reclaimIdleMs: 60_000 }).then((got) => ({ blocked: got }));
    await sleep(100); // deliberately: the read is blocking in Redis before the get is sent
    const first = await Promise.race([store.get(tenant, NOTE, 1).then((r) => ({ version: r?.version })), blocked]);
    expect(first).toEqual({ version: 1 }); // answered while the read still blocks (it ends empty after 2 s)
    expect(await blocked).toEqual({ blocked: [] });
  });

  it('keeps unacked effects across clients: another process reclaims them', async () => {
    const tenant = uniqueTenant('durable');
    const first = await open();
    await first.commit(tenant, { writes: [], effects: [{ type: 'survives' }] });
    const [taken] = await first.readEffects([tenant], { consumer: 'crashed', count: 1, blockMs: 0, reclaimIdleMs: 60_000 });
    await first.close();
    const second = await open();
    await sleep(120); // deliberately past the successor's reclaimIdleMs (100)
    const [again] = await second.readEffects([tenant], { consumer: 'successor', count: 1, blockMs: 0, reclaimIdleMs: 100 });
    expect(again).toMatchObject({ id: taken!.id, eventId: taken!.eventId, deliveries: 2, effect: { type: 'survives' } });
  });

  it('reads a stream found empty again after a third of reclaimIdleMs (at most 5 s), or at once after its store committed an effect there', async () => {
    const tenant = uniqueTenant('quiet');
    const reader = await open();
    const other = await open();
    const read = async (): Promise<string[]> => {
      const got = await reader.readEffects([tenant], { consumer: 'c', count: 5, blockMs: 0, reclaimIdleMs: 900 });
      await reader.ackEffects(got);
      return got.map((e) => String(e.effect.type));
    };
    expect(await read()).toEqual([]); // found empty: quiet for 300 ms
    await other.commit(tenant, { writes: [], effects: [{ type: 'elsewhere' }] });
    expect(await read()).toEqual([]); // another instance's effect: that instance handles it; this one does not look yet
    await sleep(350); // deliberately past the quiet tenant's look (900 / 3 ms)
    expect(await read()).toEqual(['elsewhere']);
    expect(await read()).toEqual([]);
    await reader.commit(tenant, { writes: [], effects: [{ type: 'here' }] });
    expect(await read()).toEqual(['here']); // its own commit: read at once
  });

  it('reports errors Redis raises in a script as they are, not as unavailability', async () => {
    const store = await open();
    const tenant = uniqueTenant('bug');
    await raw.set(`{t:${tenant}}:fx`, 'not a stream');
    const err = await store.commit(tenant, { writes: [], effects: [{ type: 'x' }] }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/WRONGTYPE/);
    await expect(store.pendingEffects(tenant)).rejects.toThrow(/WRONGTYPE/);
  });

  it('keeps each lease under a hash tag of its own, so leases spread over a cluster', async () => {
    const store = await open();
    const name = `scheduler:cleanup:${uniqueTenant('lease')}`;
    expect(await store.acquireLease(name, 'me', 10_000)).toBe(true);
    expect(await raw.get(`{lease:${name}}`)).toBe('me');
    await store.releaseLease(name, 'me');
    expect(await raw.exists(`{lease:${name}}`)).toBe(0);
  });

  it('with waitReplicas, acknowledges a commit on the master alone while no replica is online', async () => {
    // this Redis has no replica: waiting for one would fail every commit
    const store = await openRedisStore(inject('redisUrl'), CONTRACT_SCHEMA, { waitReplicas: 1 });
    opened.push(store);
    const tenant = uniqueTenant('wait');
    expect(await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }] })).toEqual({ ok: true, versions: [1] });
    expect((await store.get(tenant, NOTE, 1))?.version).toBe(1);
  });

  it('answers ping within its timeout and fails after close', async () => {
    const store = await open();
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
