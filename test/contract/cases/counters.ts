import { describe, expect, it } from 'vitest';
import { NOTE, THING, updateOf } from '../contract-schema.js';
import type { StoreContext, Thing } from '../contract-schema.js';

/** Commit.counters: commutative increments applied with the commit's writes, all or nothing. */
export function counterCases(ctx: () => StoreContext): void {
  describe('counters', () => {
    it('applies the increments of a commit with its writes, and reads them per key', async () => {
      const { store, tenant, commit } = ctx();
      const result = await commit({
        writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }],
        counters: [{ key: 'rg:1', field: 'scheduled', by: 3 }, { key: 'rg:1', field: 'running', by: 1 }, { key: 'ro:9', field: 'scheduled', by: 3 }],
      });
      expect(result.ok).toBe(true);
      expect(await store.counters(tenant, ['rg:1', 'ro:9', 'rg:404'])).toEqual([{ scheduled: 3, running: 1 }, { scheduled: 3 }, {}]);
    });

    it('adds increments of concurrent commits up, whatever their order', async () => {
      const { store, tenant, commit } = ctx();
      await Promise.all(Array.from({ length: 50 }, (_, i) => commit({
        writes: [{ kind: NOTE, id: i + 1, expect: 0, after: {} }],
        counters: [{ key: 'rg:2', field: 'scheduled', by: -1 }, { key: 'rg:2', field: i % 2 === 0 ? 'finished' : 'error', by: 1 }],
      })));
      expect(await store.counters(tenant, ['rg:2'])).toEqual([{ scheduled: -50, finished: 25, error: 25 }]);
    });

    it('applies no increment of a commit that fails its compare-and-set', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { name: 'one', group: 'g' } satisfies Thing);
      const v1 = await mustGet(1);
      await ctx().update(1, v1, { name: 'one', group: 'g', bumped: true });
      const result = await commit({ writes: [updateOf(THING, 1, v1, { name: 'x', group: 'g' })], counters: [{ key: 'rg:3', field: 'finished', by: 1 }] });
      expect(result.ok).toBe(false);
      expect(await store.counters(tenant, ['rg:3'])).toEqual([{}]);
    });

    it('drops counter hashes', async () => {
      const { store, tenant, commit } = ctx();
      await commit({ writes: [], counters: [{ key: 'rg:4', field: 'running', by: 2 }, { key: 'rg:5', field: 'running', by: 1 }] });
      await store.dropCounters(tenant, ['rg:4']);
      expect(await store.counters(tenant, ['rg:4', 'rg:5'])).toEqual([{}, { running: 1 }]);
    });

    it('refuses an increment that is not an integer, writing nothing', async () => {
      const { store, tenant, commit } = ctx();
      await expect(commit({ writes: [{ kind: NOTE, id: 7, expect: 0, after: {} }], counters: [{ key: 'rg:6', field: 'x', by: 1.5 }] })).rejects.toThrow(TypeError);
      expect(await store.get(tenant, NOTE, 7)).toBeUndefined();
      expect(await store.counters(tenant, ['rg:6'])).toEqual([{}]);
    });
  });
}
