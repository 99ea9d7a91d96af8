import { afterEach, describe, expect, it } from 'vitest';
import { ACTORS } from '../../src/actors/kinds.js';
import { startGroupActions, type RolloutActionDeps } from '../../src/actors/rollout-actions.js';
import { ActorRuntime } from '../../src/actors/runtime.js';
import { SCHEMA } from '../../src/app/schema.js';
import { ACTION, ACTION_STATUS, type ActionRecord, type ActionStatusRecord } from '../../src/domain/action.js';
import type { RolloutGroupRecord } from '../../src/domain/rollout.js';
import { groupCounterKey, rolloutCounterKey } from '../../src/domain/rollout-counts.js';
import { TARGET, type TargetRecord } from '../../src/domain/target.js';
import { builtInDefaults, viewOf } from '../../src/domain/tenant-config.js';
import { openStore } from '../../src/store/index.js';
import type { Commit, Store } from '../../src/store/port.js';
import { STORES, storeOptions } from '../helpers/app.js';
import { uniqueTenant } from '../helpers/redis.js';
import { anAction, aTarget } from '../fixtures/records.js';

const TARGETS = 450;
const GROUP = { id: 1, confirmationRequired: false } as RolloutGroupRecord;
const CFG = viewOf({}, builtInDefaults());

/** `object` with some members replaced, its other methods called on the object itself (its private fields work). */
function overriding<T extends object>(object: T, members: Partial<T>): T {
  return new Proxy(object, {
    get(target, key) {
      if (Object.hasOwn(members, key)) return members[key as keyof T];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A rollout group's start (src/actors/rollout-actions.ts, startGroupActions): its scheduled actions start a batch
 * at a time in one commit of their targets, the actions and their status entries, each record compared and set at
 * the version read; a batch in which a record changed meanwhile commits nothing and its actions start one by one.
 * Either way every action starts once, with one status entry, and the group's counters are exact. On every store.
 */
describe.each(STORES)('%s store: a rollout group starts its actions in batches', (kind) => {
  const open: Store[] = [];
  afterEach(async () => { await Promise.all(open.splice(0).map((s) => s.close())); });

  async function setUp() {
    const tenant = uniqueTenant('gstart');
    const { redisUrl, redisCluster } = storeOptions(kind);
    const store = await openStore({ kind: kind === 'memory' ? 'memory' : 'redis', redisUrl, redisCluster, schema: SCHEMA });
    open.push(store);
    const runtime = new ActorRuntime(store, ACTORS);
    const ids = Array.from({ length: TARGETS }, (_, i) => i + 1);
    // every target had DS 3 installed; a fifth of them has an open action of another rollout, which the start cancels
    const targets = ids.map((id) => aTarget({ id, controllerId: `g-${id}`, name: `g-${id}`, updateStatus: 'in_sync', assignedDs: 3, installedDs: 3 }));
    expect((await runtime.create(tenant, TARGET, targets)).ok).toBe(true);
    const old = ids.filter((id) => id % 5 === 0).map((id) => anAction({ id: 10_000 + id, targetId: id, controllerId: `g-${id}`, ds: 3 }));
    expect((await runtime.create(tenant, ACTION, old)).ok).toBe(true);
    const scheduled = ids.map((id) => anAction({
      id: 1000 + id, targetId: id, controllerId: `g-${id}`, ds: 7, status: 'scheduled', active: false, rollout: 1, rolloutGroup: GROUP.id,
      lastEntry: null, entries: 0,
    }));
    expect((await runtime.create(tenant, ACTION, scheduled)).ok).toBe(true);
    const commits: Commit[] = [];
    const counted = overriding(store, {
      commit: (t: string, c: Commit) => {
        commits.push(c);
        return store.commit(t, c);
      },
    });
    return { tenant, store, runtime, ids, commits, deps: { store: counted, runtime: new ActorRuntime(counted, ACTORS) } };
  }

  async function expectAllStarted(store: Store, tenant: string, ids: readonly number[]): Promise<void> {
    const actions = await store.getMany<ActionRecord>(tenant, ACTION, ids.map((id) => 1000 + id));
    expect(actions.map((a) => a?.value.status)).toEqual(ids.map(() => 'running'));
    const targets = await store.getMany<TargetRecord>(tenant, TARGET, ids);
    expect(targets.map((t) => [t?.value.updateStatus, t?.value.assignedDs])).toEqual(ids.map(() => ['pending', 7]));
    for (const id of [1, 5, 200, 201, 450]) {
      const page = await store.members(tenant, ACTION_STATUS, 'action', String(1000 + id), { offset: 0, limit: 10 });
      const entries = await store.getMany<ActionStatusRecord>(tenant, ACTION_STATUS, page.ids);
      expect(entries.map((e) => e?.value.messages)).toEqual([['Update Server: Rollout group started.']]);
    }
    const [group, rollout] = await store.counters(tenant, [groupCounterKey(GROUP.id), rolloutCounterKey(1)]);
    expect(group).toEqual({ scheduled: 0, running: TARGETS });
    expect(rollout).toEqual({ scheduled: 0, running: TARGETS });
    // the other rollout's open actions are told to cancel (obsolete), through the effects queue
    expect(await store.pendingEffects(tenant)).toBe(TARGETS / 5);
  }

  it(`starts ${TARGETS} actions in ${Math.ceil(TARGETS / 200)} commits, each action once`, async () => {
    const { tenant, store, ids, commits, deps } = await setUp();
    await startGroupActions(deps, tenant, { createdBy: 'op', release: undefined }, GROUP, CFG, 100);
    expect(commits).toHaveLength(Math.ceil(TARGETS / 200));
    await expectAllStarted(store, tenant, ids);
  });

  it('a batch with a target changed since it was read commits nothing; its actions start one by one, each once', async () => {
    const { tenant, store, runtime, ids, commits, deps } = await setUp();
    // the first batch's read of its targets is overtaken by an edit of one of them
    let edited = false;
    const cached = deps.store.cached;
    const racing: RolloutActionDeps['store'] = overriding(deps.store, {
      cached: overriding(cached, {
        getMany: async <T>(t: string, k: string, list: readonly number[]) => {
          const read = await cached.getMany<T>(t, k, list);
          if (k === TARGET && !edited) {
            edited = true;
            expect((await runtime.update(tenant, TARGET, 3, (x) => ({ ...x, description: 'edited meanwhile' }))).kind).toBe('updated');
          }
          return read;
        },
      }),
    });
    await startGroupActions({ ...deps, store: racing }, tenant, { createdBy: 'op', release: undefined }, GROUP, CFG, 100);
    // the first batch failed whole (one commit), then 200 starts one by one, then two batches
    expect(commits.filter((c) => c.writes.length > 3)).toHaveLength(3);
    expect(commits).toHaveLength(3 + 200);
    await expectAllStarted(store, tenant, ids);
    expect((await store.get<TargetRecord>(tenant, TARGET, 3))?.value.description).toBe('edited meanwhile');
  });
});
