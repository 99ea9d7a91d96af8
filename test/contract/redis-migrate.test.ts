import { createClient, createCluster } from 'redis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { Store } from '../../src/store/port.js';
import { createConnection, deadlineGuard, type RedisTarget } from '../../src/store/redis/connection.js';
import { openRedisStore } from '../../src/store/redis/index.js';
import { allKey, legacyUniqueKey, multiKey, recordKey, recordPlace, tenantTag, uniqueBucket, uniqueKey, UNIQUE_BUCKETS } from '../../src/store/redis/keys.js';
import { dropUnusedKeys, migrateUniqueBuckets, packRecords, PACKED_RECORDS_DONE, UNIQUE_BUCKETS_DONE, UNUSED_KEYS_DONE } from '../../src/store/redis/migrate.js';
import { uniqueTenant } from '../helpers/redis.js';
import { CONTRACT_SCHEMA, ENTRY, THING } from './contract-schema.js';

const TARGETS: [string, () => RedisTarget][] = [
  ['one Redis', () => inject('redisUrl')],
  ['a Redis Cluster', () => inject('redisClusterUrls')],
];

/** A plain client of the target, for writing the old layout and looking at keys. */
async function rawClient(target: RedisTarget) {
  const raw = typeof target === 'string' ? createClient({ url: target }) : createCluster({ rootNodes: target.map((url) => ({ url })) });
  await raw.connect();
  return raw;
}

/** Unique indexes in buckets (keys.ts), and the move of the layout before them (migrate.ts). */
describe('redis unique-index buckets', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });
  const open = async (target: RedisTarget): Promise<Store> => {
    const store = await openRedisStore(target, CONTRACT_SCHEMA);
    closers.push(() => store.close());
    return store;
  };

  it('spreads keys over all buckets, always to the same one', () => {
    const counts = new Array<number>(UNIQUE_BUCKETS).fill(0);
    for (let i = 0; i < 100_000; i++) counts[uniqueBucket(`device-${String(i).padStart(6, '0')}`)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan(64); // far below hash-max-listpack-entries (512)
    // the stored layout, which must never change: FNV-1a's published vectors ('a', 'foobar') modulo 4096,
    // and UTF-16 code units xored in whole
    expect(['', 'a', 'foobar', 'device-000001', 'ü€😀'].map(uniqueBucket)).toEqual([3525, 2348, 2408, 765, 2376]);
    // a lone surrogate reaches Redis as U+FFFD (UTF-8): the same field, so the same bucket
    expect([uniqueBucket('x\ud800'), uniqueBucket('x\udfff')]).toEqual([uniqueBucket('x\ufffd'), uniqueBucket('x\ufffd')]);
  });

  it.each(TARGETS)('moves unique indexes of the old layout into buckets at open, once, on %s', async (_, target) => {
    const raw = await rawClient(target());
    closers.push(() => raw.close());
    const tenant = uniqueTenant('migrate');
    const tag = tenantTag(tenant);
    // the last one with a lone surrogate, which Redis stores (and HSCAN returns) as U+FFFD
    const names = [...Array.from({ length: 2499 }, (_, i) => `n${i + 1}`), 'lone\ud800'];
    // the old layout: one hash for the whole index (hash-table encoded at this size: HSCAN takes several pages)
    await raw.hSet(legacyUniqueKey(tag, THING, 'name'), names.flatMap((n, i) => [n, String(i + 1)]));
    // a crash part way: n1 was moved already (and later claimed by id 9999 in its bucket, which wins)
    await raw.hSet(uniqueKey(tag, THING, 'name', 'n1'), 'n1', '9999');
    // as on a Redis this version never opened (other test files' stores may run the move at the same time: it is idempotent)
    await raw.del(UNIQUE_BUCKETS_DONE);
    const store = await open(target());
    expect(await raw.exists(legacyUniqueKey(tag, THING, 'name'))).toBe(0);
    expect(await raw.exists(UNIQUE_BUCKETS_DONE)).toBe(1);
    expect(await store.lookup(tenant, THING, 'name', 'n1')).toBe(9999);
    expect(await store.lookup(tenant, THING, 'name', 'n2499')).toBe(2499);
    expect(await store.lookup(tenant, THING, 'name', 'lone\ud800')).toBe(2500);
    const ids = await store.lookupMany(tenant, THING, 'name', names);
    expect(ids).toEqual(names.map((_, i) => (i === 0 ? 9999 : i + 1)));
    // nothing left to move: opening again (a GET of the mark), or the step's SCAN without the mark, changes nothing
    await open(target());
    await raw.del(UNIQUE_BUCKETS_DONE);
    const connection = createConnection(target(), { reconnectMaxDelayMs: 100, connectTimeoutMs: 1000, onError: () => {} });
    await connection.open(2000);
    closers.push(() => connection.close());
    expect(await migrateUniqueBuckets(connection, deadlineGuard(2000))).toBe(0);
    expect(await store.lookupMany(tenant, THING, 'name', names)).toEqual(ids);
  });

  it.each(TARGETS)('answers lookupMany over many buckets in the order asked, on %s', async (_, target) => {
    const store = await open(target());
    const tenant = uniqueTenant('buckets');
    const writes = Array.from({ length: 300 }, (_, i) => ({ kind: THING, id: i + 1, expect: 0, after: { name: `n${i + 1}` } }));
    expect((await store.commit(tenant, { writes })).ok).toBe(true);
    const keys = ['n300', 'missing', 'n1', 'n150', 'n300', ...writes.map((w) => w.after.name).reverse(), 'other'];
    const buckets = new Set(keys.map(uniqueBucket));
    expect(buckets.size).toBeGreaterThan(250);
    const expected = keys.map((k) => (/^n\d+$/.test(k) ? Number(k.slice(1)) : undefined));
    expect(await store.lookupMany(tenant, THING, 'name', keys)).toEqual(expected);
  });
});

/**
 * Keys of earlier layouts: those nothing reads (an unlisted kind's `all` set, the action's `active` index),
 * and a packed kind's records in a hash each.
 */
describe('redis keys of earlier layouts', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  it.each(TARGETS)('writes no all set of an unlisted kind, and deletes the ones earlier versions wrote, on %s', async (_, target) => {
    const raw = await rawClient(target());
    closers.push(() => raw.close());
    const store = await openRedisStore(target(), CONTRACT_SCHEMA);
    closers.push(() => store.close());
    const tenant = uniqueTenant('unused');
    const tag = tenantTag(tenant);
    expect((await store.commit(tenant, { writes: [{ kind: ENTRY, id: 1, expect: 0, after: { thing: 5 } }] })).ok).toBe(true);
    expect(await raw.hExists(recordPlace(tag, ENTRY, 1, true).key, 'v1')).toBe(1);
    expect(await raw.exists(allKey(tag, ENTRY))).toBe(0);
    // the old layout: the entries' all set, the action's active index (a kind this schema does not have);
    // and keys that only end like them (a multi key's last segment may hold anything), which stay
    await raw.zAdd(allKey(tag, ENTRY), [{ score: 1, value: '1' }, { score: 2, value: '2' }]);
    await raw.zAdd(multiKey(tag, 'action', 'active', 'true'), { score: 3, value: '3' });
    await raw.zAdd(multiKey(tag, 'action', 'active', 'false'), { score: 4, value: '4' });
    const lookalikes = [multiKey(tag, THING, 'tag', `}:all:${ENTRY}`), multiKey(tag, THING, 'tag', 'x:m:action:active:true'), allKey(tag, THING)];
    for (const key of lookalikes) await raw.zAdd(key, { score: 1, value: '1' });
    await raw.del(UNUSED_KEYS_DONE);
    const connection = createConnection(target(), { reconnectMaxDelayMs: 100, connectTimeoutMs: 1000, onError: () => {} });
    await connection.open(2000);
    closers.push(() => connection.close());
    // other test files' stores may delete some of them at the same time: at least these three are gone
    expect(await dropUnusedKeys(connection, deadlineGuard(2000), CONTRACT_SCHEMA)).toBeGreaterThanOrEqual(0);
    expect(await raw.exists(UNUSED_KEYS_DONE)).toBe(1);
    expect(await raw.exists([allKey(tag, ENTRY), multiKey(tag, 'action', 'active', 'true'), multiKey(tag, 'action', 'active', 'false')])).toBe(0);
    for (const key of lookalikes) expect(await raw.exists(key), key).toBe(1);
    expect(await store.members(tenant, ENTRY, 'thing', '5', { offset: 0, limit: 10 })).toEqual({ ids: [1], total: 1 });
    // done: a second call reads the mark and deletes nothing
    await raw.zAdd(allKey(tag, ENTRY), { score: 1, value: '1' });
    expect(await dropUnusedKeys(connection, deadlineGuard(2000), CONTRACT_SCHEMA)).toBe(0);
    expect(await raw.exists(allKey(tag, ENTRY))).toBe(1);
  });

  // records of a packed kind, which earlier versions kept in a hash each (keys.ts recordPlace, migrate.ts packRecords)
  it.each(TARGETS)('moves the records of a packed kind kept one per hash into their packed hashes at open, once, on %s', async (_, target) => {
    const raw = await rawClient(target());
    closers.push(() => raw.close());
    const tenant = uniqueTenant('pack');
    const tag = tenantTag(tenant);
    // the old layout: a hash per entry (ids 1-40 and 70, over three packed hashes), and one record moved
    // before a crash (40: its old hash still there, its packed place holds the newer one, which wins)
    const ids = [...Array.from({ length: 40 }, (_, i) => i + 1), 70];
    for (const id of ids) await raw.hSet(recordKey(tag, ENTRY, id), { v: id === 2 ? '3' : '1', d: JSON.stringify({ thing: id % 2 }) });
    await raw.hSet(recordPlace(tag, ENTRY, 40, true).key, { v40: '2', d40: '{"thing":9}' });
    // keys that only look alike stay: a listed kind's record, a kind named alike, a key with more after the id
    const lookalikes = [recordKey(tag, THING, 1), recordKey(tag, `${ENTRY}x`, 1), `${recordKey(tag, ENTRY, 1)}:x`];
    for (const key of lookalikes) await raw.hSet(key, { v: '1', d: '{"name":"x"}' });
    await raw.del(PACKED_RECORDS_DONE);
    const connection = createConnection(target(), { reconnectMaxDelayMs: 100, connectTimeoutMs: 1000, onError: () => {} });
    await connection.open(2000);
    closers.push(() => connection.close());
    // other test files' stores may move some of them at the same time (the move is idempotent)
    expect(await packRecords(connection, deadlineGuard(2000), CONTRACT_SCHEMA)).toBeLessThanOrEqual(ids.length);
    expect(await raw.exists(PACKED_RECORDS_DONE)).toBe(1);
    expect(await raw.exists(ids.map((id) => recordKey(tag, ENTRY, id)))).toBe(0);
    for (const key of lookalikes) expect(await raw.exists(key), key).toBe(1);
    const store = await openRedisStore(target(), CONTRACT_SCHEMA);
    closers.push(() => store.close());
    const got = await store.getMany(tenant, ENTRY, ids);
    const expected = ids.map((id) => (id === 40 ? [2, { thing: 9 }] : [id === 2 ? 3 : 1, { thing: id % 2 }]));
    expect(got.map((s) => [s?.version, s?.value])).toEqual(expected);
    // done: a second call reads the mark and moves nothing
    await raw.hSet(recordKey(tag, ENTRY, 99), { v: '1', d: '{"thing":1}' });
    expect(await packRecords(connection, deadlineGuard(2000), CONTRACT_SCHEMA)).toBe(0);
    expect(await raw.exists(recordKey(tag, ENTRY, 99))).toBe(1);
  });
});
