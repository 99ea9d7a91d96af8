import { beforeEach, describe, expect, it } from 'vitest';
import { ACTORS } from '../../src/actors/kinds.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION, ACTION_STATUS } from '../../src/domain/action.js';
import { TARGET_MACHINE_VERSION } from '../../src/domain/target.machine.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { openMemoryStore } from '../../src/store/memory/index.js';
import type { Store } from '../../src/store/port.js';
import { anAction, aTarget } from '../fixtures/records.js';

/** Field edits and removals through the runtime, the only writer of actor records. */
describe('actor runtime: field edits and removals', () => {
  const tenant = 'T';
  let store: Store;
  let runtime: ActorRuntime;
  beforeEach(async () => {
    store = openMemoryStore(SCHEMA);
    runtime = new ActorRuntime(store, ACTORS);
    expect((await runtime.create(tenant, TARGET, [aTarget({ id: 1, controllerId: 'a' }), aTarget({ id: 2, controllerId: 'b' })])).ok).toBe(true);
  });

  it('edits a field, stamps the machine version and leaves the state alone', async () => {
    const result = await runtime.update(tenant, TARGET, 1, (t) => ({ ...t, name: 'renamed' }));
    expect(result.kind).toBe('updated');
    const stored = await store.get<TargetRecord & { _mv: number }>(tenant, TARGET, 1);
    expect(stored).toMatchObject({ version: 2, value: { name: 'renamed', updateStatus: 'registered', _mv: TARGET_MACHINE_VERSION } });
  });

  it('writes nothing when the edit returns the record as it was', async () => {
    expect((await runtime.update(tenant, TARGET, 1, (t) => t)).kind).toBe('unchanged');
    expect((await store.get(tenant, TARGET, 1))?.version).toBe(1);
  });

  it('refuses an edit of the state field: only events change it', async () => {
    await expect(runtime.update(tenant, TARGET, 1, (t) => ({ ...t, updateStatus: 'in_sync' }))).rejects.toThrow(/changes only by an event/);
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.value.updateStatus).toBe('registered');
  });

  it('edits several records all or none', async () => {
    const missing = await runtime.updateEach(tenant, TARGET, [1, 2, 99], (t) => ({ ...t, tags: [7] }));
    expect(missing).toEqual({ kind: 'missing', id: 99 });
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.value.tags).toEqual([]);
    const both = await runtime.updateEach(tenant, TARGET, [1, 2], (t) => ({ ...t, tags: [7] }));
    expect(both.kind).toBe('updated');
    expect((await store.getMany<TargetRecord>(tenant, TARGET, [1, 2])).map((t) => t?.value.tags)).toEqual([[7], [7]]);
  });

  it('decides over all records at once, on each retry as the records are then, and writes only what changed', async () => {
    const seen: string[][] = [];
    const raced = runtime.updateJointly(tenant, TARGET, [1, 2], async (current) => {
      seen.push(current.map((t) => t.name));
      if (seen.length === 1) await runtime.update(tenant, TARGET, 1, (t) => ({ ...t, name: 'meanwhile' })); // loses this attempt
      const tagAll = !current.every((t) => t.tags.includes(7));
      return current.map((t) => (t.id === 1 && tagAll ? { ...t, tags: [7] } : t));
    });
    expect((await raced).kind).toBe('updated');
    expect(seen).toEqual([['dev-1', 'dev-1'], ['meanwhile', 'dev-1']]);
    expect((await store.get<TargetRecord>(tenant, TARGET, 1))?.value).toMatchObject({ name: 'meanwhile', tags: [7] });
    expect((await store.get(tenant, TARGET, 2))?.version).toBe(1); // read for the decision, not written
    await expect(runtime.updateJointly(tenant, TARGET, [1, 2], (current) => current.slice(1))).rejects.toThrow(/answered 1 records for 2/);
  });

  it('removes a record with what goes with it, or keeps it when the condition no longer holds', async () => {
    await runtime.create(tenant, ACTION, anAction({ id: 10, targetId: 1 }));
    await runtime.send(tenant, ACTION, 10, { type: 'device.retrieved', at: 2 });
    expect(await store.count(tenant, ACTION_STATUS, 'action', '10')).toBe(1);
    expect(await runtime.remove(tenant, ACTION, 10, { when: (a) => !a.active })).toEqual({ kind: 'kept' });
    const entries = (await store.members(tenant, ACTION_STATUS, 'action', '10', { offset: 0, limit: 10 })).ids;
    const also = async () => (await store.getMany(tenant, ACTION_STATUS, entries)).flatMap((e) => (e === undefined ? [] : [{
      kind: ACTION_STATUS, id: e.id, expect: e.version, before: e.value, after: null,
    }]));
    expect(await runtime.remove(tenant, ACTION, 10, { when: (a) => a.active, also })).toEqual({ kind: 'removed' });
    expect(await store.get(tenant, ACTION, 10)).toBeUndefined();
    expect(await store.count(tenant, ACTION_STATUS, 'action', '10')).toBe(0);
    expect(await runtime.remove(tenant, ACTION, 10)).toEqual({ kind: 'missing' });
  });

  it('types kinds and events: a misspelt kind or an event of another kind does not compile', () => {
    const misuse = (): unknown[] => [
      // @ts-expect-error: there is no actor kind 'targte'
      runtime.send(tenant, 'targte', 1, { type: 'device.polled', at: 1 }),
      // @ts-expect-error: targets know no event 'device.polld'
      runtime.send(tenant, TARGET, 1, { type: 'device.polld', at: 1 }),
      // @ts-expect-error: 'mgmt.cancel' is an action's event, not a target's
      runtime.send(tenant, TARGET, 1, { type: 'mgmt.cancel', at: 1, by: 'x', reason: 'manual' }),
    ];
    // the calls above are checked by the type checker (npm run typecheck), never run
    expect(misuse).toBeTypeOf('function');
  });
});
