import { beforeEach, describe, expect, it } from 'vitest';
import { ACTORS } from '../../src/actors/kinds.js';
import type { ActorChange } from '../../src/actors/change.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION } from '../../src/domain/action.js';
import type { Effect } from '../../src/domain/effects.js';
import { TARGET } from '../../src/domain/target.js';
import { openMemoryStore } from '../../src/store/memory/index.js';
import type { Store } from '../../src/store/port.js';
import { anAction, aTarget } from '../fixtures/records.js';

/**
 * The runtime's observers see every change of an actor record it commits (transitions, creations,
 * field edits, removals and the actor records a commit's `also` adds), and the effects they derive
 * are committed with the change, outside a send's `effectIds`.
 */
describe('actor runtime: observers', () => {
  const tenant = 'T';
  let store: Store;
  let runtime: ActorRuntime;
  let seen: { kind: string; id: number; before: string | undefined; after: string | null }[];
  const status = (r: unknown): string => {
    const v = r as { status?: string; updateStatus?: string };
    return v.status ?? v.updateStatus ?? '?';
  };
  beforeEach(() => {
    store = openMemoryStore(SCHEMA);
    seen = [];
    const observer = (_tenant: string, changes: readonly ActorChange[]): Effect[] => {
      for (const c of changes) {
        seen.push({ kind: c.kind, id: c.id, before: c.before && status(c.before), after: c.after && status(c.after) });
      }
      return changes.map((c) => ({ type: 'dmf.attributes', targetId: c.id }));
    };
    runtime = new ActorRuntime(store, ACTORS, [observer]);
  });

  const queued = async (): Promise<unknown[]> =>
    (await store.readEffects([tenant], { consumer: 'c', count: 100, blockMs: 0, reclaimIdleMs: 60_000 })).map((q) => q.effect);

  it('sees creations, transitions with the records their also adds, field edits and removals', async () => {
    expect((await runtime.create(tenant, TARGET, aTarget({ id: 1 }))).ok).toBe(true);
    const sent = await runtime.send(tenant, TARGET, 1, { type: 'mgmt.assigned', ds: 7, at: 2, by: 'u' }, {
      also: () => [runtime.creation(ACTION, anAction({ id: 10, targetId: 1, ds: 7 }))],
    });
    expect(sent.kind).toBe('committed');
    await runtime.update(tenant, TARGET, 1, (t) => ({ ...t, name: 'renamed' }));
    await runtime.remove(tenant, ACTION, 10);
    expect(seen).toEqual([
      { kind: 'target', id: 1, before: undefined, after: 'registered' },
      { kind: 'target', id: 1, before: 'registered', after: 'pending' },
      { kind: 'action', id: 10, before: undefined, after: 'running' },
      { kind: 'target', id: 1, before: 'pending', after: 'pending' },
      { kind: 'action', id: 10, before: 'running', after: null },
    ]);
    // committed with the changes, stamped for dedupe; a send's effectIds leave them out (nobody waits for them)
    const effects = await queued();
    expect(effects).toHaveLength(5);
    expect(effects.every((e) => typeof (e as { eid?: unknown }).eid === 'string')).toBe(true);
    expect(sent.kind === 'committed' && sent.effectIds).toEqual([]);
  });

  it('is not asked when nothing is written', async () => {
    await runtime.create(tenant, TARGET, aTarget({ id: 1 }));
    seen = [];
    expect((await runtime.update(tenant, TARGET, 1, (t) => t)).kind).toBe('unchanged');
    expect((await runtime.send(tenant, ACTION, 99, { type: 'device.retrieved', at: 1 })).kind).toBe('missing');
    expect(seen).toEqual([]);
  });
});
