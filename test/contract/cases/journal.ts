import { describe, expect, it } from 'vitest';
import { compareJournalIds, JOURNAL_LENGTH } from '../../../src/store/journal.js';
import { THING, type StoreContext } from '../contract-schema.js';

/** The tenant journal (Commit.journal, readJournal): what every instance's live event streams read. */
export function journalCases(ctx: () => StoreContext): void {
  describe('journal', () => {
    it('starts empty and says where it stands', async () => {
      const { store, tenant } = ctx();
      expect(await store.readJournal(tenant, undefined, 10)).toEqual({ entries: [], last: '0-0', gap: false });
      expect(await store.readJournal(tenant, '0-0', 10)).toEqual({ entries: [], last: '0-0', gap: false });
    });

    it('appends one entry per commit, with the commit, in order, readable after any id', async () => {
      const { store, tenant } = ctx();
      const before = Date.now();
      const first = await store.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'a' } }], journal: [{ type: 'thing', id: 1 }, { type: 'thing', id: 2 }] });
      const after = Date.now();
      expect(first.ok).toBe(true);
      await store.commit(tenant, { writes: [], journal: [{ type: 'other', text: 'ü "quoted" \n' }] });
      await store.commit(tenant, { writes: [{ kind: THING, id: 2, expect: 0, after: { name: 'b' } }] }); // no journal: no entry

      const all = await store.readJournal(tenant, '0-0', 10);
      expect(all.gap).toBe(false);
      expect(all.entries.map((e) => e.events)).toEqual([[{ type: 'thing', id: 1 }, { type: 'thing', id: 2 }], [{ type: 'other', text: 'ü "quoted" \n' }]]);
      const [a, b] = all.entries;
      expect(compareJournalIds(a!.id, b!.id)).toBeLessThan(0);
      expect(all.last).toBe(b!.id);
      // an id's time is the commit's: between the clock before and after it (Redis runs on this machine's clock)
      const at = Number(a!.id.split('-')[0]);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);

      expect((await store.readJournal(tenant, a!.id, 10)).entries.map((e) => e.id)).toEqual([b!.id]);
      expect((await store.readJournal(tenant, b!.id, 10)).entries).toEqual([]);
      expect((await store.readJournal(tenant, '0-0', 1)).entries.map((e) => e.id)).toEqual([a!.id]);
      expect(await store.readJournal(tenant, undefined, 10)).toEqual({ entries: [], last: b!.id, gap: false });
    });

    it('writes nothing of a commit that fails, and keeps tenants apart', async () => {
      const { store, tenant, create } = ctx();
      await create(1, { name: 'a' });
      const stale = await store.commit(tenant, { writes: [{ kind: THING, id: 1, expect: 0, after: { name: 'x' } }], journal: [{ type: 'lost' }] });
      expect(stale.ok).toBe(false);
      const other = `${tenant}_OTHER`;
      await store.commit(other, { writes: [], journal: [{ type: 'elsewhere' }] });
      expect((await store.readJournal(tenant, '0-0', 10)).entries).toEqual([]);
      expect((await store.readJournal(other, '0-0', 10)).entries.map((e) => e.events)).toEqual([[{ type: 'elsewhere' }]]);
    });

    it('refuses a malformed id, a bad count and events without a type, writing nothing', async () => {
      const { store, tenant } = ctx();
      for (const bad of ['', '1', '1-', '-1', 'a-b', '1-2-3', '01-0', '1-0 ', '99999999999999999-0']) {
        await expect(store.readJournal(tenant, bad, 10), bad).rejects.toThrow(TypeError);
      }
      await expect(store.readJournal(tenant, '0-0', 0)).rejects.toThrow();
      await expect(store.commit(tenant, { writes: [], journal: [{ type: '' }] })).rejects.toThrow(TypeError);
      expect((await store.readJournal(tenant, '0-0', 10)).entries).toEqual([]);
    });

    it(`keeps about the newest ${JOURNAL_LENGTH} entries and reports a gap to a reader left behind`, async () => {
      const { store, tenant } = ctx();
      const total = JOURNAL_LENGTH + 300;
      for (let i = 0; i < total; i += 500) {
        await Promise.all(Array.from({ length: Math.min(500, total - i) }, (_, k) => store.commit(tenant, { writes: [], journal: [{ type: 'n', n: i + k }] })));
      }
      const fromStart = await store.readJournal(tenant, '0-0', 5);
      expect(fromStart.gap).toBe(true);
      const oldest = fromStart.entries[0]!;
      expect(oldest.events[0]!['n']).toBeGreaterThan(0);
      // a reader that saw the oldest entry still held missed nothing
      const next = await store.readJournal(tenant, oldest.id, 5);
      expect(next.gap).toBe(false);
      expect(next.entries[0]!.events[0]!['n']).toBe(Number(oldest.events[0]!['n']) + 1);
      const tail = await store.readJournal(tenant, undefined, 1);
      const newest = await store.readJournal(tenant, '0-0', JOURNAL_LENGTH + 1000);
      expect(newest.entries.length).toBeGreaterThanOrEqual(JOURNAL_LENGTH);
      expect(newest.entries.at(-1)!.id).toBe(tail.last);
      expect(newest.entries.at(-1)!.events[0]!['n']).toBe(total - 1);
    });
  });
}
