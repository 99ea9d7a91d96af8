import { describe, expect, it } from 'vitest';
import { uniqueTenant } from '../../helpers/redis.js';
import { NOTE, sleep, THING, updateOf } from '../contract-schema.js';
import type { StoreContext, Thing } from '../contract-schema.js';

export function coordinationCases(ctx: () => StoreContext): void {
  describe('atomic commits', () => {
    it('changes nothing when one write of a commit is stale: no record, index, effect or marker', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { name: 'one', group: 'g' } satisfies Thing);
      const v1 = await mustGet(1);
      await ctx().update(1, v1, { name: 'one', group: 'g', bumped: true }); // v1 is now stale
      const result = await commit({
        writes: [
          { kind: THING, id: 2, expect: 0, after: { name: 'two', group: 'g', seen: 5, tags: ['t'] } },
          updateOf(THING, 1, v1, { name: 'renamed', group: 'h' }),
        ],
        effects: [{ type: 'should.not.exist' }],
        dedupe: 'event-1',
      });
      expect(result).toEqual({ ok: false, reason: 'stale-version', kind: THING, id: 1 });
      expect(await store.get(tenant, THING, 2)).toBeUndefined();
      expect(await store.lookupMany(tenant, THING, 'name', ['two', 'renamed', 'one'])).toEqual([undefined, undefined, 1]);
      expect(await store.members(tenant, THING, 'group', 'g', { offset: 0, limit: 9 })).toEqual({ ids: [1], total: 1 });
      expect(await store.count(tenant, THING, 'group', 'h')).toBe(0);
      expect(await store.count(tenant, THING, 'tag', 't')).toBe(0);
      expect(await store.count(tenant, THING, 'seen', 'all')).toBe(0);
      expect(await store.ids(tenant, THING, { offset: 0, limit: 9 })).toEqual({ ids: [1], total: 1 });
      expect(await store.pendingEffects(tenant)).toBe(0);
      // the dedupe marker was not set either: the same event can still be applied
      expect((await commit({ writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }], dedupe: 'event-1' })).ok).toBe(true);
    });

    it('changes nothing when a unique key of a commit is taken', async () => {
      const { store, tenant, commit, create } = ctx();
      await create(1, { name: 'taken' } satisfies Thing);
      const result = await commit({
        writes: [{ kind: NOTE, id: 5, expect: 0, after: {} }, { kind: THING, id: 2, expect: 0, after: { name: 'taken', group: 'g' } }],
        effects: [{ type: 'x' }],
      });
      expect(result).toEqual({ ok: false, reason: 'unique-conflict', kind: THING, index: 'name', key: 'taken' });
      expect(await store.get(tenant, NOTE, 5)).toBeUndefined();
      expect(await store.count(tenant, THING, 'group', 'g')).toBe(0);
      expect(await store.pendingEffects(tenant)).toBe(0);
    });
  });

  describe('concurrent commits', () => {
    it('lets exactly one of many racing updates of one version win', async () => {
      const { commit, create, mustGet } = ctx();
      await create(1, { name: 'raced', n: 0 } satisfies Thing);
      const v1 = await mustGet(1);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => commit({ writes: [updateOf(THING, 1, v1, { name: `raced-${i}`, n: i })] })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'stale-version')).toHaveLength(9);
      const winner = results.findIndex((r) => r.ok);
      expect(await mustGet(1)).toEqual({ id: 1, version: 2, value: { name: `raced-${winner}`, n: winner } });
    });

    it('lets exactly one of many racing creates take a unique key', async () => {
      const { store, tenant, commit } = ctx();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => commit({ writes: [{ kind: THING, id: i + 1, expect: 0, after: { name: 'contested' } }] })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok && r.reason === 'unique-conflict')).toHaveLength(9);
      expect(await store.count(tenant, THING)).toBe(1);
      expect(await store.lookup(tenant, THING, 'name', 'contested')).toBe(results.findIndex((r) => r.ok) + 1);
    });
  });

  describe('dedupe', () => {
    it('applies a commit at most once per dedupe key', async () => {
      const { store, tenant, commit, create, mustGet } = ctx();
      await create(1, { n: 0 }, NOTE);
      const v1 = await mustGet(1, NOTE);
      const first = await commit({ writes: [updateOf(NOTE, 1, v1, { n: 1 })], effects: [{ type: 'e' }], dedupe: 'evt-42' });
      expect(first).toEqual({ ok: true, versions: [2] });
      const v2 = await mustGet(1, NOTE);
      expect(await commit({ writes: [updateOf(NOTE, 1, v2, { n: 2 })], effects: [{ type: 'e' }], dedupe: 'evt-42' })).toEqual({ ok: false, reason: 'duplicate' });
      // duplicate wins over a stale version: the event was handled, there is nothing to retry
      expect(await commit({ writes: [updateOf(NOTE, 1, v1, { n: 3 })], dedupe: 'evt-42' })).toEqual({ ok: false, reason: 'duplicate' });
      expect(await mustGet(1, NOTE)).toEqual({ id: 1, version: 2, value: { n: 1 } });
      expect(await store.pendingEffects(tenant)).toBe(1);
      expect((await commit({ writes: [updateOf(NOTE, 1, v2, { n: 2 })], dedupe: 'evt-43' })).ok).toBe(true);
    });

    it('records a marker with no writes, per tenant', async () => {
      const { store, tenant, commit } = ctx();
      expect(await commit({ writes: [], dedupe: 'handled' })).toEqual({ ok: true, versions: [] });
      expect(await commit({ writes: [], dedupe: 'handled' })).toEqual({ ok: false, reason: 'duplicate' });
      expect(await store.commit(`${tenant}-other`, { writes: [], dedupe: 'handled' })).toEqual({ ok: true, versions: [] });
    });
  });

  describe('id blocks', () => {
    it('hands out consecutive ids from 1, per kind and tenant', async () => {
      const { store, tenant } = ctx();
      expect(await store.nextIds(tenant, THING)).toBe(1);
      expect(await store.nextIds(tenant, THING, 5)).toBe(2);
      expect(await store.nextIds(tenant, THING)).toBe(7);
      expect(await store.nextIds(tenant, NOTE, 3)).toBe(1);
      expect(await store.nextIds(`${tenant}-2`, THING)).toBe(1);
      const parallel = await Promise.all(Array.from({ length: 20 }, () => store.nextIds(tenant, NOTE, 2)));
      expect(new Set(parallel).size).toBe(20);
      expect(Math.max(...parallel)).toBe(4 + 19 * 2);
      await expect(store.nextIds(tenant, THING, 0)).rejects.toThrow(RangeError);
      await expect(store.nextIds(tenant, THING, 1.5)).rejects.toThrow(RangeError);
    });
  });

  describe('leases', () => {
    it('is held by one owner at a time, renewed by it, released only by it', async () => {
      const { store } = ctx();
      const name = uniqueTenant('lease');
      expect(await store.acquireLease(name, 'a', 10_000)).toBe(true);
      expect(await store.acquireLease(name, 'b', 10_000)).toBe(false);
      expect(await store.acquireLease(name, 'a', 10_000)).toBe(true); // renewal
      await store.releaseLease(name, 'b'); // not b's to release
      expect(await store.acquireLease(name, 'b', 10_000)).toBe(false);
      await store.releaseLease(name, 'a');
      expect(await store.acquireLease(name, 'b', 10_000)).toBe(true);
      await store.releaseLease(name, 'b');
    });

    it('expires after its ttl unless renewed', async () => {
      const { store } = ctx();
      const name = uniqueTenant('lease');
      expect(await store.acquireLease(name, 'a', 150)).toBe(true);
      await sleep(250); // deliberately past the 150 ms ttl (lease time is the store's clock: no clock to inject)
      expect(await store.acquireLease(name, 'b', 1000)).toBe(true); // a's lease ran out
      expect(await store.acquireLease(name, 'b', 1000)).toBe(true); // renewed: lives 1000 ms from now
      await sleep(300); // deliberately: within the renewed ttl
      expect(await store.acquireLease(name, 'a', 1000)).toBe(false);
      await sleep(900); // deliberately: past the renewed ttl
      expect(await store.acquireLease(name, 'a', 1000)).toBe(true);
      await store.releaseLease(name, 'a');
      await expect(store.acquireLease(name, 'b', 0)).rejects.toThrow(RangeError);
    });
  });
}
