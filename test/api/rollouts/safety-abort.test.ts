/**
 * The rollout's `abort` control (issue 25), driven over HTTP with devices that fail: nothing fires
 * before `minFinished` actions are final; a criterion that holds stops the rollout at once with its
 * `stopReason`, removes the scheduled actions, cancels the running ones (or lets them finish) and
 * assigns the rollback set to the failed and canceled targets, as actions listed under the rollout but
 * not counted in it. A rollout without `abort` shows no such field; bad input is refused, nothing created.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ACTION } from '../../../src/domain/action.js';
import { LOCAL_STORES, STORES } from '../../helpers/app.js';
import type { TestResponse } from '../../helpers/server.js';
import {
  ERR, ROLLOUTS, counts, createRollout, createSet, createTargets, expectError, fleet, getGroups, getRollout, groupTargets, incompleteSet,
  op, readyRollout, runDevice, runningRollout, startRolloutApp, uid, waitFor, waitGroups, waitStatus, type Json, type RolloutApp,
} from './fixture.js';

const LONG = 90_000;
const NEVER_PAUSE = { errorCondition: { condition: 'THRESHOLD', expression: '100' } };

describe.each(STORES)('rollout abort on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  let old: number;
  const clock = uid('clock');
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
    old = (await createSet(app)).id;
    await createTargets(app, clock, 1);
  });
  /** Waits until the engine made `n` whole passes (a new rollout leaves creating in a pass that then evaluates the running ones). */
  const enginePasses = async (n: number): Promise<void> => {
    for (let i = 0; i <= n; i++) await readyRollout(app, { name: uid('tick'), targetFilterQuery: fleet(clock), distributionSetId: ds });
  };
  const rolloutActions = async (id: number): Promise<Json[]> => {
    const res = await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${id}`)}&representation=full&limit=100`);
    expect(res.status, res.text).toBe(200);
    return res.json().content;
  };
  const controllerOf = (a: Json): string => decodeURIComponent(String(a._links.target.href).split('/').at(-1)!);

  it('fires only after minFinished: stopped with stopReason, scheduled removed, running canceled, rollback to failed and canceled targets', async () => {
    const p = uid();
    await createTargets(app, p, 6);
    const criterion = { failureType: 'error', thresholdPercentage: 50, minFinished: 2 };
    const r = await runningRollout(app, {
      name: uid('abort'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2, ...NEVER_PAUSE,
      abort: { criteria: [criterion], rollbackTo: old },
    });
    expect(r.abort).toEqual({ criteria: [criterion], onAbort: 'cancel', rollbackTo: old });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [a, b, c] = await groupTargets(app, r.id, g1.id);
    await runDevice(app, a!, 'failure');
    // 1 of 1 final failed, but fewer than minFinished are final: nothing fires
    await enginePasses(2);
    expect((await getRollout(app, r.id)).status).toBe('running');

    await runDevice(app, b!, 'success');
    const stopped = await waitStatus(app, r.id, 'stopped');
    expect(stopped.stopReason).toMatchObject({ kind: 'abort', criterion, observedPercentage: 50 });
    await waitGroups(app, r.id, ['finished', 'finished']);
    // the scheduled group's actions are gone (notstarted), c's is canceling (counted as running); rollbacks are not counted
    const after = await waitFor(() => getRollout(app, r.id), (x) => x.totalTargetsPerStatus.notstarted === 3, { what: 'scheduled removed' });
    expect(after.totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 1, running: 1, notstarted: 3 }));
    const poll = await app.device(c!).poll();
    expect(poll._links.cancelAction, JSON.stringify(poll)).toBeDefined();

    const rollbacks = await waitFor(() => rolloutActions(r.id), (as) => as.filter((x) => x.rollback === true).length === 2, {
      what: 'two rollback actions',
    });
    const back = rollbacks.filter((x) => x.rollback === true);
    expect(back.map(controllerOf).sort()).toEqual([a, c].sort());
    for (const x of back) {
      expect(x).toMatchObject({ forceType: 'soft', rollout: r.id, active: true });
      expect(String(x._links.distributionset.href)).toMatch(new RegExp(`/distributionsets/${old}$`));
    }
    // the canceled action says why in its history
    const canceled = rollbacks.find((x) => x.rollback !== true && controllerOf(x) === c)!;
    const history = await app.mgmt.get(`${String(canceled._links.status.href).replace(/^https?:\/\/[^/]+/, '')}`);
    expect(history.text).toContain('its rollout was aborted');
    // the device of a failed target gets the rollback set as its next deployment
    await runDevice(app, a!, 'success');
    await waitFor(() => rolloutActions(r.id), (as) => as.some((x) => x.rollback === true && controllerOf(x) === a && x.detailStatus === 'finished'), {
      what: 'the rollback of a finished',
    });
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 1, running: 1, notstarted: 3 }));
  }, LONG);

  it('finishRunning: stopped at once, running actions left to finish; "any" counts errors and cancels; no rollback without rollbackTo', async () => {
    const p = uid();
    await createTargets(app, p, 3);
    const r = await runningRollout(app, {
      name: uid('finish-running'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      abort: { criteria: [{ failureType: 'any', thresholdPercentage: 100, minFinished: 1 }], onAbort: 'finishRunning' },
    });
    const [first, second] = (await rolloutActions(r.id)).map(controllerOf).sort();
    await runDevice(app, first!, 'failure');
    const stopped = await waitStatus(app, r.id, 'stopped');
    expect(stopped.stopReason).toMatchObject({ kind: 'abort', observedPercentage: 100 });
    // still running: the device keeps its deployment and finishes it
    await runDevice(app, second!, 'success');
    const done = await waitFor(() => getRollout(app, r.id), (x) => x.totalTargetsPerStatus.finished === 1, { what: 'second finished' });
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 1, running: 1 }));
    expect((await rolloutActions(r.id)).filter((x) => x.rollback === true)).toEqual([]);
  }, LONG);

  it('finishRunning with rollbackTo: the running actions finish first, then the failed ones (before and after the abort) are rolled back', async () => {
    const p = uid();
    await createTargets(app, p, 3);
    const r = await runningRollout(app, {
      name: uid('finish-rollback'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      abort: { criteria: [{ failureType: 'error', thresholdPercentage: 30, minFinished: 1 }], onAbort: 'finishRunning', rollbackTo: old },
    });
    const [a, b, c] = (await rolloutActions(r.id)).map(controllerOf).sort();
    await runDevice(app, a!, 'failure');
    await waitStatus(app, r.id, 'stopped');
    // b and c still run: no rollback yet, not even for a, whose action failed
    await enginePasses(2);
    expect((await rolloutActions(r.id)).filter((x) => x.rollback === true)).toEqual([]);
    expect((await app.device(b!).poll())._links.cancelAction).toBeUndefined();
    await runDevice(app, b!, 'failure');
    await enginePasses(1);
    expect((await rolloutActions(r.id)).filter((x) => x.rollback === true)).toEqual([]);
    await runDevice(app, c!, 'success');
    const all = await waitFor(() => rolloutActions(r.id), (as) => as.filter((x) => x.rollback === true).length === 2, {
      what: 'the rollbacks once every action ended',
    });
    const back = all.filter((x) => x.rollback === true);
    expect(back.map(controllerOf).sort()).toEqual([a, b].sort());
    for (const x of back) expect(String(x._links.distributionset.href)).toMatch(new RegExp(`/distributionsets/${old}$`));
    // handled once: more passes add none
    await enginePasses(2);
    expect((await rolloutActions(r.id)).filter((x) => x.rollback === true)).toHaveLength(2);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ error: 2, finished: 1 }));
  }, LONG);

  it('a rollout without abort shows neither abort nor stopReason; PUT sets or removes abort before the start only', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const plain = await readyRollout(app, { name: uid('plain'), targetFilterQuery: fleet(p), distributionSetId: ds });
    expect(Object.keys(plain)).not.toContain('abort');
    expect(Object.keys(plain)).not.toContain('stopReason');
    const listed = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id==${plain.id}`)}`);
    expect(Object.keys(listed.json().content[0])).not.toContain('abort');

    const abort = { criteria: [{ failureType: 'timedOut', thresholdPercentage: 10, minFinished: 5 }], onAbort: 'finishRunning', rollbackTo: old };
    const put = await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: { abort } });
    expect(put.status, put.text).toBe(200);
    expect(put.json().abort).toEqual(abort);
    const full = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id==${plain.id}`)}&representation=full`);
    expect(full.json().content[0].abort).toEqual(abort);
    // a PUT without abort keeps it; abort: null removes it
    expect((await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: { description: 'x' } })).json().abort).toEqual(abort);
    const removed = await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: { abort: null } });
    expect(Object.keys(removed.json())).not.toContain('abort');
    // the other safety fields the same way, with their defaults filled in
    const moreBody = { actionTimeout: { inProgressMinutes: 30 }, retry: { timedOut: 2 } };
    const more = await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: moreBody });
    expect(more.status, more.text).toBe(200);
    expect(more.json()).toMatchObject({
      actionTimeout: { inProgressMinutes: 30 },
      retry: { failed: 0, timedOut: 2, backoff: { initialSeconds: 60, factor: 2, maxSeconds: 3600 } },
    });
    const cleared = await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: { actionTimeout: null, retry: null } });
    expect(Object.keys(cleared.json()).filter((k) => ['abort', 'actionTimeout', 'retry'].includes(k))).toEqual([]);

    await op(app, plain.id, 'start');
    await waitStatus(app, plain.id, 'running');
    expectError(await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: { abort } }), 400, ERR.illegalState, 'before the rollout starts');
    expectError(await app.mgmt.put(`${ROLLOUTS}/${plain.id}`, { json: { retry: { failed: 1 } } }), 400, ERR.illegalState, 'retry');
    expect(Object.keys(await getRollout(app, plain.id))).not.toContain('abort');
  }, LONG);

  it('bad input: thresholds outside 0-100, minFinished 0, no criteria, unknown names, rollback to an unknown, incomplete or invalidated set', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    const refused = async (abort: unknown): Promise<TestResponse> => {
      const name = uid('bad-abort');
      const res = await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, abort } });
      const left = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`);
      expect(left.json().total, `a refused create left ${name} behind`).toBe(0);
      return res;
    };
    const one = (c: Record<string, unknown>) => ({ criteria: [{ failureType: 'error', thresholdPercentage: 10, minFinished: 1, ...c }] });
    expectError(await refused(one({ thresholdPercentage: 101 })), 400, ERR.body, 'thresholdPercentage');
    expectError(await refused(one({ thresholdPercentage: -1 })), 400, ERR.body, 'thresholdPercentage');
    expectError(await refused(one({ minFinished: 0 })), 400, ERR.body, 'minFinished');
    expectError(await refused(one({ failureType: 'slow' })), 400, ERR.body, 'failureType');
    expectError(await refused({ criteria: [] }), 400, ERR.body, 'criteria');
    expectError(await refused({ ...one({}), onAbort: 'later' }), 400, ERR.body, 'onAbort');
    expectError(await refused({ ...one({}), rollbackTo: 987654321 }), 404, ERR.notFound);
    expectError(await refused({ ...one({}), rollbackTo: await incompleteSet(app) }), 400, ERR.dsIncomplete);
    const invalid = (await createSet(app)).id;
    const inv = await app.mgmt.post(`/rest/v1/distributionsets/${invalid}/invalidate`, { json: { actionCancelationType: 'none' } });
    expect(inv.status, inv.text).toBe(204);
    expectError(await refused({ ...one({}), rollbackTo: invalid }), 400, ERR.dsInvalid);
  }, LONG);
});

describe.each(LOCAL_STORES)('rollout abort with finishRunning on the %s store, the engine on a test clock', (kind) => {
  it('while the running actions finish, the engine reads those again, not every action of the rollout', async () => {
    const app = await startRolloutApp(kind, { manualEngine: true });
    const [ds, old] = [(await createSet(app)).id, (await createSet(app)).id];
    const p = uid();
    await createTargets(app, p, 3);
    const r = await createRollout(app, {
      name: uid('reads'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 1, ...NEVER_PAUSE,
      abort: { criteria: [{ failureType: 'error', thresholdPercentage: 30, minFinished: 1 }], onAbort: 'finishRunning', rollbackTo: old },
    });
    const t0 = Date.now();
    await app.pass(t0);
    await op(app, r.id, 'start');
    await app.pass(t0);
    const [group] = await getGroups(app, r.id);
    const [a, b, c] = await groupTargets(app, r.id, group!.id);
    await runDevice(app, a!, 'failure');
    await app.pass(t0 + 1000); // the abort fires; the running ones are left to finish
    expect((await getRollout(app, r.id)).status).toBe('stopped');
    // what the engine's later looks read: every action of the rollout is its `rollout` index
    const reads = vi.spyOn(app.store, 'members');
    const rolloutReads = (): number => reads.mock.calls.filter(([, k, index, key]) => k === ACTION && index === 'rollout' && key === String(r.id)).length;
    await app.pass(t0 + 7000); // two looks past ACTION_CHECK_MS (5 s) while b and c run
    await app.pass(t0 + 13_000);
    expect(rolloutReads()).toBe(0);
    await runDevice(app, b!, 'failure');
    await runDevice(app, c!, 'success');
    await app.pass(t0 + 19_000); // both ended: the rollback reads the rollout's actions once, for the failed targets
    expect(rolloutReads()).toBe(1);
    reads.mockRestore();
    const actions = await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${r.id}`)}&representation=full&limit=100`);
    expect(actions.json().content.filter((x: Json) => x.rollback === true)).toHaveLength(2);
  }, LONG);
});

describe('rollout safety fields in the OpenAPI document', () => {
  it('names abort, actionTimeout, retry and verifyInstall in the create and update bodies and in the rollout reply (stopReason too)', async () => {
    const app = await startRolloutApp('memory');
    const doc = (await app.anon.get('/rest/v1/openapi.json')).json();
    const body = (method: 'post' | 'put', path: string): Record<string, unknown> =>
      doc.paths[path][method].requestBody.content['application/json'].schema.properties;
    const reply = doc.components.schemas.MgmtRolloutResponseBody.properties;
    for (const field of ['abort', 'actionTimeout', 'retry', 'verifyInstall']) {
      expect(Object.keys(body('post', '/rest/v1/rollouts'))).toContain(field);
      expect(Object.keys(body('put', '/rest/v1/rollouts/{rolloutId}'))).toContain(field);
      expect(Object.keys(reply)).toContain(field);
    }
    expect(Object.keys(reply)).toContain('stopReason');
    expect(JSON.stringify(body('post', '/rest/v1/rollouts')['abort'])).toContain('thresholdPercentage');
    // verifyInstall's rule, in the request and the reply: what confirms an install, and that a poll does not
    for (const schema of [body('post', '/rest/v1/rollouts')['verifyInstall'], reply['verifyInstall']]) {
      expect(JSON.stringify(schema)).toContain('PUT installedBase');
      expect(JSON.stringify(schema)).toContain('A poll alone confirms nothing');
    }
  });
});
