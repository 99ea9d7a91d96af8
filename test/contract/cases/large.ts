import { describe, expect, it } from 'vitest';
import { THING, updateOf } from '../contract-schema.js';
import type { StoreContext, Thing } from '../contract-schema.js';

/** A create of 10,000+ targets in one request is one commit of that many writes with their indexes. */
const MANY = 12_000;

function things(count: number, name: (i: number) => string = (i) => `big-${i}`) {
  return Array.from({ length: count }, (_, i) => ({
    kind: THING, id: i + 1, expect: 0, after: { name: name(i), group: `g${i % 3}`, tags: ['bulk'] } satisfies Thing,
  }));
}

export function largeCommitCases(ctx: () => StoreContext): void {
  describe('large commits', () => {
    it(`commits ${MANY} writes with their index entries, effects, counters and journal in one commit`, async () => {
      const { store, tenant, commit } = ctx();
      const effects = Array.from({ length: MANY }, (_, i) => ({ type: 'created', id: i + 1 }));
      const result = await commit({ writes: things(MANY), effects, counters: [{ key: 'big', field: 'created', by: MANY }], journal: [{ type: 'bulk', n: MANY }] });
      expect(result.ok).toBe(true);
      expect(result.ok && result.versions.length).toBe(MANY);
      expect(result.ok && result.versions.every((v) => v === 1)).toBe(true);
      expect(await store.count(tenant, THING)).toBe(MANY);
      expect(await store.count(tenant, THING, 'tag', 'bulk')).toBe(MANY);
      expect(await store.count(tenant, THING, 'group', 'g1')).toBe(MANY / 3);
      expect(await store.lookupMany(tenant, THING, 'name', ['big-0', `big-${MANY - 1}`])).toEqual([1, MANY]);
      expect(await store.counters(tenant, ['big'])).toEqual([{ created: MANY }]);
      expect(await store.pendingEffects(tenant)).toBe(MANY);
      expect((await store.readJournal(tenant, '0-0', 10)).entries.map((e) => e.events)).toEqual([[{ type: 'bulk', n: MANY }]]);
    });

    it(`writes nothing of ${MANY} writes when the last one conflicts`, async () => {
      const { store, tenant, commit } = ctx();
      const result = await commit({ writes: things(MANY, (i) => (i === MANY - 1 ? 'big-0' : `big-${i}`)) });
      expect(result).toEqual({ ok: false, reason: 'unique-conflict', kind: THING, index: 'name', key: 'big-0' });
      expect(await store.count(tenant, THING)).toBe(0);
      expect(await store.lookup(tenant, THING, 'name', 'big-1')).toBeUndefined();
    });

    it(`writes nothing of ${MANY} creates when one far into them exists already, and names that one`, async () => {
      const { store, tenant, create, commit } = ctx();
      const taken = MANY - 1500; // past the first groups the Redis adapter checks together
      await create(taken, { name: 'there-before' });
      const writes = things(MANY).map((w) => (w.id === taken ? { ...w, after: { name: 'again' } } : w));
      expect(await commit({ writes })).toEqual({ ok: false, reason: 'stale-version', kind: THING, id: taken });
      expect(await store.count(tenant, THING)).toBe(1);
      expect(await store.count(tenant, THING, 'tag', 'bulk')).toBe(0);
      expect((await store.get(tenant, THING, taken))?.value).toEqual({ name: 'there-before' });
    });

    it(`moves and deletes ${MANY} records' index entries in one commit each`, async () => {
      const { store, tenant, commit } = ctx();
      expect((await commit({ writes: things(MANY) })).ok).toBe(true);
      const stored = await store.getMany<Thing>(tenant, THING, Array.from({ length: MANY }, (_, i) => i + 1));
      const moved = stored.map((s, i) => updateOf(THING, i + 1, s!, { ...s!.value, group: 'all', tags: ['moved'] }));
      expect((await commit({ writes: moved })).ok).toBe(true);
      expect(await store.count(tenant, THING, 'tag', 'bulk')).toBe(0);
      expect(await store.count(tenant, THING, 'group', 'g1')).toBe(0);
      expect(await store.count(tenant, THING, 'group', 'all')).toBe(MANY);
      expect((await store.members(tenant, THING, 'tag', 'moved', { offset: MANY - 2, limit: 5 })).ids).toEqual([MANY - 1, MANY]);
      const again = await store.getMany<Thing>(tenant, THING, Array.from({ length: MANY }, (_, i) => i + 1));
      expect((await commit({ writes: again.map((s, i) => updateOf(THING, i + 1, s!, null)) })).ok).toBe(true);
      expect(await store.count(tenant, THING)).toBe(0);
      expect(await store.count(tenant, THING, 'group', 'all')).toBe(0);
      expect(await store.count(tenant, THING, 'tag', 'moved')).toBe(0);
      expect(await store.lookup(tenant, THING, 'name', 'big-0')).toBeUndefined();
    });
  });
}
