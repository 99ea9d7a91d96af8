import { describe, expect, it } from 'vitest';
import { NOTE, THING, updateOf } from '../contract-schema.js';
import type { StoreContext, Thing } from '../contract-schema.js';

export function recordCases(ctx: () => StoreContext): void {
  describe('records and versions', () => {
    it('creates at version 1, updates to 2, deletes back to nothing', async () => {
      const { store, tenant, commit, mustGet } = ctx();
      expect(await commit({ writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'a' } }] })).toEqual({ ok: true, versions: [1] });
      const v1 = await mustGet(1);
      expect(v1).toEqual({ id: 1, version: 1, value: { name: 'a' } });
      expect(await commit({ writes: [updateOf(THING, 1, v1, { name: 'a', group: 'g' })] })).toEqual({ ok: true, versions: [2] });
      const v2 = await mustGet(1);
      expect(v2).toEqual({ id: 1, version: 2, value: { name: 'a', group: 'g' } });
      expect(await commit({ writes: [{ ...updateOf(THING, 1, v2, null) }] })).toEqual({ ok: true, versions: [0] });
      expect(await store.get(tenant, THING, 1)).toBeUndefined();
      expect(await store.count(tenant, THING)).toBe(0);
      // a deleted record can be created again and starts over at version 1
      expect(await commit({ writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'b' } }] })).toEqual({ ok: true, versions: [1] });
    });

    it('refuses a create of an existing record and an update against a stale version', async () => {
      const { commit, create, mustGet } = ctx();
      await create(7, { text: 'first' }, NOTE);
      expect(await commit({ writes: [{ kind: NOTE, id: 7, expect: 0, after: { text: 'again' } }] }))
        .toEqual({ ok: false, reason: 'stale-version', kind: NOTE, id: 7 });
      const v1 = await mustGet(7, NOTE);
      expect((await commit({ writes: [updateOf(NOTE, 7, v1, { text: 'second' })] })).ok).toBe(true);
      expect(await commit({ writes: [updateOf(NOTE, 7, v1, { text: 'lost update' })] }))
        .toEqual({ ok: false, reason: 'stale-version', kind: NOTE, id: 7 });
      expect(await commit({ writes: [{ kind: NOTE, id: 8, expect: 3, after: { text: 'never created' } }] }))
        .toEqual({ ok: false, reason: 'stale-version', kind: NOTE, id: 8 });
      expect(await mustGet(7, NOTE)).toEqual({ id: 7, version: 2, value: { text: 'second' } });
    });

    it('returns the versions of all writes of a commit in order', async () => {
      const { commit, create, mustGet } = ctx();
      await create(1, { n: 1 }, NOTE);
      const one = await mustGet(1, NOTE);
      const result = await commit({ writes: [{ kind: NOTE, id: 2, expect: 0, after: { n: 2 } }, updateOf(NOTE, 1, one, { n: 11 })] });
      expect(result).toEqual({ ok: true, versions: [1, 2] });
    });

    it('creates a record of an id reserved with nextIds (fresh) beside other writes', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1000, { n: 1 }, NOTE);
      const one = await mustGet(1000, NOTE);
      const id = await store.nextIds(tenant, NOTE);
      const fresh = { kind: NOTE, id, expect: 0, fresh: true, after: { n: id } };
      const result = await commit({ writes: [updateOf(NOTE, 1000, one, { n: 11 }), fresh] });
      expect(result).toEqual({ ok: true, versions: [2, 1] });
      expect(await mustGet(id, NOTE)).toEqual({ id, version: 1, value: { n: id } });
      expect((await store.ids(tenant, NOTE, { offset: 0, limit: 10 })).ids).toContain(id);
    });

    it('reads many records in the order asked, with undefined for missing ones', async () => {
      const { store, tenant, create } = ctx();
      await create(1, { n: 1 }, NOTE);
      await create(3, { n: 3 }, NOTE);
      const many = await store.getMany(tenant, NOTE, [3, 2, 1, 3]);
      expect(many).toEqual([
        { id: 3, version: 1, value: { n: 3 } }, undefined, { id: 1, version: 1, value: { n: 1 } }, { id: 3, version: 1, value: { n: 3 } },
      ]);
      expect(await store.getMany(tenant, NOTE, [])).toEqual([]);
      expect(await store.get(tenant, 'nothing-of-this-kind', 1)).toBeUndefined();
    });

    it('stores values as JSON does', async () => {
      const { create, mustGet } = ctx();
      const value = { when: new Date(0), gone: undefined, bad: NaN, list: [1, undefined, 'x'], nested: { deep: [{ a: null }] }, s: 'ünï\u0000' };
      await create(1, value, NOTE);
      expect((await mustGet(1, NOTE)).value).toEqual({ when: '1970-01-01T00:00:00.000Z', bad: null, list: [1, null, 'x'], nested: { deep: [{ a: null }] }, s: 'ünï\u0000' });
      await create(2, 'just a string', NOTE);
      expect((await mustGet(2, NOTE)).value).toBe('just a string');
    });

    it('rejects values without a JSON form and writes nothing', async () => {
      const { store, tenant, commit } = ctx();
      await expect(commit({ writes: [{ kind: NOTE, id: 1, expect: 0, after: { n: 1n } }] })).rejects.toThrow(TypeError);
      await expect(commit({ writes: [{ kind: NOTE, id: 1, expect: 0, after: () => 1 }] })).rejects.toThrow(TypeError);
      expect(await store.get(tenant, NOTE, 1)).toBeUndefined();
    });

    it('hands out values that are not aliases of the stored state', async () => {
      const { commit, mustGet } = ctx();
      const input = { name: 'orig', list: [1, 2] };
      await commit({ writes: [{ kind: THING, id: 1, expect: 0, after: input }] });
      input.list.push(3);
      input.name = 'changed by caller';
      const read = (await mustGet<{ name: string; list: number[] }>(1)).value;
      try {
        read.list.push(4);
        read.name = 'changed by reader';
      } catch {
        // a frozen value refuses the change: also fine
      }
      expect((await mustGet(1)).value).toEqual({ name: 'orig', list: [1, 2] });
    });

    it('keeps tenants apart', async () => {
      const { store, tenant, create } = ctx();
      const other = `${tenant}-other`;
      await create(1, { name: 'mine' });
      expect(await store.get(other, THING, 1)).toBeUndefined();
      expect((await store.commit(other, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'mine' } }] })).ok).toBe(true);
      expect(await store.lookup(other, THING, 'name', 'mine')).toBe(1);
      expect(await store.count(tenant, THING)).toBe(1);
    });

    it('refuses misuse with a TypeError before writing anything', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { name: 'a' } satisfies Thing);
      const v1 = await mustGet(1);
      const bad = [
        { writes: [{ kind: NOTE, id: 2, expect: 0, after: {} }, { kind: NOTE, id: 2, expect: 0, after: {} }] }, // same record twice
        { writes: [{ kind: THING, id: 1, expect: 1, after: { name: 'b' } }] }, // indexed update without `before`
        { writes: [{ kind: NOTE, id: 2, expect: 0, after: null }] }, // delete of what was never read
        { writes: [{ kind: NOTE, id: 0, expect: 0, after: {} }] },
        { writes: [{ kind: NOTE, id: 1.5, expect: 0, after: {} }] },
        { writes: [{ kind: NOTE, id: 2, expect: -1, after: {} }] },
        { writes: [updateOf(NOTE, 1, v1, {}), { kind: NOTE, id: 3, expect: 1, fresh: true, after: {} }] }, // a fresh write is a create
        { writes: [{ kind: NOTE, id: 2, expect: 0, after: undefined }] },
        { writes: [{ kind: 'bad:kind', id: 2, expect: 0, after: {} }] },
        { writes: [], effects: [{ type: '' }] },
        { writes: [], dedupe: '' },
      ];
      for (const c of bad) await expect(commit(c), JSON.stringify(c)).rejects.toThrow(TypeError);
      await expect(store.commit('', { writes: [] })).rejects.toThrow(TypeError);
      expect(await mustGet(1)).toEqual(v1);
      expect(await store.get(tenant, NOTE, 2)).toBeUndefined();
      expect(await store.pendingEffects(tenant)).toBe(0);
    });
  });
}
