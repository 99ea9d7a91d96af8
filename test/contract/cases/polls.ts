import { describe, expect, it } from 'vitest';
import type { StoreContext } from '../contract-schema.js';

/** Write-behind poll records: upserts, reads, ranges by time, and forgetting. */
export function pollCases(ctx: () => StoreContext): void {
  describe('poll records', () => {
    it('keeps the newest poll per target and reads them back in order, undefined for unknown ids', async () => {
      const { store, tenant } = ctx();
      await store.recordPolls(tenant, [{ id: 1, at: 100, address: 'http://10.0.0.1' }, { id: 2, at: 50, address: null }]);
      await store.recordPolls(tenant, [{ id: 1, at: 200, address: 'http://10.0.0.9' }]);
      expect(await store.getPolls(tenant, [1, 3, 2])).toEqual([
        { at: 200, address: 'http://10.0.0.9' }, undefined, { at: 50, address: null },
      ]);
    });

    it('keeps any address as given and writes large batches whole', async () => {
      const { store, tenant } = ctx();
      const odd = ['amqp://a vhost/with spaces', 'amqp://zürich-\u00e9\u4e2d', 'x\ny 2 3', '', ' 12 ', 'a\0b 9'];
      await store.recordPolls(tenant, odd.map((address, i) => ({ id: 100 + i, at: 1000.5 + i, address })));
      expect(await store.getPolls(tenant, odd.map((_, i) => 100 + i))).toEqual(odd.map((address, i) => ({ at: 1000.5 + i, address })));
      const many = Array.from({ length: 5000 }, (_, i) => ({ id: 1000 + i, at: 5000 + i, address: i % 2 ? `http://10.0.${i >> 8}.${i & 255}` : null }));
      await store.recordPolls(tenant, many);
      const read = await store.getPolls(tenant, many.map((p) => p.id));
      expect(read).toEqual(many.map((p) => ({ at: p.at, address: p.address })));
    });

    it('keeps any finite time exactly, also negative, fractional and in exponent notation', async () => {
      const { store, tenant } = ctx();
      // node-redis decodes a RESP3 double digit by digit, so most fractions come back a unit off in the last
      // place (0.375 as 0.37500000000000006); poll times are whole milliseconds
      const times = [-5, 0, 1000.5, -2.5, 1e21, 2 ** 53 + 2, 1764000000123];
      await store.recordPolls(tenant, times.map((at, i) => ({ id: 200 + i, at, address: null })));
      expect(await store.getPolls(tenant, times.map((_, i) => 200 + i))).toEqual(times.map((at) => ({ at, address: null })));
      const oldestFirst = await store.pollRange(tenant, -Infinity, Infinity, { offset: 0, limit: 9 });
      expect(oldestFirst.ids).toEqual([200, 203, 201, 202, 206, 205, 204]);
    });

    it('refuses a poll record without a finite time or an integer id, writing nothing of the call', async () => {
      const { store, tenant } = ctx();
      for (const bad of [{ id: 3, at: Number.NaN }, { id: 3, at: Infinity }, { id: 3.5, at: 1 }]) {
        await expect(store.recordPolls(tenant, [{ id: 2, at: 1, address: 'http://ok' }, { ...bad, address: null }])).rejects.toThrow(TypeError);
      }
      expect(await store.getPolls(tenant, [2, 3])).toEqual([undefined, undefined]);
    });

    it('finds targets by last-poll time, oldest first, with totals and paging', async () => {
      const { store, tenant } = ctx();
      await store.recordPolls(tenant, [1, 2, 3, 4, 5].map((id) => ({ id, at: id * 10, address: null })));
      expect(await store.pollRange(tenant, 15, 45, { offset: 0, limit: 10 })).toEqual({ ids: [2, 3, 4], total: 3 });
      expect(await store.pollRange(tenant, 0, Infinity, { offset: 1, limit: 2, desc: true })).toEqual({ ids: [4, 3], total: 5 });
    });

    it('keeps far-apart and adjacent ids apart, and a forgotten record gone until polled again', async () => {
      const { store, tenant } = ctx();
      const ids = [1, 255, 256, 257, 511, 512, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER];
      await store.recordPolls(tenant, ids.map((id, i) => ({ id, at: 10 + i, address: `a${i}` })));
      expect(await store.getPolls(tenant, [...ids, 2, 258, 2 ** 40 + 2])).toEqual([
        ...ids.map((_, i) => ({ at: 10 + i, address: `a${i}` })), undefined, undefined, undefined,
      ]);
      await store.forgetPolls(tenant, [256, 257, 2 ** 40 + 3, 2 ** 40 + 3]);
      await store.recordPolls(tenant, [{ id: 257, at: 5, address: null }, { id: 255, at: 4, address: null }]);
      expect(await store.getPolls(tenant, [255, 256, 257, 2 ** 40 + 3])).toEqual([
        { at: 4, address: 'a1' }, undefined, { at: 5, address: null }, undefined,
      ]);
      expect(await store.pollRange(tenant, -Infinity, Infinity, { offset: 0, limit: 20 })).toEqual({
        ids: [255, 257, 1, 511, 512, Number.MAX_SAFE_INTEGER], total: 6,
      });
    });

    it('forgets the polls of deleted targets', async () => {
      const { store, tenant } = ctx();
      await store.recordPolls(tenant, [{ id: 7, at: 1, address: 'x' }, { id: 8, at: 2, address: 'y' }]);
      await store.forgetPolls(tenant, [7]);
      expect(await store.getPolls(tenant, [7, 8])).toEqual([undefined, { at: 2, address: 'y' }]);
      expect((await store.pollRange(tenant, -Infinity, Infinity, { offset: 0, limit: 9 })).ids).toEqual([8]);
    });
  });
}
