/**
 * The rollout's `actionTimeout` control (issue 25), driven over HTTP with silent devices and the
 * engine's clock moved forward (a scheduler pass at a later time): an action running past
 * inProgressMinutes, or silent past stepMinutes, is closed as an error whose history says it timed out;
 * it counts as an error for its group and as timedOut for the abort criteria. Bad values are refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../../helpers/app.js';
import {
  ERR, ROLLOUTS, counts, createSet, createTargets, expectError, fleet, getRollout, openAction, runDevice, runningRollout,
  startRolloutApp, uid, waitFor, waitStatus, type Json, type RolloutApp,
} from './fixture.js';

const LONG = 90_000;
const MINUTE = 60_000;
const NEVER_PAUSE = { errorCondition: { condition: 'THRESHOLD', expression: '100' } };

describe.each(STORES)('rollout action timeouts on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const action = async (id: number): Promise<Json> => {
    const res = await app.mgmt.get(`/rest/v1/actions/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.json();
  };
  const history = async (cid: string, id: number): Promise<string> => {
    const res = await app.mgmt.get(`/rest/v1/targets/${cid}/actions/${id}/status?limit=50`);
    expect(res.status, res.text).toBe(200);
    return JSON.stringify(res.json().content);
  };

  it('inProgressMinutes: a silent device\'s action is closed as an error with the reason, and an abort on timedOut fires', async () => {
    const p = uid();
    const [a, b] = await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('timeout'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      actionTimeout: { inProgressMinutes: 1 },
      abort: { criteria: [{ failureType: 'timedOut', thresholdPercentage: 50, minFinished: 2 }] },
    });
    expect(r.actionTimeout).toEqual({ inProgressMinutes: 1 }); // the wire leaves nulls out
    await runDevice(app, a!, 'success');
    const silent = await openAction(app, b!);
    // the clock is not past the limit yet: nothing happens
    await app.pass(Date.now() + MINUTE / 2);
    expect((await action(silent)).detailStatus).toBe('running');

    await app.pass(Date.now() + 2 * MINUTE);
    expect(await action(silent)).toMatchObject({ detailStatus: 'error', active: false });
    expect(await history(b!, silent)).toContain('Action timed out: not finished within 1 minute(s)');
    const stopped = await waitStatus(app, r.id, 'stopped');
    expect(stopped.stopReason).toMatchObject({ kind: 'abort', criterion: { failureType: 'timedOut' }, observedPercentage: 50 });
    expect(stopped.totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 1 }));
    // the device is offered nothing any more
    expect((await app.device(b!).poll())._links?.deploymentBase).toBeUndefined();
  }, LONG);

  it('stepMinutes: an action with no report for that long is closed; one that reported within it is not; a finished one never', async () => {
    const p = uid();
    const [quiet, done] = await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('step'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      actionTimeout: { inProgressMinutes: 600, stepMinutes: 2 },
    });
    const id = await openAction(app, quiet!);
    const finished = await runDevice(app, done!, 'success');
    const proceeding = { status: { execution: 'proceeding', result: { finished: 'none' } } };
    expect((await app.device(quiet!).post(`/deploymentBase/${id}/feedback`, proceeding)).status).toBe(200);
    await app.pass(Date.now() + MINUTE);
    expect((await action(id)).detailStatus).toBe('running');

    await app.pass(Date.now() + 3 * MINUTE);
    expect((await action(id)).detailStatus).toBe('error');
    expect(await history(quiet!, id)).toContain('no report from the device for 2 minute(s)');
    expect((await action(finished)).detailStatus).toBe('finished');
    // every action is closed: the rollout finishes (no abort configured), one error, one finished
    const end = await waitFor(() => getRollout(app, r.id), (x) => x.status === 'finished', { what: 'finished' });
    expect(end.totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 1 }));
    expect(Object.keys(end)).not.toContain('stopReason');
  }, LONG);

  it('bad input: minutes of 0, over a week, or not whole; nothing created', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    for (const [actionTimeout, field] of [
      [{ inProgressMinutes: 0 }, 'inProgressMinutes'], [{ inProgressMinutes: 10_081 }, 'inProgressMinutes'],
      [{ inProgressMinutes: 5, stepMinutes: 0 }, 'stepMinutes'], [{ inProgressMinutes: 'soon' }, 'inProgressMinutes'], [{}, 'inProgressMinutes'],
    ] as const) {
      const name = uid('bad-timeout');
      const res = await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, actionTimeout } });
      expectError(res, 400, ERR.body, field);
      expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`)).json().total).toBe(0);
    }
  }, LONG);
});
