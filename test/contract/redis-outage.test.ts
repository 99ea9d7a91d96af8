import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/port.js';
import type { Store } from '../../src/store/port.js';
import { openRedisStore } from '../../src/store/redis/index.js';
import { freePort, startRedis, uniqueTenant } from '../helpers/redis.js';
import type { RedisServer } from '../helpers/redis.js';
import { CONTRACT_SCHEMA, NOTE, sleep, THING } from './contract-schema.js';

const page = { offset: 0, limit: 10 };
/** How a command's deadline words its failure (src/store/redis/connection.ts withDeadline). */
const DEADLINE = /did not answer .* within \d+ ms/;
const read = { consumer: 'c', count: 5, blockMs: 0, reclaimIdleMs: 60_000 };

/** Every Store operation once, each against data that exists while Redis is up. */
function operations(store: Store, tenant: string): [string, () => Promise<unknown>][] {
  return [
    ['get', () => store.get(tenant, NOTE, 1)],
    ['getMany', () => store.getMany(tenant, NOTE, [1, 2])],
    ['commit', () => store.commit(tenant, { writes: [{ kind: NOTE, id: 99, expect: 0, after: {} }], effects: [{ type: 'x' }] })],
    ['lookup', () => store.lookup(tenant, THING, 'name', 'a')],
    ['lookupMany', () => store.lookupMany(tenant, THING, 'name', ['a'])],
    ['ids', () => store.ids(tenant, NOTE, page)],
    ['members', () => store.members(tenant, THING, 'group', 'g', page)],
    ['range', () => store.range(tenant, THING, 'seen', 'all', 0, 10, page)],
    ['count', () => store.count(tenant, NOTE)],
    ['nextIds', () => store.nextIds(tenant, NOTE)],
    ['readEffects', () => store.readEffects([tenant], read)],
    ['readEffects (blocking)', () => store.readEffects([tenant], { ...read, consumer: 'blocking', blockMs: 5000 })],
    ['ackEffects', () => store.ackEffects([{ tenant, id: '1-0' }])],
    ['pendingEffects', () => store.pendingEffects(tenant)],
    ['acquireLease', () => store.acquireLease(`${tenant}-lease`, 'me', 1000)],
    ['releaseLease', () => store.releaseLease(`${tenant}-lease`, 'me')],
    ['ping', () => store.ping()],
  ];
}

async function eventually(check: () => Promise<unknown>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

describe('redis store when Redis goes down and comes back', () => {
  let redis: RedisServer;
  let store: Store;
  const errors: Error[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    store = await openRedisStore(redis.url, CONTRACT_SCHEMA, { reconnectMaxDelayMs: 200, onError: (e) => errors.push(e) });
  });
  afterAll(async () => {
    await store?.close();
    await redis?.stop();
  });

  it('fails every operation fast with StoreUnavailableError, then recovers on its own', async () => {
    const tenant = uniqueTenant('outage');
    expect((await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { n: 1 } }] })).ok).toBe(true);

    await redis.stop();
    for (const [name, op] of operations(store, tenant)) {
      const outcome = await op().then(() => 'resolved', (err: unknown) => err);
      expect(outcome, name).toBeInstanceOf(StoreUnavailableError);
      // failed because the connection is down (no offline queue), not after waiting out a command deadline
      expect((outcome as Error).message, name).not.toMatch(DEADLINE);
    }
    expect(errors.length).toBeGreaterThan(0); // reported through onError, not as an unhandled 'error' event

    redis = await startRedis({ port: redis.port });
    await eventually(() => store.ping(), 10_000);
    // this Redis kept nothing (no persistence): the store works on the new, empty one
    expect(await store.get(tenant, NOTE, 1)).toBeUndefined();
    expect(await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { n: 2 } }], effects: [{ type: 'back' }] }))
      .toEqual({ ok: true, versions: [1] });
    await eventually(async () => {
      const got = await store.readEffects([tenant], { ...read, consumer: 'blocking', blockMs: 100 });
      expect(got.map((e) => e.effect.type)).toEqual(['back']);
    }, 5000);
  });

  it('ends a blocked effects read with StoreUnavailableError when Redis dies under it', async () => {
    const tenant = uniqueTenant('outage');
    await eventually(() => store.ping(), 10_000);
    await store.readEffects([tenant], { ...read, consumer: 'waiter', blockMs: 10 });
    const waiting = store.readEffects([tenant], { ...read, consumer: 'waiter', blockMs: 15_000 }).then(() => 'resolved', (err: unknown) => err);
    await sleep(200); // deliberately: the read is blocking in Redis when it dies
    await redis.kill();
    const ended = await waiting;
    expect(ended).toBeInstanceOf(StoreUnavailableError);
    // ended by the dead socket, not by the deadline of its 15 s block
    expect((ended as Error).message).not.toMatch(DEADLINE);
    redis = await startRedis({ port: redis.port });
    await eventually(() => store.ping(), 10_000);
  });

  it('fails fast while Redis hangs, and works again when it resumes', async () => {
    const hung = await openRedisStore(redis.url, CONTRACT_SCHEMA, { commandTimeoutMs: 500, pingTimeoutMs: 300 });
    const tenant = uniqueTenant('hung');
    try {
      await eventually(() => hung.ping(), 10_000);
      await hung.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }] });
      redis.pause();
      // each fails on the deadline it was configured with (pingTimeoutMs, commandTimeoutMs), not on TCP's
      await expect(hung.ping()).rejects.toThrow(new StoreUnavailableError('redis did not answer PING within 300 ms'));
      await expect(hung.get(tenant, NOTE, 1)).rejects.toThrow(new StoreUnavailableError('redis did not answer a command within 500 ms'));
      await expect(hung.commit(tenant, { writes: [{ kind: NOTE, id: 2, expect: 0, after: {} }] }))
        .rejects.toThrow(new StoreUnavailableError('redis did not answer a command within 500 ms'));
      redis.resume();
      await eventually(() => hung.ping(), 5000);
      expect((await hung.get(tenant, NOTE, 1))?.version).toBe(1);
      // the commit that timed out may have run after all: its outcome is visible, never half of it
      const late = await hung.get(tenant, NOTE, 2);
      expect(late === undefined || late.version === 1).toBe(true);
    } finally {
      redis.resume();
      await hung.close();
    }
  });

  it('keeps acknowledged commits and pending effects through a crash of a durable Redis', async () => {
    const durable = await startRedis({ appendonly: true });
    let restarted: RedisServer | undefined;
    const store2 = await openRedisStore(durable.url, CONTRACT_SCHEMA, { reconnectMaxDelayMs: 200 });
    try {
      const tenant = uniqueTenant('crash');
      await store2.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'kept', group: 'g' } }], effects: [{ type: 'kept' }], dedupe: 'evt' });
      await durable.kill();
      restarted = await startRedis({ appendonly: true, dir: durable.dir, port: durable.port });
      await eventually(() => store2.ping(), 10_000);
      expect(await store2.get(tenant, THING, 1)).toEqual({ id: 1, version: 1, value: { name: 'kept', group: 'g' } });
      expect(await store2.lookup(tenant, THING, 'name', 'kept')).toBe(1);
      expect(await store2.commit(tenant, { writes: [], dedupe: 'evt' })).toEqual({ ok: false, reason: 'duplicate' });
      const [effect] = await store2.readEffects([tenant], read);
      expect(effect?.effect).toEqual({ type: 'kept' });
    } finally {
      await store2.close();
      await restarted?.stop();
      await durable.stop();
    }
  });

  it('refuses to open when nothing answers, with StoreUnavailableError', async () => {
    const port = await freePort();
    // on the open deadline it was given
    await expect(openRedisStore(`redis://127.0.0.1:${port}`, CONTRACT_SCHEMA, { openTimeoutMs: 500 }))
      .rejects.toThrow(new StoreUnavailableError(`cannot reach redis at redis://127.0.0.1:${port} within 500 ms`));
  });
});
