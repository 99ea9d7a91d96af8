/**
 * One action of a rollout per target is a store invariant (the action kind's `rolloutTarget` unique
 * index), on every store: two holders of the rollouts lease that both read "nothing scheduled yet"
 * and then schedule the same group (a holder frozen between its read and its commit) create each
 * action once; a second action of a rollout for a target is refused by the commit itself.
 */
import { describe, expect, it } from 'vitest';
import { scheduleGroupActions, type RolloutActionDeps } from '../../../src/actors/rollout-actions.js';
import { ACTORS } from '../../../src/actors/kinds.js';
import { ActorRuntime } from '../../../src/actors/runtime.js';
import { ACTION } from '../../../src/domain/action.js';
import { ROLLOUT, ROLLOUT_GROUP, type RolloutGroupRecord, type RolloutRecord } from '../../../src/domain/rollout.js';
import { groupCounterKey, rolloutCounterKey } from '../../../src/domain/rollout-counts.js';
import { groupTargets as plannedTargets } from '../../../src/store/named-reads.js';
import { STORES } from '../../helpers/app.js';
import {
  createRollout, getGroups, groupTargets, rolloutActions, runDevice, seedFleet, startRolloutApp, waitFor, waitStatus, type RolloutApp,
} from '../rollouts/fixture.js';

/** Resolves once `n` callers wait on it: each holder reads, then all commit. */
function barrier(n: number): () => Promise<void> {
  let waiting = 0;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return async () => {
    if (++waiting === n) open();
    await opened;
  };
}

describe.each(STORES)('%s store: one action of a rollout per target', (kind) => {
  it('two holders scheduling the same group at once create each action once; the rollout then runs with exact counts', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'race', 6);
    const r = await createRollout(app, {
      name: 'race', distributionSetId: ds, targetFilterQuery: 'controllerid==race-*', amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    await waitStatus(app, r.id, 'ready');
    const rollout = (await app.store.get<RolloutRecord>(app.tenant, ROLLOUT, r.id))?.value;
    const group = (await app.store.get<RolloutGroupRecord>(app.tenant, ROLLOUT_GROUP, rollout?.groups[0] ?? 0))?.value;
    if (rollout === undefined || group === undefined) throw new Error('rollout not stored');
    const targets = await plannedTargets(app.store, app.tenant, group.id);
    expect(targets).toHaveLength(3);

    // two holders, each with its own runtime, both past "how many of this group exist?" before either commits
    const meet = barrier(2);
    const holder = (): RolloutActionDeps => ({
      store: { ...bound(app), count: async (...args) => {
        const n = await app.store.count(...args);
        await meet();
        return n;
      } },
      runtime: new ActorRuntime(app.store, ACTORS),
    });
    const made = await Promise.all([holder(), holder()].map((deps) =>
      scheduleGroupActions(deps, app.tenant, rollout, group, targets, Date.now(), async () => {})));
    expect(made.sort()).toEqual([0, 3]);
    let actions = await rolloutActions(app, r.id);
    expect(actions.map((a) => a.targetId).sort()).toEqual([...targets].sort());
    const [groupCounts, rolloutCounts] = await app.store.counters(app.tenant, [groupCounterKey(group.id), rolloutCounterKey(r.id)]);
    expect(groupCounts).toEqual({ scheduled: 3 });
    expect(rolloutCounts).toEqual({ scheduled: 3 });

    // a second action of the rollout for a scheduled target: the commit refuses it, whole
    const [first] = actions;
    if (first === undefined) throw new Error('no action');
    const id = await app.store.nextIds(app.tenant, ACTION, 1);
    const again = await new ActorRuntime(app.store, ACTORS).create(app.tenant, ACTION, { ...first, id });
    expect(again).toEqual({ ok: false, reason: 'unique-conflict', index: 'rolloutTarget' });
    expect(await app.store.get(app.tenant, ACTION, id)).toBeUndefined();

    // the engine's own start finds them scheduled and adds none; every device finishes once
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/start`)).status).toBe(204);
    await waitFor(() => getGroups(app, r.id), (gs) => gs[0]?.status === 'running', { what: 'group 1 running' });
    for (const g of await getGroups(app, r.id)) {
      for (const cid of await groupTargets(app, r.id, g.id)) {
        await runDevice(app, cid, 'success');
      }
    }
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toMatchObject({ finished: 6, scheduled: 0, running: 0, notstarted: 0 });
    actions = await rolloutActions(app, r.id);
    expect(actions).toHaveLength(6);
    expect(new Set(actions.map((a) => a.targetId)).size).toBe(6);
  });
});

/** The store's methods a holder needs, bound (a spread of a class instance copies none). */
function bound(app: RolloutApp): RolloutActionDeps['store'] {
  const s = app.store;
  return {
    get: s.get.bind(s), getMany: s.getMany.bind(s), lookupMany: s.lookupMany.bind(s), members: s.members.bind(s),
    count: s.count.bind(s), nextIds: s.nextIds.bind(s), getPolls: s.getPolls.bind(s), cached: s.cached,
  };
}
