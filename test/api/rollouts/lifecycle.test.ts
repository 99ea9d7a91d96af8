/**
 * Every rollout status of the state machine, reached through the reference's operations, with
 * devices driven over DDI so groups progress; illegal transitions answer 400 illegalState.
 * @see reference/hawkbit-api.md 3.7 (operations), 4.6 (state machine), 4.7 (group flow, counts)
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  CREATOR, ERR, ROLLOUTS, counts, createRollout, createSet, createTargets, expectError, fleet, getGroups, getRollout, groupTargets, op,
  readyRollout, runDevice, runningRollout, setConfig, startRolloutApp, uid, waitFor, waitGroupCounts, waitGroups, waitStatus, type Json,
  type RolloutApp,
} from './fixture.js';

const LONG = 60_000;

describe.each(LOCAL_STORES)('rollout lifecycle on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const illegal = async (id: number, what: string): Promise<void> => {
    expectError(await app.mgmt.post(`${ROLLOUTS}/${id}/${what}`), 400, ERR.illegalState);
  };
  /** hawkBit's MgmtRolloutResource refuses a retry of an unfinished rollout with a ValidationException: 400 constraintViolation. */
  const notRetryable = async (id: number): Promise<void> => {
    expectError(await app.mgmt.post(`${ROLLOUTS}/${id}/retry`), 400, ERR.constraint, 'Rollout must be finished in order to be retried!');
  };

  it('creating -> ready -> starting/running -> finished, groups chained, counts exact at every read', async () => {
    const p = uid();
    await createTargets(app, p, 4);
    const name = uid('journey');
    const created = await createRollout(app, { name, targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    expect(created.status).toBe('creating');
    const ready = await waitStatus(app, created.id, 'ready');
    expect(ready.totalTargetsPerStatus).toEqual(counts({ notstarted: 4 }));
    await illegal(created.id, 'pause');
    await illegal(created.id, 'resume');
    await illegal(created.id, 'triggerNextGroup');
    await notRetryable(created.id);

    await op(app, created.id, 'start');
    expect(['starting', 'running']).toContain((await getRollout(app, created.id)).status);
    await waitStatus(app, created.id, 'running');
    await illegal(created.id, 'start');
    const [g1, g2] = await waitGroups(app, created.id, ['running', 'scheduled']);
    expect(g1.totalTargetsPerStatus).toEqual(counts({ running: 2 }));
    expect(g2.totalTargetsPerStatus).toEqual(counts({ scheduled: 2 }));
    expect((await getRollout(app, created.id)).totalTargetsPerStatus).toEqual(counts({ running: 2, scheduled: 2 }));

    // the actions: group 1 running, group 2 scheduled (inactive); all carry the rollout, in the target's and the global list
    const first = await groupTargets(app, created.id, g1.id);
    const second = await groupTargets(app, created.id, g2.id);
    // actions render as the spec's API generation does (2.10): status pending/finished, the fine status in detailStatus
    const [a1] = (await app.mgmt.get(`/rest/v1/targets/${first[0]}/actions`)).json().content;
    expect(a1).toMatchObject({ detailStatus: 'running', active: true, rollout: created.id, rolloutName: name });
    const [a2] = (await app.mgmt.get(`/rest/v1/targets/${second[0]}/actions`)).json().content;
    expect(a2).toMatchObject({ detailStatus: 'scheduled', active: false, rollout: created.id, rolloutName: name });
    const global = (await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${created.id}`)}&limit=50`)).json();
    expect(global.total).toBe(4);
    expect(global.content.every((a: Json) => a.rollout === created.id && a.rolloutName === name)).toBe(true);

    // one success in group 1 meets its 50 % success condition: group 2 starts while group 1 still runs
    await runDevice(app, first[0]!, 'success');
    await waitGroupCounts(app, created.id, [['running', counts({ finished: 1, running: 1 })], ['running', counts({ running: 2 })]]);
    expect((await getRollout(app, created.id)).totalTargetsPerStatus).toEqual(counts({ finished: 1, running: 3 }));
    for (const cid of [first[1]!, ...second]) await runDevice(app, cid, 'success');
    const done = await waitStatus(app, created.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 4 }));
    const groups = await getGroups(app, created.id);
    expect(groups.map((g) => [g.status, g.totalTargetsPerStatus])).toEqual([
      ['finished', counts({ finished: 2 })], ['finished', counts({ finished: 2 })],
    ]);
    for (const what of ['start', 'pause', 'resume', 'stop', 'approve', 'deny', 'triggerNextGroup']) await illegal(created.id, what);
  }, LONG);

  it('pause and resume: paused keeps groups as they are; pausing a paused rollout is illegal', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('pause'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    await op(app, r.id, 'pause');
    const paused = await waitStatus(app, r.id, 'paused');
    expect(paused.totalTargetsPerStatus).toEqual(counts({ running: 1, scheduled: 1 }));
    await illegal(r.id, 'pause');
    await illegal(r.id, 'start');
    await illegal(r.id, 'triggerNextGroup');
    // a paused rollout starts no group, even when group 1 completes (paused rollouts are not processed)
    const [g1] = await getGroups(app, r.id);
    await runDevice(app, (await groupTargets(app, r.id, g1.id))[0]!, 'success');
    expect((await getRollout(app, r.id)).status).toBe('paused');
    expect((await getGroups(app, r.id))[1].status).toBe('scheduled');
    await op(app, r.id, 'resume');
    await waitStatus(app, r.id, 'running');
    await illegal(r.id, 'resume');
    await waitGroups(app, r.id, ['finished', 'running']);
  }, LONG);

  it('triggerNextGroup starts the next scheduled group; with none left it is illegal', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('trigger'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    await waitGroups(app, r.id, ['running', 'scheduled']);
    await op(app, r.id, 'triggerNextGroup');
    await waitGroupCounts(app, r.id, [['running', counts({ running: 1 })], ['running', counts({ running: 1 })]]);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ running: 2 }));
    await illegal(r.id, 'triggerNextGroup');
  }, LONG);

  it('stop while running: stopping -> stopped, scheduled actions removed, running ones canceled, groups finished', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('stop'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    const [g1, g2] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [running] = await groupTargets(app, r.id, g1.id);
    const [scheduled] = await groupTargets(app, r.id, g2.id);
    await op(app, r.id, 'stop');
    expect(['stopping', 'stopped']).toContain((await getRollout(app, r.id)).status);
    await waitStatus(app, r.id, 'stopped');
    expect((await getGroups(app, r.id)).map((g) => g.status)).toEqual(['finished', 'finished']);
    expect((await app.mgmt.get(`/rest/v1/targets/${scheduled}/actions`)).json().total).toBe(0);
    const [canceling] = (await app.mgmt.get(`/rest/v1/targets/${running}/actions`)).json().content;
    expect(canceling).toMatchObject({ type: 'cancel', rollout: r.id });
    expect(['canceling', 'canceled']).toContain(canceling.detailStatus);
    for (const what of ['stop', 'start', 'pause', 'resume', 'approve', 'triggerNextGroup']) await illegal(r.id, what);
    await notRetryable(r.id);
  }, LONG);

  it('stop from ready and from creating ends in stopped', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const ready = await readyRollout(app, { name: uid('stop-ready'), targetFilterQuery: fleet(p), distributionSetId: ds });
    await op(app, ready.id, 'stop');
    await waitStatus(app, ready.id, 'stopped');
    const fresh = await createRollout(app, { name: uid('stop-creating'), targetFilterQuery: fleet(p), distributionSetId: ds });
    await op(app, fresh.id, 'stop');
    await waitStatus(app, fresh.id, 'stopped');
  });

  it('approval: a creator without APPROVE_ROLLOUT waits for approval, approve/deny with remark; admin gets ready at once', async () => {
    await setConfig(app, 'rollout.approval.enabled', true);
    try {
      const p = uid();
      await createTargets(app, p, 1);
      const waiting = await readyRollout(app, { name: uid('approve'), targetFilterQuery: fleet(p), distributionSetId: ds }, CREATOR);
      expect(waiting.status).toBe('waiting_for_approval');
      await illegal(waiting.id, 'start');
      expectError(await app.mgmt.post(`${ROLLOUTS}/${waiting.id}/approve`, { auth: CREATOR }), 403, ERR.permission);
      await op(app, waiting.id, 'approve?remark=looks%20good');
      const approved = await waitStatus(app, waiting.id, 'ready');
      expect(approved).toMatchObject({ approvalRemark: 'looks good', approveDecidedBy: 'admin' });
      await illegal(waiting.id, 'approve');
      await illegal(waiting.id, 'deny');

      const denied = await readyRollout(app, { name: uid('deny'), targetFilterQuery: fleet(p), distributionSetId: ds }, CREATOR);
      expect(denied.status).toBe('waiting_for_approval');
      await op(app, denied.id, 'deny?remark=not%20today');
      expect(await waitStatus(app, denied.id, 'approval_denied')).toMatchObject({ approvalRemark: 'not today', approveDecidedBy: 'admin' });
      await illegal(denied.id, 'start');
      await illegal(denied.id, 'approve');
      await op(app, denied.id, 'stop');
      await waitStatus(app, denied.id, 'stopped');

      const byAdmin = await readyRollout(app, { name: uid('admin'), targetFilterQuery: fleet(p), distributionSetId: ds });
      expect(byAdmin.status).toBe('ready');
    } finally {
      await setConfig(app, 'rollout.approval.enabled', false);
    }
  });

  it('without the approval setting a creator lacking APPROVE_ROLLOUT gets a ready rollout', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const r = await readyRollout(app, { name: uid('no-approval'), targetFilterQuery: fleet(p), distributionSetId: ds }, CREATOR);
    expect(r.status).toBe('ready');
  });

  it('retry of a finished rollout: 201 <name>_retry over the failed targets, one group, same type', async () => {
    const p = uid();
    const cids = await createTargets(app, p, 3);
    const name = uid('retry');
    const r = await runningRollout(app, { name, targetFilterQuery: fleet(p), distributionSetId: ds, type: 'soft' });
    await notRetryable(r.id);
    await runDevice(app, cids[0]!, 'success');
    await runDevice(app, cids[1]!, 'success');
    await runDevice(app, cids[2]!, 'failure');
    expect((await waitStatus(app, r.id, 'finished')).totalTargetsPerStatus).toEqual(counts({ finished: 2, error: 1 }));
    const res = await app.mgmt.post(`${ROLLOUTS}/${r.id}/retry`);
    expect(res.status, res.text).toBe(201);
    const retry = res.json();
    expect(retry).toMatchObject({ name: `${name}_retry`, type: 'soft', distributionSetId: ds, weight: 1000 });
    expect(retry.id).not.toBe(r.id);
    await waitStatus(app, retry.id, 'ready');
    const groups = await getGroups(app, retry.id);
    expect(groups).toHaveLength(1);
    expect(await groupTargets(app, retry.id, groups[0].id)).toEqual([cids[2]]);
    expect((await getRollout(app, retry.id)).totalTargets).toBe(1);
    expectError(await app.mgmt.post(`${ROLLOUTS}/987654321/retry`), 404, ERR.notFound);
  }, LONG);

  // hawkBit (every release): a retry counts the failed targets first; none is a ValidationException ("No failed targets in Rollout")
  it('retry of a finished rollout without a failed target: 400 constraintViolation, nothing created', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const name = uid('all-well');
    const r = await runningRollout(app, { name, targetFilterQuery: fleet(p), distributionSetId: ds });
    await runDevice(app, cid!, 'success');
    await waitStatus(app, r.id, 'finished');
    expectError(await app.mgmt.post(`${ROLLOUTS}/${r.id}/retry`), 400, ERR.constraint, 'No failed targets in Rollout');
    expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}_retry`)}`)).json().total).toBe(0);
  }, LONG);

  it('PUT changes name and description only', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const r = await readyRollout(app, { name: uid('put'), targetFilterQuery: fleet(p), distributionSetId: ds, type: 'soft' });
    const name = uid('renamed');
    const res = await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { name, description: 'new words', type: 'forced', weight: 3 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ id: r.id, name, description: 'new words', type: 'soft', weight: 1000, status: 'ready' });
    expect(await getRollout(app, r.id)).toMatchObject({
      name, description: 'new words', type: 'soft', weight: 1000, lastModifiedBy: 'admin',
    });
    expectError(await app.mgmt.put(`${ROLLOUTS}/987654321`, { json: { name: 'x' } }), 404, ERR.notFound);
  });

  it('DELETE with no started action removes the rollout (404 afterwards)', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await readyRollout(app, { name: uid('hard'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    expect((await app.mgmt.delete(`${ROLLOUTS}/${r.id}`)).status).toBe(204);
    await waitFor(() => app.mgmt.get(`${ROLLOUTS}/${r.id}`), (res) => res.status === 404, { what: 'the rollout gone' });
    expectError(await app.mgmt.get(`${ROLLOUTS}/${r.id}`), 404, ERR.notFound);
    expectError(await app.mgmt.get(`${ROLLOUTS}/${r.id}/deploygroups`), 404, ERR.notFound);
    expectError(await app.mgmt.delete(`${ROLLOUTS}/987654321`), 404, ERR.notFound);
  });

  it('DELETE while running: deleting -> deleted (soft), active actions closed, read-only afterwards', async () => {
    const p = uid();
    const cids = await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('soft'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2 });
    await waitGroups(app, r.id, ['running', 'scheduled']);
    expect((await app.mgmt.delete(`${ROLLOUTS}/${r.id}`)).status).toBe(204);
    expect(['deleting', 'deleted']).toContain((await getRollout(app, r.id)).status);
    const deleted = await waitStatus(app, r.id, 'deleted');
    expect(deleted.deleted).toBe(true);
    expect((await getGroups(app, r.id)).map((g) => g.status)).toEqual(['finished', 'finished']);
    for (const cid of cids) {
      const actions = (await app.mgmt.get(`/rest/v1/targets/${cid}/actions`)).json().content;
      expect(actions.every((a: Json) => a.active === false), JSON.stringify(actions)).toBe(true);
    }
    expectError(await app.mgmt.put(`${ROLLOUTS}/${r.id}`, { json: { name: 'too late' } }), 403, ERR.readOnly);
    for (const what of ['start', 'pause', 'resume', 'stop', 'approve', 'triggerNextGroup']) await illegal(r.id, what);
    expectError(await app.mgmt.post(`${ROLLOUTS}/${r.id}/retry`), 404, ERR.notFound);
    const listed = (await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id==${r.id}`)}`)).json();
    expect(listed.total).toBe(0);
  }, LONG);
});
