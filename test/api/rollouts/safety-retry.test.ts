/**
 * The rollout's `retry` control (issue 25), driven over HTTP with devices that fail or stay silent and
 * the engine's clock moved forward (`pass(now)`): a failed or timed-out target gets a new action for the
 * same set once its backoff has passed, at most n times, and counts as failed only after the last one;
 * `onlyCodes` limits which failures are retried; each attempt is an action of the target; bad input is refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { STORES } from '../../helpers/app.js';
import {
  ERR, ROLLOUTS, counts, createSet, createTargets, expectError, fleet, getRollout, openAction, runDevice, runningRollout,
  startRolloutApp, uid, waitFor, type Json, type RolloutApp,
} from './fixture.js';

const LONG = 90_000;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const NEVER_PAUSE = { errorCondition: { condition: 'THRESHOLD', expression: '100' } };

describe.each(STORES)('rollout retries on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
  });
  const targetActions = async (cid: string): Promise<Json[]> => {
    const res = await app.mgmt.get(`/rest/v1/targets/${cid}/actions?sort=id:ASC&limit=50`);
    expect(res.status, res.text).toBe(200);
    return res.json().content;
  };
  const fail = async (cid: string, code?: number): Promise<number> => {
    const id = await openAction(app, cid);
    const dev = app.device(cid);
    expect((await dev.get(`/deploymentBase/${id}`)).status).toBe(200);
    const result = code === undefined ? { finished: 'failure' } : { finished: 'failure', details: [], code };
    const fb = await dev.post(`/deploymentBase/${id}/feedback`, { status: { execution: 'closed', result, ...(code === undefined ? {} : { code }) } });
    expect(fb.status, fb.text).toBe(200);
    return id;
  };

  it('failed: after the backoff a new attempt for the same set; the failure counts only once no retry is left', async () => {
    const p = uid();
    const [cid, other] = await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('retry'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      retry: { failed: 1, backoff: { initialSeconds: 60 } },
    });
    expect(r.retry).toEqual({ failed: 1, timedOut: 0, backoff: { initialSeconds: 60, factor: 2, maxSeconds: 3600 } });
    const first = await fail(cid!);
    await runDevice(app, other!, 'success');
    // before the backoff: waiting for its retry, counted as running (not as an error), no new action
    await app.pass(Date.now() + 30 * SECOND);
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ running: 1, finished: 1 }));
    expect(await targetActions(cid!)).toHaveLength(1);

    await app.pass(Date.now() + 2 * MINUTE);
    const attempts = await targetActions(cid!);
    expect(attempts.map((a) => [a.id === first, a.detailStatus, a.attempt])).toEqual([[true, 'error', undefined], [false, 'running', 2]]);
    expect(attempts[1]).toMatchObject({ rollout: r.id, active: true });
    // the device gets the retry as its next deployment; failing again leaves no retry: counted as an error
    const second = await fail(cid!);
    expect(second).toBe(attempts[1].id);
    await app.pass(Date.now() + 10 * MINUTE);
    expect(await targetActions(cid!)).toHaveLength(2);
    const done = await waitFor(() => getRollout(app, r.id), (x) => x.status === 'finished', { what: 'finished' });
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 1 }));
  }, LONG);

  it('a retry that succeeds counts as finished; timedOut retries a silent device; onlyCodes leaves other codes failed', async () => {
    const p = uid();
    const [silent, coded, other] = await createTargets(app, p, 3);
    const r = await runningRollout(app, {
      name: uid('retry-timeout'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      actionTimeout: { inProgressMinutes: 1 },
      retry: { failed: 3, timedOut: 1, backoff: { initialSeconds: 10, factor: 3, maxSeconds: 20 }, onlyCodes: [42] },
    });
    await openAction(app, silent!);
    await fail(coded!, 7); // not one of onlyCodes: no retry
    await app.pass(Date.now() + 2 * MINUTE); // the silent action times out
    await app.pass(Date.now() + 3 * MINUTE); // its retry is due (10 s after the timeout)
    const attempts = await targetActions(silent!);
    expect(attempts.map((a) => a.detailStatus)).toEqual(['error', 'running']);
    expect(await targetActions(coded!)).toHaveLength(1);
    await runDevice(app, silent!, 'success');
    await runDevice(app, other!, 'success');
    const done = await waitFor(() => getRollout(app, r.id), (x) => x.status === 'finished', { what: 'finished' });
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 2 }));
  }, LONG);

  it('a deleted target gets no retry: its rollout finishes without it', async () => {
    const p = uid();
    const [gone, other] = await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('retry-deleted'), targetFilterQuery: fleet(p), distributionSetId: ds, ...NEVER_PAUSE,
      retry: { failed: 2, backoff: { initialSeconds: 60 } },
    });
    await fail(gone!);
    await app.pass(Date.now() + 30 * SECOND); // waiting for its retry
    expect((await app.mgmt.delete(`/rest/v1/targets/${gone}`)).status).toBe(204);
    await runDevice(app, other!, 'success');
    await app.pass(Date.now() + 5 * MINUTE);
    const actions = (await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(`rollout.id==${r.id}`)}&representation=full`)).json().content;
    expect(actions.map((a: Json) => String(a._links.target.href).split('/').at(-1))).toEqual([other]);
    await waitFor(() => getRollout(app, r.id), (x) => x.status === 'finished', { what: 'finished' });
  }, LONG);

  it('bad input: retries over 10 together, backoff max below initial, negative counts; nothing created', async () => {
    const p = uid();
    await createTargets(app, p, 1);
    for (const [retry, field] of [
      [{ failed: 6, timedOut: 5 }, 'failed'], [{ failed: 11 }, 'failed'], [{ failed: -1 }, 'failed'],
      [{ failed: 1, backoff: { initialSeconds: 120, maxSeconds: 60 } }, 'maxSeconds'], [{ failed: 1, backoff: { initialSeconds: 0 } }, 'initialSeconds'],
      [{ failed: 1, backoff: { factor: 0.5 } }, 'factor'], [{ failed: 1, onlyCodes: ['x'] }, 'onlyCodes'],
    ] as const) {
      const name = uid('bad-retry');
      const res = await app.mgmt.post(ROLLOUTS, { json: { name, targetFilterQuery: fleet(p), distributionSetId: ds, retry } });
      expectError(res, 400, ERR.body, field);
      expect((await app.mgmt.get(`${ROLLOUTS}?q=${encodeURIComponent(`name==${name}`)}`)).json().total).toBe(0);
    }
  }, LONG);
});
