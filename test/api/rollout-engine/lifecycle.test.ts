import { describe, expect, it } from 'vitest';
import { STORES } from '../../helpers/app.js';
import {
  createRollout, getGroups, getRollout, groupTargets, offered, openAction, runDevice, seedFleet, startRolloutApp, waitFor, waitStatus,
} from '../rollouts/fixture.js';

const threshold = (expression: string) => ({ condition: 'THRESHOLD', expression });

describe.each(STORES)('rollout driven by devices over HTTP (%s store)', (kind) => {
  it('runs group after group as devices report success and failure, to finished, with exact counts', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'dev', 10);
    const created = await createRollout(app, {
      name: 'wave', distributionSetId: ds, targetFilterQuery: 'controllerid==dev-*', amountGroups: 2,
      successCondition: threshold('100'), errorCondition: { condition: 'threshold', expression: '50' },
    });
    expect(created.totalTargets).toBe(10);
    await waitStatus(app, created.id, 'ready');
    const [g1, g2] = await getGroups(app, created.id);
    expect([g1?.name, g1?.status, g1?.totalTargets, g2?.name, g2?.totalTargets]).toEqual(['group-1', 'ready', 5, 'group-2', 5]);
    const first = await groupTargets(app, created.id, g1?.id ?? 0);
    const second = await groupTargets(app, created.id, g2?.id ?? 0);
    expect(new Set([...first, ...second]).size).toBe(10);

    expect((await app.mgmt.post(`/rest/v1/rollouts/${created.id}/start`)).status).toBe(204);
    const again = await app.mgmt.post(`/rest/v1/rollouts/${created.id}/start`);
    expect([again.status, again.json<{ errorCode: string }>().errorCode]).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);
    await waitStatus(app, created.id, 'running');
    // group 1's devices get their deployment; group 2's wait (their actions are scheduled)
    for (const cid of first) await openAction(app, cid);
    for (const cid of second) expect(await offered(app, cid)).toBeUndefined();
    const running = await getRollout(app, created.id);
    expect(running.totalTargetsPerStatus).toMatchObject({ scheduled: 5, running: 5, finished: 0, error: 0, notstarted: 0 });

    for (const cid of first) await runDevice(app, cid, 'success');
    await waitFor(() => getGroups(app, created.id), (gs) => gs[0]?.status === 'finished' && gs[1]?.status === 'running', { what: 'group 1 finished, group 2 running' });
    for (const cid of second) await openAction(app, cid);
    const [failing, ...passing] = second;
    for (const cid of passing) await runDevice(app, cid, 'success');
    await runDevice(app, failing ?? '', 'failure');

    const done = await waitStatus(app, created.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual({ scheduled: 0, running: 0, error: 1, finished: 9, cancelled: 0, notstarted: 0 });
    const groups = await getGroups(app, created.id);
    expect(groups.map((g) => g.status)).toEqual(['finished', 'finished']);
    expect(groups[1]?.totalTargetsPerStatus).toEqual({ scheduled: 0, running: 0, error: 1, finished: 4, cancelled: 0, notstarted: 0 });

    // the actions carry their rollout and show in the target's and the global lists
    const actions = await app.mgmt.get(`/rest/v1/targets/${first[0] ?? ''}/actions`);
    expect(actions.json<{ content: { rollout: number; rolloutName: string }[] }>().content[0]).toMatchObject({ rollout: created.id, rolloutName: 'wave' });
    const global = await app.mgmt.get(`/rest/v1/actions?q=rollout.name==wave&limit=50`);
    expect(global.json<{ total: number }>().total).toBe(10);

    // retry covers the failed target
    const retry = await app.mgmt.post(`/rest/v1/rollouts/${created.id}/retry`);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.json<{ name: string; totalTargets: number }>()).toMatchObject({ name: 'wave_retry', totalTargets: 1 });
  });

  it('pauses when a group errs above its threshold, and the next group runs after resume', async () => {
    const app = await startRolloutApp(kind);
    const ds = await seedFleet(app, 'err', 6);
    const r = await createRollout(app, {
      name: 'strict', distributionSetId: ds, targetFilterQuery: 'controllerid==err-*', amountGroups: 2,
      successCondition: threshold('100'), errorCondition: threshold('20'),
    });
    await waitStatus(app, r.id, 'ready');
    const [g1, g2] = await getGroups(app, r.id);
    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/start`)).status).toBe(204);
    const first = await groupTargets(app, r.id, g1?.id ?? 0);
    for (const cid of first) await openAction(app, cid);
    // 1 of 3 failed: 33 % > 20 %
    await runDevice(app, first[0] ?? '', 'failure');
    const paused = await waitStatus(app, r.id, 'paused');
    expect(paused.totalTargetsPerStatus).toMatchObject({ error: 1, running: 2, scheduled: 3 });
    expect((await getGroups(app, r.id)).map((g) => g.status)).toEqual(['error', 'scheduled']);
    const twice = await app.mgmt.post(`/rest/v1/rollouts/${r.id}/pause`);
    expect([twice.status, twice.json<{ errorCode: string }>().errorCode]).toEqual([400, 'hawkbit.server.error.rollout.illegalState']);

    expect((await app.mgmt.post(`/rest/v1/rollouts/${r.id}/resume`)).status).toBe(204);
    await waitFor(() => getGroups(app, r.id), (gs) => gs[1]?.status === 'running', { what: 'group 2 running' });
    for (const cid of await groupTargets(app, r.id, g2?.id ?? 0)) {
      await openAction(app, cid);
    }
  });
});
