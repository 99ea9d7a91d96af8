import { describe, expect, it } from 'vitest';
import { MISS } from '../../../src/store/port.js';
import { THING, type StoreContext } from '../contract-schema.js';

/** The cached view's `changes`: while it stays, every peek answers what it answered before (or MISS, once evicted). */
export function cachedCases(ctx: () => StoreContext): void {
  describe('cached reads', () => {
    const page = { offset: 0, limit: 10 };

    it('keeps `changes` while nothing read changes, and moves it when a read value is written', async () => {
      const { store, tenant, create, update } = ctx();
      const reads = store.cached;
      await create(1, { name: 'one', group: 'g' });
      await create(2, { name: 'two', group: 'g' });
      // read through the cache (on Redis this fills it; in memory it is the store itself)
      const first = await reads.get(tenant, THING, 1);
      expect(await reads.lookup(tenant, THING, 'name', 'one')).toBe(1);
      expect((await reads.members(tenant, THING, 'group', 'g', page)).ids).toEqual([1, 2]);
      const changes = reads.changes;
      expect(reads.peekGet(tenant, THING, 1)).toBe(first);
      expect(reads.peekLookup(tenant, THING, 'name', 'one')).toBe(1);

      // poll records and reads are no change
      await store.recordPolls(tenant, [{ id: 1, at: 5, address: 'http://10.0.0.1' }]);
      await reads.get(tenant, THING, 2);
      expect(await store.getPolls(tenant, [1])).toEqual([{ at: 5, address: 'http://10.0.0.1' }]);
      expect(reads.changes).toBe(changes);
      expect(reads.peekGet(tenant, THING, 1)).toBe(first);

      // a write of what was read moves it, as soon as the commit returns
      expect((await update(1, first!, { name: 'uno', group: 'h' })).ok).toBe(true);
      expect(reads.changes).not.toBe(changes);
      const peeked = reads.peekGet<{ name: string }>(tenant, THING, 1);
      expect(peeked === MISS ? (await reads.get<{ name: string }>(tenant, THING, 1))?.value.name : peeked?.value.name).toBe('uno');
    });
  });
}
