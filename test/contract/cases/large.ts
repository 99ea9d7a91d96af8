import { describe, expect, it } from 'vitest';
import { THING } from '../contract-schema.js';
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
  });
}
