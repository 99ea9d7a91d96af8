import { describe, expect, it } from 'vitest';
import { ENTRY, THING, updateOf } from '../contract-schema.js';
import type { StoreContext, Thing } from '../contract-schema.js';

export function indexCases(ctx: () => StoreContext): void {
  describe('unique indexes', () => {
    it('claims a key on create and refuses it to another record', async () => {
      const { store, tenant, commit, create } = ctx();
      await create(1, { name: 'dev-1' } satisfies Thing);
      expect(await store.lookup(tenant, THING, 'name', 'dev-1')).toBe(1);
      expect(await commit({ writes: [{ kind: THING, id: 2, expect: 0, after: { name: 'dev-1' } }] }))
        .toEqual({ ok: false, reason: 'unique-conflict', kind: THING, index: 'name', key: 'dev-1' });
      expect(await store.get(tenant, THING, 2)).toBeUndefined();
      expect(await store.lookup(tenant, THING, 'name', 'nobody')).toBeUndefined();
      await create(2, { name: 'dev-2' } satisfies Thing);
      expect(await store.lookupMany(tenant, THING, 'name', ['dev-2', 'none', 'dev-1'])).toEqual([2, undefined, 1]);
      expect(await store.lookupMany(tenant, THING, 'name', [])).toEqual([]);
    });

    it('releases the old key on rename and on delete', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { name: 'old' } satisfies Thing);
      expect((await ctx().update(1, await mustGet(1), { name: 'new' })).ok).toBe(true);
      expect(await store.lookup(tenant, THING, 'name', 'old')).toBeUndefined();
      expect(await store.lookup(tenant, THING, 'name', 'new')).toBe(1);
      await create(2, { name: 'old' } satisfies Thing);
      expect(await store.lookup(tenant, THING, 'name', 'old')).toBe(2);
      expect((await commit({ writes: [updateOf(THING, 1, await mustGet(1), null)] })).ok).toBe(true);
      expect(await store.lookup(tenant, THING, 'name', 'new')).toBeUndefined();
    });

    it('lets an update keep its own key', async () => {
      const { store, tenant, create, mustGet, update } = ctx();
      await create(1, { name: 'same', group: 'a' } satisfies Thing);
      expect(await update(1, await mustGet(1), { name: 'same', group: 'b' })).toEqual({ ok: true, versions: [2] });
      expect(await store.lookup(tenant, THING, 'name', 'same')).toBe(1);
    });

    it('swaps two keys in one commit', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { name: 'x' } satisfies Thing);
      await create(2, { name: 'y' } satisfies Thing);
      const [a, b] = [await mustGet(1), await mustGet(2)];
      expect((await commit({ writes: [updateOf(THING, 1, a, { name: 'y' }), updateOf(THING, 2, b, { name: 'x' })] })).ok).toBe(true);
      expect(await store.lookupMany(tenant, THING, 'name', ['x', 'y'])).toEqual([2, 1]);
    });

    it('hands a key over from a deleted record to a new one in one commit', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { name: 'handed', group: 'g' } satisfies Thing);
      const result = await commit({ writes: [updateOf(THING, 1, await mustGet(1), null), { kind: THING, id: 2, expect: 0, after: { name: 'handed', group: 'g' } }] });
      expect(result).toEqual({ ok: true, versions: [0, 1] });
      expect(await store.lookup(tenant, THING, 'name', 'handed')).toBe(2);
      expect(await store.members(tenant, THING, 'group', 'g', { offset: 0, limit: 5 })).toEqual({ ids: [2], total: 1 });
    });

    it('refuses two records claiming one key in one commit', async () => {
      const { store, tenant, commit } = ctx();
      const result = await commit({ writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'twin' } }, { kind: THING, id: 2, expect: 0, after: { name: 'twin' } }] });
      expect(result).toEqual({ ok: false, reason: 'unique-conflict', kind: THING, index: 'name', key: 'twin' });
      expect(await store.count(tenant, THING)).toBe(0);
      expect(await store.lookup(tenant, THING, 'name', 'twin')).toBeUndefined();
    });
  });

  describe('multi indexes', () => {
    it('lists members of a key in id order with paging and totals', async () => {
      const { store, tenant, create } = ctx();
      for (const id of [5, 1, 12, 3, 9]) await create(id, { name: `n${id}`, group: 'g' } satisfies Thing);
      await create(4, { name: 'n4', group: 'other' } satisfies Thing);
      const page = (offset: number, limit: number, desc?: boolean) => store.members(tenant, THING, 'group', 'g', { offset, limit, ...(desc ? { desc } : {}) });
      expect(await page(0, 10)).toEqual({ ids: [1, 3, 5, 9, 12], total: 5 });
      expect(await page(1, 2)).toEqual({ ids: [3, 5], total: 5 });
      expect(await page(0, 2, true)).toEqual({ ids: [12, 9], total: 5 });
      expect(await page(3, 5, true)).toEqual({ ids: [3, 1], total: 5 });
      expect(await page(5, 5)).toEqual({ ids: [], total: 5 });
      expect(await page(0, 0)).toEqual({ ids: [], total: 5 });
      expect(await store.members(tenant, THING, 'group', 'missing', { offset: 0, limit: 5 })).toEqual({ ids: [], total: 0 });
      expect(await store.count(tenant, THING, 'group', 'g')).toBe(5);
      expect(await store.count(tenant, THING, 'group', 'other')).toBe(1);
    });

    it('moves a record between keys on update and drops it on delete', async () => {
      const { store, tenant, commit, create, mustGet, update } = ctx();
      await create(1, { name: 'a', group: 'g1', tags: ['x', 'y'] } satisfies Thing);
      expect(await update(1, await mustGet(1), { name: 'a', group: 'g2', tags: ['y', 'z'] })).toEqual({ ok: true, versions: [2] });
      expect(await store.count(tenant, THING, 'group', 'g1')).toBe(0);
      expect((await store.members(tenant, THING, 'group', 'g2', { offset: 0, limit: 9 })).ids).toEqual([1]);
      expect(await Promise.all(['x', 'y', 'z'].map((t) => store.count(tenant, THING, 'tag', t)))).toEqual([0, 1, 1]);
      expect((await commit({ writes: [updateOf(THING, 1, await mustGet(1), null)] })).ok).toBe(true);
      expect(await Promise.all(['g2', 'y', 'z'].map((k, i) => store.count(tenant, THING, i === 0 ? 'group' : 'tag', k)))).toEqual([0, 0, 0]);
    });

    it('ranges by score with paging, totals and a moving score', async () => {
      const { store, tenant, create, mustGet, update } = ctx();
      const seen: Record<number, number> = { 1: 1000, 2: 3000, 3: 2000, 4: 5000, 5: 4000 };
      for (const [id, s] of Object.entries(seen)) await create(Number(id), { name: `n${id}`, seen: s } satisfies Thing);
      const range = (min: number, max: number, offset = 0, limit = 10, desc = false) =>
        store.range(tenant, THING, 'seen', 'all', min, max, { offset, limit, desc });
      expect(await range(2000, 4000)).toEqual({ ids: [3, 2, 5], total: 3 });
      expect(await range(2000, 4000, 1, 1)).toEqual({ ids: [2], total: 3 });
      expect(await range(2000, 4000, 0, 2, true)).toEqual({ ids: [5, 2], total: 3 });
      expect(await range(-Infinity, 2999)).toEqual({ ids: [1, 3], total: 2 });
      expect(await range(4500, Infinity)).toEqual({ ids: [4], total: 1 });
      expect(await range(5, 4)).toEqual({ ids: [], total: 0 });
      expect(await range(0, 10_000, 0, 0)).toEqual({ ids: [], total: 5 });
      expect((await store.members(tenant, THING, 'seen', 'all', { offset: 0, limit: 10 })).ids).toEqual([1, 3, 2, 5, 4]);
      // a poll moves a record: the score changes in place, membership stays single
      expect((await update(1, await mustGet(1), { name: 'n1', seen: 6000 })).ok).toBe(true);
      expect(await range(-Infinity, Infinity, 0, 2, true)).toEqual({ ids: [1, 4], total: 5 });
      expect(await store.count(tenant, THING, 'seen', 'all')).toBe(5);
    });

    it('orders equal scores as Redis does: by the id as a string', async () => {
      const { store, tenant, create } = ctx();
      for (const id of [2, 10, 1]) await create(id, { name: `n${id}`, seen: 7 } satisfies Thing);
      expect((await store.range(tenant, THING, 'seen', 'all', 7, 7, { offset: 0, limit: 9 })).ids).toEqual([1, 10, 2]);
      expect((await store.members(tenant, THING, 'seen', 'all', { offset: 0, limit: 9, desc: true })).ids).toEqual([2, 10, 1]);
    });
  });

  describe('listing and counting', () => {
    it('pages all ids of a kind in id order', async () => {
      const { store, tenant, create } = ctx();
      for (const id of [30, 2, 100, 7]) await create(id, { name: `n${id}` } satisfies Thing);
      expect(await store.ids(tenant, THING, { offset: 0, limit: 10 })).toEqual({ ids: [2, 7, 30, 100], total: 4 });
      expect(await store.ids(tenant, THING, { offset: 1, limit: 2 })).toEqual({ ids: [7, 30], total: 4 });
      expect(await store.ids(tenant, THING, { offset: 0, limit: 3, desc: true })).toEqual({ ids: [100, 30, 7], total: 4 });
      expect(await store.ids(tenant, THING, { offset: 9, limit: 3 })).toEqual({ ids: [], total: 4 });
      expect(await store.ids(tenant, 'empty-kind', { offset: 0, limit: 3 })).toEqual({ ids: [], total: 0 });
      expect(await store.count(tenant, THING)).toBe(4);
      expect(await store.count(tenant, 'empty-kind')).toBe(0);
    });

    it('keeps no list of an unlisted kind: its records are listed through their multi index, ids and count of the kind are refused', async () => {
      const { store, tenant, commit, mustGet } = ctx();
      const first = await store.nextIds(tenant, ENTRY, 3);
      const writes = [0, 1, 2].map((i) => ({ kind: ENTRY, id: first + i, expect: 0, fresh: i > 0, after: { thing: i === 2 ? 2 : 1 } }));
      expect((await commit({ writes })).ok).toBe(true);
      expect(await store.members(tenant, ENTRY, 'thing', '1', { offset: 0, limit: 10, desc: true })).toEqual({ ids: [first + 1, first], total: 2 });
      expect(await store.count(tenant, ENTRY, 'thing', '2')).toBe(1);
      await expect(store.ids(tenant, ENTRY, { offset: 0, limit: 10 })).rejects.toThrow(TypeError);
      await expect(store.cached.ids(tenant, ENTRY, { offset: 0, limit: 10 })).rejects.toThrow(TypeError);
      await expect(store.count(tenant, ENTRY)).rejects.toThrow(TypeError);
      // moved and deleted as any indexed record
      const moved = await mustGet(first, ENTRY);
      expect((await commit({ writes: [updateOf(ENTRY, first, moved, { thing: 2 })] })).ok).toBe(true);
      expect((await commit({ writes: [updateOf(ENTRY, first + 2, await mustGet(first + 2, ENTRY), null)] })).ok).toBe(true);
      expect(await store.members(tenant, ENTRY, 'thing', '2', { offset: 0, limit: 10 })).toEqual({ ids: [first], total: 1 });
      expect(await store.get(tenant, ENTRY, first + 2)).toBeUndefined();
    });

    // on Redis, 32 consecutive ids of a packed kind share one hash: neighbours in it and across its edge stay apart
    it('keeps records of a packed kind apart from their neighbours: create, check, update, delete', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      const ids = [31, 32, 33, 64];
      for (const id of ids) await create(id, { thing: id }, ENTRY);
      const values = (await store.getMany(tenant, ENTRY, [...ids, 65])).map((s) => s?.value);
      expect(values).toEqual([...ids.map((thing) => ({ thing })), undefined]);
      // a create of a held id and an update of a stale version fail, and change nothing
      expect(await commit({ writes: [{ kind: ENTRY, id: 32, expect: 0, after: { thing: 1 } }] })).toEqual({ ok: false, reason: 'stale-version', kind: ENTRY, id: 32 });
      expect(await commit({ writes: [{ kind: ENTRY, id: 33, expect: 2, before: { thing: 33 }, after: { thing: 1 } }] }))
        .toEqual({ ok: false, reason: 'stale-version', kind: ENTRY, id: 33 });
      expect(await commit({ writes: [updateOf(ENTRY, 33, await mustGet(33, ENTRY), { thing: 1 })] })).toEqual({ ok: true, versions: [2] });
      expect(await commit({ writes: [updateOf(ENTRY, 32, await mustGet(32, ENTRY), null)] })).toEqual({ ok: true, versions: [0] });
      expect((await store.getMany(tenant, ENTRY, ids)).map((s) => s === undefined ? undefined : [s.version, s.value])).toEqual([
        [1, { thing: 31 }], undefined, [2, { thing: 1 }], [1, { thing: 64 }],
      ]);
      expect(await store.members(tenant, ENTRY, 'thing', '1', { offset: 0, limit: 10 })).toEqual({ ids: [33], total: 1 });
      // a deleted id is free again
      await create(32, { thing: 2 }, ENTRY);
      expect(await mustGet(32, ENTRY)).toEqual({ id: 32, version: 1, value: { thing: 2 } });
    });

    it.each([
      { offset: -1, limit: 1 },
      { offset: 0, limit: -1 },
      { offset: 0.5, limit: 1 },
      { offset: 0, limit: Number.NaN },
    ])('refuses the page %o', async (page) => {
      const { store, tenant } = ctx();
      await expect(store.ids(tenant, THING, page)).rejects.toThrow(RangeError);
      await expect(store.members(tenant, THING, 'group', 'g', page)).rejects.toThrow(RangeError);
      await expect(store.range(tenant, THING, 'seen', 'all', 0, 1, page)).rejects.toThrow(RangeError);
    });

    it('refuses a NaN range bound', async () => {
      const { store, tenant } = ctx();
      await expect(store.range(tenant, THING, 'seen', 'all', Number.NaN, 1, { offset: 0, limit: 1 })).rejects.toThrow(RangeError);
    });
  });
}
