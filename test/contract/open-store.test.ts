import { describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { CONTRACT_SCHEMA, NOTE } from './contract-schema.js';
import { uniqueTenant } from '../helpers/redis.js';

describe('openStore', () => {
  it.each(['memory', 'redis'] as const)('opens a working %s store', async (kind) => {
    const store = await openStore({ kind, schema: CONTRACT_SCHEMA, redisUrl: inject('redisUrl') });
    try {
      expect(store.kind).toBe(kind);
      const tenant = uniqueTenant('open');
      expect(await store.commit(tenant, { writes: [{ kind: NOTE, id: 1, expect: 0, after: { kind } }] })).toEqual({ ok: true, versions: [1] });
      expect((await store.get(tenant, NOTE, 1))?.value).toEqual({ kind });
    } finally {
      await store.close();
    }
  });

  it('refuses redis without a url and unknown kinds', async () => {
    await expect(openStore({ kind: 'redis', schema: CONTRACT_SCHEMA })).rejects.toThrow(/redisUrl/);
    await expect(openStore({ kind: 'disk' as 'memory', schema: CONTRACT_SCHEMA })).rejects.toThrow(/unknown store kind "disk"/);
  });
});
