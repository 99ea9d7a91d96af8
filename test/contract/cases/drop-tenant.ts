import { describe, expect, it } from 'vitest';
import { uniqueTenant } from '../../helpers/redis.js';
import { NOTE, THING } from '../contract-schema.js';
import type { StoreContext, Thing } from '../contract-schema.js';

const PAGE = { offset: 0, limit: 9 };

export function dropTenantCases(ctx: () => StoreContext): void {
  describe('dropTenant', () => {
    it('removes every record, index, sequence, counter, effect, journal entry, poll and dedupe marker of one tenant only', async () => {
      const { store, tenant, commit } = ctx();
      const other = uniqueTenant('contract-other');
      const everything = {
        writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'one', group: 'g', seen: 5, tags: ['t'] } satisfies Thing }],
        effects: [{ type: 'e' }],
        counters: [{ key: 'c', field: 'f', by: 2 }],
        journal: [{ type: 'j' }],
        dedupe: 'event-1',
      };
      await store.nextIds(tenant, THING, 3);
      expect((await commit(everything)).ok).toBe(true);
      expect((await store.commit(other, everything)).ok).toBe(true);
      await store.recordPolls(tenant, [{ id: 1, at: 10, address: 'a' }]);
      await store.recordPolls(other, [{ id: 1, at: 10, address: 'a' }]);
      const before = (await store.readJournal(tenant, undefined, 1)).last;
      expect(before).not.toBe('0-0');

      await store.dropTenant(tenant);

      expect(await store.get(tenant, THING, 1)).toBeUndefined();
      expect(await store.cached.get(tenant, THING, 1)).toBeUndefined();
      expect(await store.lookup(tenant, THING, 'name', 'one')).toBeUndefined();
      expect(await store.ids(tenant, THING, PAGE)).toEqual({ ids: [], total: 0 });
      expect(await store.members(tenant, THING, 'group', 'g', PAGE)).toEqual({ ids: [], total: 0 });
      expect(await store.count(tenant, THING, 'tag', 't')).toBe(0);
      expect(await store.counters(tenant, ['c'])).toEqual([{}]);
      expect(await store.pendingEffects(tenant)).toBe(0);
      expect((await store.readJournal(tenant, undefined, 1)).last).toBe('0-0');
      expect(await store.getPolls(tenant, [1])).toEqual([undefined]);
      expect(await store.nextIds(tenant, THING)).toBe(1); // the sequence starts again
      // the dedupe marker is gone: the same event applies again
      expect((await commit({ writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }], dedupe: 'event-1' })).ok).toBe(true);

      // the other tenant keeps everything
      expect((await store.get<Thing>(other, THING, 1))?.value.name).toBe('one');
      expect(await store.lookup(other, THING, 'name', 'one')).toBe(1);
      expect(await store.counters(other, ['c'])).toEqual([{ f: 2 }]);
      expect(await store.pendingEffects(other)).toBe(1);
      expect(await store.getPolls(other, [1])).toEqual([{ at: 10, address: 'a' }]);
      await store.dropTenant(other);
    });

    it('is idempotent and leaves a dropped tenant usable again', async () => {
      const { store, tenant, create } = ctx();
      await store.dropTenant(tenant); // nothing there yet
      await create(1, { name: 'again' } satisfies Thing);
      await store.dropTenant(tenant);
      await store.dropTenant(tenant);
      await create(1, { name: 'again' } satisfies Thing);
      expect(await store.lookup(tenant, THING, 'name', 'again')).toBe(1);
    });
  });
}
