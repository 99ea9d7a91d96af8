/**
 * The rollout's `verifyInstall` control (issue 25), driven over HTTP: an action closed with success
 * counts as running (verifying) until its device polls again, then as finished; a device that reports
 * failure after its success feedback, before that poll (A/B fallback), counts as an error with the
 * reason in the action's history. A rollout without it finishes actions at their success feedback.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../../helpers/app.js';
import {
  ERR, ROLLOUTS, counts, createSet, createTargets, expectError, fleet, getRollout, readyRollout, runDevice, runningRollout,
  startRolloutApp, uid, waitStatus, type Json, type RolloutApp,
} from './fixture.js';

const LONG = 90_000;
const MINUTE = 60_000;
const NEVER_PAUSE = { errorCondition: { condition: 'THRESHOLD', expression: '100' } };

describe.each(STORES)('rollout verifyInstall on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const rolloutActions = async (id: number): Promise<Json[]> => {
    const res = await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${id}`)}&representation=full&limit=100`);
    expect(res.status, res.text).toBe(200);
    return res.json().content;
  };
  const history = async (action: Json): Promise<string> => {
    const res = await app.mgmt.get(String(action._links.status.href).replace(/^https?:\/\/[^/]+/, ''));
    expect(res.status, res.text).toBe(200);
    return res.text;
  };

  it('success counts once the device polls again; a fallback reported before that poll counts as an error, with its reason', async () => {
    const p = uid();
    const [good, bad] = await createTargets(app, p, 2);
    const r = await runningRollout(app, { name: uid('verify'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE, verifyInstall: true });
    expect(r.verifyInstall).toBe(true);
    const goodAction = await runDevice(app, good!, 'success');
    const badAction = await runDevice(app, bad!, 'success');
    // both closed with success, neither confirmed: counted as running, the rollout goes on running
    const waiting = await getRollout(app, r.id);
    expect(waiting.totalTargetsPerStatus).toEqual(counts({ running: 2 }));
    expect(waiting.status).toBe('running');

    // the falling-back device reports failure on the action it closed with success
    const fb = await app.device(bad!).post(`/deploymentBase/${badAction}/feedback`, {
      status: { execution: 'closed', result: { finished: 'failure' }, details: ['booted the previous slot'] },
    });
    expect(fb.status, fb.text).toBe(200);
    // the other polls: it booted and talks to us
    const poll = await app.device(good!).poll();
    expect(poll._links.installedBase, JSON.stringify(poll)).toBeDefined();
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 1, error: 1 }));
    const byId = new Map((await rolloutActions(r.id)).map((a) => [a.id as number, a]));
    expect(byId.get(goodAction)).toMatchObject({ detailStatus: 'finished', active: false });
    expect(byId.get(badAction)).toMatchObject({ detailStatus: 'error', active: false });
    expect(await history(byId.get(goodAction))).toContain('Install verified');
    const fell = await history(byId.get(badAction));
    expect(fell).toContain('Install not verified');
    expect(fell).toContain('booted the previous slot');
    // confirmed: a further poll changes nothing, a late failure is refused as for any closed action
    await app.device(good!).poll();
    const late = await app.device(good!).post(`/deploymentBase/${goodAction}/feedback`, {
      status: { execution: 'closed', result: { finished: 'failure' } },
    });
    expect(late.status, late.text).toBe(410);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ finished: 1, error: 1 }));
  }, LONG);

  it('with actionTimeout, a device that never polls again after its success feedback is closed as a timeout', async () => {
    const p = uid();
    const [quiet] = await createTargets(app, p, 1);
    const r = await runningRollout(app, {
      name: uid('verify-timeout'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      verifyInstall: true, actionTimeout: { inProgressMinutes: 1 },
    });
    const id = await runDevice(app, quiet!, 'success');
    await app.pass(Date.now() + 2 * MINUTE);
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 1 }));
    const [a] = await rolloutActions(r.id);
    expect(a).toMatchObject({ id, detailStatus: 'error' });
    expect(await history(a)).toContain('Action timed out');
  }, LONG);

  it('without verifyInstall the success feedback finishes the action at once; PUT sets it before the start only; bad input refused', async () => {
    const p = uid();
    const [one] = await createTargets(app, p, 1);
    const plain = await runningRollout(app, { name: uid('plain'), targetFilterQuery: fleet(p), distributionSetId: ds });
    expect(Object.keys(plain)).not.toContain('verifyInstall');
    await runDevice(app, one!, 'success');
    expect((await waitStatus(app, plain.id, 'finished')).totalTargetsPerStatus).toEqual(counts({ finished: 1 }));

    const ready = await readyRollout(app, { name: uid('put'), targetFilterQuery: fleet(p), distributionSetId: ds });
    const put = await app.mgmt.put(`${ROLLOUTS}/${ready.id}`, { json: { verifyInstall: true } });
    expect(put.status, put.text).toBe(200);
    expect(put.json().verifyInstall).toBe(true);
    const full = await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`id==${ready.id}`)}&representation=full`);
    expect(full.json().content[0].verifyInstall).toBe(true);
    const removed = await app.mgmt.put(`${ROLLOUTS}/${ready.id}`, { json: { verifyInstall: null } });
    expect(Object.keys(removed.json())).not.toContain('verifyInstall');
    const name = uid('bad-verify');
    expectError(await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, verifyInstall: 'yes' } }), 400, ERR.body, 'verifyInstall');
    expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`)).json().total).toBe(0);
  }, LONG);
});
