/**
 * Rollout edges: resume after an error pause, stop from paused, counts after stop and delete, the
 * device's cancel after a stop, deleting a finished rollout, a second rollout over the same targets,
 * targets that already have the set, soft-deleted listing, distribution set invalidation.
 * @see reference/hawkbit-api.md 3.7, 3.9 (invalidate), 4.2 (rollout group start), 4.4, 4.6, 4.7
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  CREATOR, ERR, MAKER, ROLLOUTS, counts, createSet, createTargets, expectError, fleet, getGroups, getRollout, groupTargets, op, openAction,
  readyRollout, runDevice, runningRollout, setConfig, startRolloutApp, uid, waitFor, waitGroupCounts, waitGroups, waitStatus, type Json,
  type RolloutApp,
} from './fixture.js';

const LONG = 60_000;

describe.each(LOCAL_STORES)('rollout edges on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const actionsOf = async (cid: string): Promise<Json[]> => (await app.mgmt.get(`/rest/v1/targets/${cid}/actions`)).json().content;

  it('resume after an error pause starts the next group at once; an error in the last group still finishes the rollout', async () => {
    const p = uid();
    await createTargets(app, p, 3);
    const r = await runningRollout(app, {
      name: uid('error-resume'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 3,
      errorCondition: { condition: 'THRESHOLD', expression: '0' },
    });
    const [g1, g2, g3] = await waitGroups(app, r.id, ['running', 'scheduled', 'scheduled']);
    await runDevice(app, (await groupTargets(app, r.id, g1.id))[0]!, 'failure');
    await waitStatus(app, r.id, 'paused');
    await waitGroups(app, r.id, ['error', 'scheduled', 'scheduled']);
    await op(app, r.id, 'resume');
    await waitGroupCounts(app, r.id, [
      ['error', counts({ error: 1 })], ['running', counts({ running: 1 })], ['scheduled', counts({ scheduled: 1 })],
    ]);
    await runDevice(app, (await groupTargets(app, r.id, g2.id))[0]!, 'success');
    await waitGroups(app, r.id, ['error', 'finished', 'running']);
    await runDevice(app, (await groupTargets(app, r.id, g3.id))[0]!, 'failure');
    await waitStatus(app, r.id, 'paused');
    await op(app, r.id, 'resume');
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 2, finished: 1 }));
  }, LONG);

  it('stop from paused ends in stopped; counts afterwards: the removed scheduled action is notstarted', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('stop-paused'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [cid] = await groupTargets(app, r.id, g1.id);
    await op(app, r.id, 'pause');
    await waitStatus(app, r.id, 'paused');
    await op(app, r.id, 'stop');
    const stopped = await waitStatus(app, r.id, 'stopped');
    // the running action is being canceled (CANCELING counts as running), the scheduled one is gone
    expect(stopped.totalTargetsPerStatus).toEqual(counts({ running: 1, notstarted: 1 }));
    // the device is offered the cancellation and confirms it: the action is canceled
    const poll = await app.device(cid!).poll();
    expect(poll._links.cancelAction).toBeDefined();
    const cancelId = Number(/cancelAction\/(\d+)/.exec(poll._links.cancelAction.href)?.[1]);
    const closed = { status: { execution: 'closed', result: { finished: 'success' } } };
    const fb = await app.device(cid!).post(`/cancelAction/${cancelId}/feedback`, closed);
    expect(fb.status, fb.text).toBe(200);
    const after = await waitFor(() => getRollout(app, r.id), (x) => x.totalTargetsPerStatus.cancelled === 1, {
      what: 'the cancel counted',
    });
    expect(after).toMatchObject({ status: 'stopped', totalTargetsPerStatus: counts({ cancelled: 1, notstarted: 1 }) });
  }, LONG);

  it('DELETE of a finished rollout soft-deletes it (not only scheduled actions); listed with INCLUDE_SOFT_DELETED', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const name = uid('finished-delete');
    const r = await runningRollout(app, { name, targetFilterQuery: fleet(p), distributionSetId: ds });
    await runDevice(app, cid!, 'success');
    await waitStatus(app, r.id, 'finished');
    expect((await app.mgmt.delete(`${ROLLOUTS}/${r.id}`)).status).toBe(204);
    expect(await waitStatus(app, r.id, 'deleted')).toMatchObject({ deleted: true, totalTargetsPerStatus: counts({ finished: 1 }) });
    const q = `q=${encodeURIComponent(`name==${name}`)}`;
    expect((await app.mgmt.get(`${ROLLOUTS}?${q}`)).json().total).toBe(0);
    const all = (await app.mgmt.get(`${ROLLOUTS}?${q}&soft_deleted_mode=INCLUDE_SOFT_DELETED`)).json();
    expect(all.content.map((x: Json) => [x.id, x.deleted])).toEqual([[r.id, true]]);
    const only = (await app.mgmt.get(`${ROLLOUTS}?${q}&soft_deleted_mode=ONLY_SOFT_DELETED`)).json();
    expect(only.total).toBe(1);
    expect((await actionsOf(cid!))[0]).toMatchObject({ detailStatus: 'finished', rollout: r.id });
  }, LONG);

  it('a second rollout starting on the same targets cancels the first one\'s open action (as an assignment would)', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const first = await runningRollout(app, { name: uid('first'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const firstAction = await openAction(app, cid!);
    const other = (await createSet(app)).id;
    const second = await runningRollout(app, { name: uid('second'), targetFilterQuery: fleet(p), distributionSetId: other });
    const actions = await waitFor(() => actionsOf(cid!), (as) => as.length === 2, { what: 'two actions' });
    const old = actions.find((a) => a.id === firstAction);
    const fresh = actions.find((a) => a.id !== firstAction);
    expect(old).toMatchObject({ type: 'cancel', rollout: first.id });
    expect(fresh).toMatchObject({ active: true, rollout: second.id });
  }, LONG);

  it('a target that already has the set gets a finished action at group start ("already assigned")', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const earlier = await runningRollout(app, { name: uid('earlier'), targetFilterQuery: fleet(p), distributionSetId: ds });
    await runDevice(app, cid!, 'success');
    await waitStatus(app, earlier.id, 'finished');
    const again = await readyRollout(app, { name: uid('again'), targetFilterQuery: fleet(p), distributionSetId: ds });
    await op(app, again.id, 'start');
    const done = await waitStatus(app, again.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 1 }));
    const mine = (await actionsOf(cid!)).find((a) => a.rollout === again.id);
    expect(mine).toMatchObject({ active: false, detailStatus: 'finished' });
  }, LONG);

  // reference 3.9: invalidate with actionCancelationType soft sets the set's rollouts STOPPING (then STOPPED, 4.6)
  it('invalidating the set with soft cancelation stops its running rollout', async () => {
    const soft = (await createSet(app)).id;
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('inv-soft'), targetFilterQuery: fleet(p), distributionSetId: soft, amountGroups: 2 });
    const inv = await app.mgmt.post(`/rest/v1/distributionsets/${soft}/invalidate`, { json: { actionCancelationType: 'soft' } });
    expect(inv.status, inv.text).toBe(204);
    await waitStatus(app, r.id, 'stopped');
  }, 30_000);

  // reference 3.9 / 4.6: invalidate with force sets the set's rollouts DELETING; one with no started action is then removed
  it('invalidating the set with force cancelation deletes its rollout', async () => {
    const force = (await createSet(app)).id;
    const q = uid();
    await createTargets(app, q, 1);
    const b = await readyRollout(app, { name: uid('inv-force'), targetFilterQuery: fleet(q), distributionSetId: force });
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${force}/invalidate`, { json: { actionCancelationType: 'force' } });
    expect(res.status, res.text).toBe(204);
    await waitFor(() => app.mgmt.get(`${ROLLOUTS}/${b.id}`), (x) => x.status === 404, { what: 'the rollout removed' });
  }, 30_000);

  it('FIQL on the distribution set fields of a rollout: name, version, id', async () => {
    const set = await createSet(app);
    const dsJson = (await app.mgmt.get(`/rest/v1/distributionsets/${set.id}`)).json();
    const p = uid();
    await createTargets(app, p, 1);
    const r = await readyRollout(app, { name: uid('fiql-ds'), targetFilterQuery: fleet(p), distributionSetId: set.id });
    // distributionset.type is checked in known-gaps.test.ts
    const fiqls = [`distributionset.name==${dsJson.name}`, `distributionset.version==${dsJson.version};distributionset.id==${set.id}`];
    for (const fiql of fiqls) {
      const page = (await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(fiql)}`)).json();
      expect(page.content.map((x: Json) => x.id), fiql).toEqual([r.id]);
    }
    expect((await getGroups(app, r.id))[0]).not.toHaveProperty('confirmationRequired'); // shown only with the confirmation flow on
  });
});

describe.each(LOCAL_STORES)('rollout edges, more, on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });

  it('twenty devices finishing at once are each counted once', async () => {
    const p = uid();
    const cids = await createTargets(app, p, 20);
    const r = await runningRollout(app, { name: uid('burst'), targetFilterQuery: fleet(p), distributionSetId: ds });
    await Promise.all(cids.map((c, i) => runDevice(app, c, i % 5 === 0 ? 'failure' : 'success')));
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 16, error: 4 }));
    expect((await getGroups(app, r.id))[0].totalTargetsPerStatus).toEqual(counts({ finished: 16, error: 4 }));
  }, LONG);

  it('PUT while running renames', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const r = await runningRollout(app, { name: uid('put-running'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const name = uid('renamed');
    const res = await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { name } });
    expect(res.status, res.text).toBe(200);
    expect(await getRollout(app, r.id)).toMatchObject({ name, status: 'running' });
  });

  it('an approval remark longer than 255 characters is refused and decides nothing', async () => {
    await setConfig(app, 'rollout.approval.enabled', true);
    try {
      const p = uid();
      await createTargets(app, p, 1);
      const r = await readyRollout(app, { name: uid('remark'), targetFilterQuery: fleet(p), distributionSetId: ds }, CREATOR);
      expect(r.status).toBe('waiting_for_approval');
      const res = await app.mgmt.post(`${ROLLOUTS}/${r.id}/approve?remark=${'x'.repeat(256)}`);
      expect(res.status, res.text).toBe(400);
      expect([ERR.body, ERR.constraint, 'hawkbit.server.error.rest.param.invalid']).toContain(res.json().errorCode);
      expect((await getRollout(app, r.id)).status).toBe('waiting_for_approval');
      await op(app, r.id, `approve?remark=${'y'.repeat(255)}`);
      expect((await waitStatus(app, r.id, 'ready')).approvalRemark).toBe('y'.repeat(255));
    } finally {
      await setConfig(app, 'rollout.approval.enabled', false);
    }
  });

  it('the targets of a group of another rollout: 404', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const a = await readyRollout(app, { name: uid('a'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const b = await readyRollout(app, { name: uid('b'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const [ga] = await getGroups(app, a.id);
    const res = await app.mgmt.get(`${ROLLOUTS}/${b.id}/deploygroups/${ga.id}/targets`);
    expect(res.status, res.text).toBe(404);
  });

  it('confirmationRequired on the rollout defaults to the confirmation flow setting and can be turned off', async () => {
    const set = await app.mgmt.put('/rest/v1/system/configs/user.confirmation.flow.enabled', { json: { value: true } });
    expect([200, 204]).toContain(set.status);
    try {
      const p = uid();
      const [waits] = await createTargets(app, p, 1);
      await runningRollout(app, { name: uid('confirm-default'), targetFilterQuery: fleet(p), distributionSetId: ds });
      const [a] = (await app.mgmt.get(`/rest/v1/targets/${waits}/actions`)).json().content;
      expect(a.detailStatus).toBe('wait_for_confirmation');
      const q = uid();
      const [runs] = await createTargets(app, q, 1);
      await runningRollout(app, {
        name: uid('confirm-off'), targetFilterQuery: fleet(q), distributionSetId: ds, confirmationRequired: false,
      });
      const [b] = (await app.mgmt.get(`/rest/v1/targets/${runs}/actions`)).json().content;
      expect(b.detailStatus).toBe('running');
    } finally {
      await app.mgmt.put('/rest/v1/system/configs/user.confirmation.flow.enabled', { json: { value: false } });
    }
  }, LONG);
});

describe.each(LOCAL_STORES)('rollout actions and permissions on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });

  it('without HANDLE_ROLLOUT: create works, startAt and start answer 403 insufficientPermission', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const body = { name: uid('maker'), targetFilterQuery: fleet(p), distributionSetId: ds };
    const r = await readyRollout(app, body, MAKER);
    expect(r.status).toBe('ready');
    expectError(await app.mgmt.post(`${ROLLOUTS}/${r.id}/start`, { auth: MAKER }), 403, ERR.permission);
    const timed = { ...body, name: uid('maker-at'), startAt: Date.now() };
    expectError(await app.mgmt.post(ROLLOUTS, { json: timed, auth: MAKER }), 403, ERR.permission);
    expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${timed.name}`)}`)).json().total).toBe(0);
  });

  it('a rollout action in the full action list links its rollout', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const r = await runningRollout(app, { name: uid('links'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const id = await openAction(app, cid!);
    const page = (await app.mgmt.get(`/rest/v1/actions?representation=full&q=${encodeURIComponent(`rollout.id==${r.id}`)}`)).json();
    expect(page.content.map((a: Json) => a.id)).toEqual([id]);
    expect(page.content[0]._links.rollout.href).toBe(`${app.url}${ROLLOUTS}/${r.id}`);
    const byName = (await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.name==${r.name}`)}`)).json();
    expect(byName.content.map((a: Json) => a.id)).toEqual([id]);
  });

  it('DOWNLOADED in an update rollout counts as running; a canceled action completes its group (cancelled)', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const r = await runningRollout(app, { name: uid('downloaded'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const id = await openAction(app, cid!);
    const dev = app.device(cid!);
    expect((await dev.get(`/deploymentBase/${id}`)).status).toBe(200);
    const fb = await dev.post(`/deploymentBase/${id}/feedback`, { status: { execution: 'downloaded', result: { finished: 'none' } } });
    expect(fb.status, fb.text).toBe(200);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ running: 1 }));
    // the operator cancels the action, the device confirms the cancellation: the only action is final, the rollout finishes
    expect((await app.mgmt.delete(`/rest/v1/targets/${cid}/actions/${id}`)).status).toBe(204);
    const poll = await dev.poll();
    const cancelId = Number(/cancelAction\/(\d+)/.exec(poll._links.cancelAction.href)?.[1]);
    const closed = { status: { execution: 'closed', result: { finished: 'success' } } };
    expect((await dev.post(`/cancelAction/${cancelId}/feedback`, closed)).status).toBe(200);
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ cancelled: 1 }));
  }, LONG);
});

describe.each(LOCAL_STORES)('rollout types at the device, %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const handling = async (type: string, extra: Record<string, unknown> = {}): Promise<{ download: string; update: string }> => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    await runningRollout(app, { name: uid(type), targetFilterQuery: fleet(p), distributionSetId: ds, type, ...extra });
    const id = await openAction(app, cid!);
    const dep = (await app.device(cid!).get(`/deploymentBase/${id}`)).json().deployment;
    return { download: dep.download, update: dep.update };
  };

  it('the device sees each type as hawkBit serves it: forced, soft, timeforced before and after forcetime, downloadonly', async () => {
    expect(await handling('forced')).toEqual({ download: 'forced', update: 'forced' });
    expect(await handling('soft')).toEqual({ download: 'attempt', update: 'attempt' });
    expect(await handling('timeforced', { forcetime: Date.now() + 24 * 3600 * 1000 })).toEqual({ download: 'attempt', update: 'attempt' });
    expect(await handling('timeforced', { forcetime: Date.now() - 1000 })).toEqual({ download: 'forced', update: 'forced' });
    expect(await handling('downloadonly')).toEqual({ download: 'forced', update: 'skip' });
  }, LONG);

  it('a last group whose success action is PAUSE finishes the rollout (nothing left to pause before)', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const r = await runningRollout(app, {
      name: uid('last-pause'), targetFilterQuery: fleet(p), distributionSetId: ds, successAction: { action: 'pause', expression: '' },
    });
    await runDevice(app, cid!, 'success');
    expect((await waitStatus(app, r.id, 'finished')).totalTargetsPerStatus).toEqual(counts({ finished: 1 }));
  }, LONG);

  it('lists filter on createdby and sort on createdat', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const a = await readyRollout(app, { name: uid('by-creator'), targetFilterQuery: fleet(p), distributionSetId: ds }, CREATOR);
    const b = await readyRollout(app, { name: uid('by-admin'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const mine = (await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`createdby==creator;id=in=(${a.id},${b.id})`)}`)).json();
    expect(mine.content.map((x: Json) => x.id)).toEqual([a.id]);
    const sorted = (await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id=in=(${a.id},${b.id})`)}&sort=createdat:DESC`)).json();
    expect(sorted.content.map((x: Json) => x.id)).toEqual([b.id, a.id]);
  });
});
