/**
 * Dynamic rollouts over HTTP (hawkBit's `dynamic: true` with `dynamicGroupTemplate`): after the
 * static groups, dynamic groups take targets that match the filter later (created after the start),
 * up to `targetCount` each; a full group gets a successor; devices finishing them are counted, and
 * the rollout keeps running until stopped.
 */
import { describe, expect, it } from 'vitest';
import { STORES } from '../../helpers/app.js';
import {
  createRollout, getGroups, getRollout, groupTargets, offered, runDevice, seedFleet, startRolloutApp, waitFor, waitStatus, type RolloutApp,
} from '../rollouts/fixture.js';

const threshold = (expression: string) => ({ condition: 'THRESHOLD', expression });

/** Creates targets over the Management API, as an operator would after the rollout started. */
async function addTargets(app: RolloutApp, ...ids: string[]): Promise<void> {
  const res = await app.mgmt.post('/rest/v1/targets', { json: ids.map((controllerId) => ({ controllerId, name: controllerId })) });
  expect(res.status, res.text).toBe(201);
}

/** A rollout of dynamic groups only (`amountGroups: 0`) over a set of its own, started and running. */
async function runningPureDynamic(app: RolloutApp, name: string, filter: string, targetCount: number) {
  const ds = await seedFleet(app, name, 0);
  const created = await createRollout(app, {
    name, distributionSetId: ds, targetFilterQuery: filter, amountGroups: 0, dynamic: true, dynamicGroupTemplate: { targetCount },
  });
  await waitStatus(app, created.id, 'ready');
  expect((await app.mgmt.post(`/rest/v1/rollouts/${created.id}/start`)).status).toBe(204);
  await waitStatus(app, created.id, 'running');
  return { ...created, distributionSetId: ds };
}

describe.each(STORES)('dynamic rollouts (%s store)', (kind) => {
  it('dynamic groups after the static one take targets created after the start, a full group gets a successor, counts stay exact', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'dyn', 2);
    const created = await createRollout(app, {
      name: 'dyn', distributionSetId: ds, targetFilterQuery: 'controllerid==dyn-*', amountGroups: 1, dynamic: true,
      dynamicGroupTemplate: { nameSuffix: '-late', targetCount: 2 }, successCondition: threshold('100'),
    });
    expect(created).toMatchObject({ dynamic: true, totalTargets: 2 });
    await waitStatus(app, created.id, 'ready');
    expect((await getGroups(app, created.id)).map((g) => [g.name, g.dynamic, g.targetPercentage, g.totalTargets])).toEqual([
      ['group-1', false, 100, 2], ['group-2-late', true, 2, 0],
    ]);
    expect((await app.mgmt.post(`/rest/v1/rollouts/${created.id}/start`)).status).toBe(204);
    const [g1, g2] = await getGroups(app, created.id);
    for (const cid of await groupTargets(app, created.id, g1?.id ?? 0)) await runDevice(app, cid, 'success');
    await waitFor(() => getGroups(app, created.id), (gs) => gs[1]?.status === 'running', { what: 'group 2 running' });

    // a target created now, and one the filter does not match
    await addTargets(app, 'dyn-3', 'other-1');
    await runDevice(app, 'dyn-3', 'success');
    expect(await groupTargets(app, created.id, g2?.id ?? 0)).toEqual(['dyn-3']);
    let r = await waitFor(() => getRollout(app, created.id), (x) => x.totalTargetsPerStatus['finished'] === 3, { what: '3 finished' });
    expect(r).toMatchObject({ status: 'running', totalTargets: 3, totalTargetsPerStatus: { finished: 3, running: 0, scheduled: 0 } });
    expect(await offered(app, 'other-1')).toBeUndefined();

    // the second fills group 2: group 3 follows with the same suffix and size, and takes the next one
    await addTargets(app, 'dyn-4');
    await runDevice(app, 'dyn-4', 'success');
    await waitFor(() => getGroups(app, created.id), (gs) => gs[2]?.status === 'running', { what: 'group 3 running' });
    await addTargets(app, 'dyn-5');
    await runDevice(app, 'dyn-5', 'success');
    r = await waitFor(() => getRollout(app, created.id), (x) => x.totalTargetsPerStatus['finished'] === 5, { what: '5 finished' });
    expect(r).toMatchObject({ status: 'running', totalTargets: 5, totalGroups: 3 });
    const groups = await waitFor(() => getGroups(app, created.id), (gs) => gs[1]?.status === 'finished', { what: 'group 2 finished' });
    expect(groups.map((g) => [g.name, g.dynamic, g.targetPercentage, g.totalTargets])).toEqual([
      ['group-1', false, 100, 2], ['group-2-late', true, 2, 2], ['group-3-late', true, 2, 1],
    ]);
    const g3 = await app.mgmt.get(`/rest/v1/rollouts/${created.id}/deploygroups/${groups[2]?.id ?? 0}`);
    expect(g3.json()).toMatchObject({ dynamic: true, totalTargets: 1, totalTargetsPerStatus: { finished: 1 } });

    // it runs until stopped
    expect((await app.mgmt.post(`/rest/v1/rollouts/${created.id}/stop`)).status).toBe(204);
    await waitStatus(app, created.id, 'stopped');
  });

  it('amountGroups 0 with a template: no static group, the dynamic group takes what comes after the start', async () => {
    const app = await startRolloutApp(kind);
    const created = await runningPureDynamic(app, 'pure', 'controllerid==pure-*', 5);
    expect(created).toMatchObject({ dynamic: true, totalTargets: 0 });
    await addTargets(app, 'pure-1');
    await runDevice(app, 'pure-1', 'success');
    const r = await waitFor(() => getRollout(app, created.id), (x) => x.totalTargetsPerStatus['finished'] === 1, { what: '1 finished' });
    expect(r).toMatchObject({ status: 'running', totalTargets: 1 });
    expect((await getGroups(app, created.id)).map((g) => [g.name, g.dynamic, g.status, g.totalTargets])).toEqual([
      ['group-1', true, 'running', 1],
    ]);
  });

  it('a target with an action of a newer rollout is left out; one created after it is taken', async () => {
    const app = await startRolloutApp(kind);
    const older = await runningPureDynamic(app, 'older', 'description==late', 10);
    const ds = older.distributionSetId;
    // x-1 gets an action of a newer rollout, then comes to match the older one's filter
    await addTargets(app, 'x-1');
    const newer = await createRollout(app, { name: 'newer', distributionSetId: ds, targetFilterQuery: 'controllerid==x-1', amountGroups: 1 });
    await waitStatus(app, newer.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${newer.id}/start`)).status).toBe(204);
    await waitStatus(app, newer.id, 'running');
    expect((await app.mgmt.put('/rest/v1/targets/x-1', { json: { description: 'late' } })).status).toBe(200);
    const res = await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: 'y-1', name: 'y-1', description: 'late' }] });
    expect(res.status, res.text).toBe(201);
    const [group] = await waitFor(() => getGroups(app, older.id), (gs) => gs[0]?.totalTargets === 1, { what: 'y-1 taken' });
    expect(await groupTargets(app, older.id, group?.id ?? 0)).toEqual(['y-1']);
  });

  it('maxRolloutGroupsPerRollout: a full last group gets no successor past the quota, and takes no more', async () => {
    const app = await startRolloutApp(kind, { quotas: { maxRolloutGroupsPerRollout: 2 } });
    const ds = await seedFleet(app, 'q', 1);
    const created = await createRollout(app, {
      name: 'capped', distributionSetId: ds, targetFilterQuery: 'controllerid==q-*', amountGroups: 1, dynamic: true,
      dynamicGroupTemplate: { targetCount: 1 }, successCondition: threshold('100'),
    });
    await waitStatus(app, created.id, 'ready');
    expect((await app.mgmt.post(`/rest/v1/rollouts/${created.id}/start`)).status).toBe(204);
    await runDevice(app, 'q-1', 'success');
    await waitFor(() => getGroups(app, created.id), (gs) => gs[1]?.status === 'running', { what: 'group 2 running' });
    await addTargets(app, 'q-2');
    await waitFor(() => getGroups(app, created.id), (gs) => gs[1]?.totalTargets === 1, { what: 'group 2 full' });
    await addTargets(app, 'q-3');
    // two rollouts made ready one after the other: the pass that readied the first went over the capped one
    // (it lists rollouts to create first), and had ended before the second was readied
    for (const name of ['marker-1', 'marker-2']) {
      const marker = await createRollout(app, { name, distributionSetId: ds, targetFilterQuery: 'controllerid==q-1' });
      await waitStatus(app, marker.id, 'ready');
    }
    expect((await getGroups(app, created.id)).map((g) => [g.name, g.totalTargets])).toEqual([['group-1', 1], ['group-2', 1]]);
    expect(await getRollout(app, created.id)).toMatchObject({ status: 'running', totalTargets: 2, totalGroups: 2 });
  });

  it('dynamic without a template: the dynamic groups take as many targets as the last static group', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'tpl', 3);
    const created = await createRollout(app, {
      name: 'no-template', distributionSetId: ds, targetFilterQuery: 'controllerid==tpl-*', amountGroups: 1, dynamic: true,
    });
    await waitStatus(app, created.id, 'ready');
    expect((await getGroups(app, created.id)).map((g) => [g.name, g.dynamic, g.targetPercentage])).toEqual([
      ['group-1', false, 100], ['group-2', true, 3],
    ]);
  });
});
