import { describe, expect, it } from 'vitest';
import { NOTE, sleep } from '../contract-schema.js';
import type { StoreContext } from '../contract-schema.js';

const now = { blockMs: 0, reclaimIdleMs: 60_000 } as const;

export function effectCases(ctx: () => StoreContext): void {
  describe('effects queue', () => {
    it('delivers an effect committed with a write once, with a stable event id', async () => {
      const { store, tenant, commit } = ctx();
      expect(await store.pendingEffects(tenant)).toBe(0);
      await commit({ writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }], effects: [{ type: 'note.created', id: 1, tags: ['a'] }] });
      expect(await store.pendingEffects(tenant)).toBe(1);
      const [first, ...rest] = await store.readEffects([tenant], { consumer: 'c1', count: 10, ...now });
      expect(rest).toEqual([]);
      expect(first).toMatchObject({ tenant, deliveries: 1, effect: { type: 'note.created', id: 1, tags: ['a'] } });
      expect(first?.eventId).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof first?.id).toBe('string');
      expect(await store.readEffects([tenant], { consumer: 'c1', count: 10, ...now })).toEqual([]);
      expect(await store.readEffects([tenant], { consumer: 'c2', count: 10, ...now })).toEqual([]);
      expect(await store.pendingEffects(tenant)).toBe(1); // delivered but not acked
    });

    it('hands an unacked effect out again after reclaimIdleMs, and never after an ack', async () => {
      const { store, tenant, commit } = ctx();
      await commit({ writes: [], effects: [{ type: 'a' }, { type: 'b' }] });
      const first = await store.readEffects([tenant], { consumer: 'c1', count: 10, blockMs: 0, reclaimIdleMs: 500 });
      expect(first.map((e) => e.effect.type)).toEqual(['a', 'b']);
      await store.ackEffects([first[1]!]);
      expect(await store.readEffects([tenant], { consumer: 'c2', count: 10, blockMs: 0, reclaimIdleMs: 500 })).toEqual([]);
      await sleep(600); // deliberately past reclaimIdleMs: the unacked one comes back
      const again = await store.readEffects([tenant], { consumer: 'c2', count: 10, blockMs: 0, reclaimIdleMs: 500 });
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ id: first[0]!.id, eventId: first[0]!.eventId, deliveries: 2, effect: { type: 'a' } });
      await store.ackEffects(again);
      expect(await store.pendingEffects(tenant)).toBe(0);
      await sleep(600); // deliberately past reclaimIdleMs again: nothing comes back after the ack
      expect(await store.readEffects([tenant], { consumer: 'c3', count: 10, blockMs: 0, reclaimIdleMs: 500 })).toEqual([]);
    });

    it('reads in commit order, at most count at a time, counting what is left', async () => {
      const { store, tenant, commit } = ctx();
      for (let i = 1; i <= 5; i++) await commit({ writes: [], effects: [{ type: 'n', i }] });
      const a = await store.readEffects([tenant], { consumer: 'c', count: 2, ...now });
      const b = await store.readEffects([tenant], { consumer: 'c', count: 2, ...now });
      expect([...a, ...b].map((e) => e.effect['i'])).toEqual([1, 2, 3, 4]);
      expect(await store.pendingEffects(tenant)).toBe(5);
      await store.ackEffects([...a, ...b]);
      expect(await store.pendingEffects(tenant)).toBe(1); // the undelivered fifth
      await store.ackEffects([]);
    });

    it('reads several tenants in one call', async () => {
      const { store, tenant } = ctx();
      const other = `${tenant}-b`;
      await store.commit(tenant, { writes: [], effects: [{ type: 'x' }] });
      await store.commit(other, { writes: [], effects: [{ type: 'y' }] });
      const got = await store.readEffects([tenant, other], { consumer: 'c', count: 10, ...now });
      expect(got.map((e) => [e.tenant, e.effect.type])).toEqual([[tenant, 'x'], [other, 'y']]);
      await store.ackEffects(got);
      expect([await store.pendingEffects(tenant), await store.pendingEffects(other)]).toEqual([0, 0]);
      // count spans the tenants: the first tenant's effects come first
      await store.commit(tenant, { writes: [], effects: [{ type: 'a1' }, { type: 'a2' }] });
      await store.commit(other, { writes: [], effects: [{ type: 'b1' }, { type: 'b2' }] });
      const three = await store.readEffects([tenant, other], { consumer: 'c', count: 3, ...now });
      expect(three.map((e) => e.effect.type)).toEqual(['a1', 'a2', 'b1']);
      expect(await store.pendingEffects(other)).toBe(2);
    });

    it('waits up to blockMs and wakes early when an effect is committed', async () => {
      const { store, tenant, commit } = ctx();
      const started = Date.now();
      expect(await store.readEffects([tenant], { consumer: 'c', count: 5, blockMs: 200, reclaimIdleMs: 60_000 })).toEqual([]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150); // it blocked (a lower bound: no speed claim)
      // blocks longer than the test may run: only waking on the commit lets the test pass
      const waiting = store.readEffects([tenant], { consumer: 'c', count: 5, blockMs: 60_000, reclaimIdleMs: 60_000 });
      await sleep(100); // deliberately: the commit comes while the read waits
      await commit({ writes: [], effects: [{ type: 'wake' }] });
      const got = await waiting;
      expect(got.map((e) => [e.effect.type, e.deliveries])).toEqual([['wake', 1]]);
    });

    it('enqueues nothing for a commit that fails', async () => {
      const { store, tenant, commit, create } = ctx();
      await create(1, {}, NOTE);
      expect((await commit({ writes: [{ kind: NOTE, id: 1, expect: 0, after: {} }], effects: [{ type: 'lost' }] })).ok).toBe(false);
      expect(await store.pendingEffects(tenant)).toBe(0);
      expect(await store.readEffects([tenant], { consumer: 'c', count: 5, ...now })).toEqual([]);
    });

    it.each([
      ['no tenants', [], { consumer: 'c', count: 1, blockMs: 0, reclaimIdleMs: 1 }],
      ['no consumer', ['t'], { consumer: '', count: 1, blockMs: 0, reclaimIdleMs: 1 }],
      ['count 0', ['t'], { consumer: 'c', count: 0, blockMs: 0, reclaimIdleMs: 1 }],
      ['negative blockMs', ['t'], { consumer: 'c', count: 1, blockMs: -1, reclaimIdleMs: 1 }],
    ] as const)('refuses a read with %s', async (_, tenants, options) => {
      await expect(ctx().store.readEffects(tenants, options)).rejects.toThrow();
    });
  });
}
