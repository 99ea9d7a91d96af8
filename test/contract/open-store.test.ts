import { describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { CONTRACT_SCHEMA, NOTE } from './contract-schema.js';
import { StoreUnavailableError } from '../../src/store/port.js';
import { freePort, uniqueTenant } from '../helpers/redis.js';

describe('openStore', () => {
  it.each(['memory', 'redis'] as const)('opens a working %s store', async (kind) => {
    const store = await openStore({ kind, schema: CONTRACT_SCHEMA, redisUrl: inject('redisUrl') });
    try {
      expect(store.kind).toBe(kind);
      const tenant = uniqueTenant('open');
      expect(await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { kind } }] }))
        .toEqual({ ok: true, versions: [1] });
      expect((await store.get(tenant, NOTE, 1))?.value).toEqual({ kind });
    } finally {
      await store.close();
    }
  });

  it('opens a redis store on a cluster when given its nodes, whatever redisUrl says', async () => {
    const store = await openStore({ kind: 'redis', schema: CONTRACT_SCHEMA, redisUrl: 'redis://127.0.0.1:1', redisCluster: inject('redisClusterUrls') });
    try {
      const tenant = uniqueTenant('open');
      expect(await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }] })).toEqual({ ok: true, versions: [1] });
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('fails with StoreUnavailableError when no cluster node answers', async () => {
    const port = await freePort(); // nothing listens there
    const opening = openStore({ kind: 'redis', schema: CONTRACT_SCHEMA, redisCluster: [`redis://127.0.0.1:${port}`], redis: { openTimeoutMs: 500 } });
    await expect(opening).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(opening).rejects.toThrow(`cannot reach redis at the cluster of redis://127.0.0.1:${port} within 500 ms`);
  });

  it('refuses redis without a url and unknown kinds', async () => {
    await expect(openStore({ kind: 'redis', schema: CONTRACT_SCHEMA })).rejects.toThrow(/redisUrl/);
    await expect(openStore({ kind: 'disk' as 'memory', schema: CONTRACT_SCHEMA })).rejects.toThrow(/unknown store kind "disk"/);
  });
});
