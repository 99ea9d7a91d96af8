/**
 * Group evaluation driven by device feedback over DDI: the error threshold is strict (>), the success
 * threshold inclusive (>=), download-only rollouts count DOWNLOADED as finished, empty groups succeed,
 * success action PAUSE pauses (finishing a complete group in the same pass) and resume goes on,
 * confirmation-required groups wait for the device.
 * @see reference/hawkbit-api.md 4.6 (PAUSED / resume), 4.7 (evaluation, counts mapping), 4.2, 4.9
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STORES } from '../../helpers/app.js';
import {
  counts, createSet, createTargets, fleet, getGroups, getRollout, groupTargets, op, openAction, readyRollout, runDevice,
  runningRollout, setConfig, startRolloutApp, uid, waitGroupCounts, waitGroups, waitStatus, type RolloutApp,
} from './fixture.js';

const LONG = 60_000;

describe.each(LOCAL_STORES)('rollout group evaluation on the %s store', (kind) => {
  let app: RolloutApp;
  let ds: number;
  beforeAll(async () => {
    app = await startRolloutApp(kind);
    ds = (await createSet(app)).id;
    await createTargets(app, clock, 1);
  });
  const clock = uid('clock');
  /**
   * Waits until the engine made `n` whole passes over the tenant: a new rollout leaves `creating` in a pass that
   * evaluates the running rollouts after it (creating comes first), and passes run one after the other.
   */
  const enginePasses = async (n: number): Promise<void> => {
    for (let i = 0; i <= n; i++) await readyRollout(app, { name: uid('tick'), targetFilterQuery: fleet(clock), distributionSetId: ds });
  };

  it('error threshold is strict: 25 % errors at threshold 25 go on, 50 % pause the rollout with the group in error', async () => {
    const p = uid();
    await createTargets(app, p, 8);
    const r = await runningRollout(app, {
      name: uid('errors'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' }, errorCondition: { condition: 'THRESHOLD', expression: '25' },
    });
    const [g1, g2] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const first = await groupTargets(app, r.id, g1.id);
    await runDevice(app, first[0]!, 'failure');
    for (const cid of first.slice(1)) await runDevice(app, cid, 'success');
    // 1 of 4 failed: 25 % is not above 25 %, so group 1 finishes (not error) and group 2 starts
    const after = await waitGroups(app, r.id, ['finished', 'running']);
    expect(after[0].totalTargetsPerStatus).toEqual(counts({ error: 1, finished: 3 }));
    expect((await getRollout(app, r.id)).status).toBe('running');

    const second = await groupTargets(app, r.id, g2.id);
    await runDevice(app, second[0]!, 'failure');
    await runDevice(app, second[1]!, 'failure');
    // 2 of 4: above 25 %: error action PAUSE
    await waitStatus(app, r.id, 'paused');
    const groups = await waitGroups(app, r.id, ['finished', 'error']);
    expect(groups[1].totalTargetsPerStatus).toEqual(counts({ error: 2, running: 2 }));
    expect((await getRollout(app, r.id)).totalTargetsPerStatus).toEqual(counts({ error: 3, finished: 3, running: 2 }));
  }, LONG);

  it('thresholds at the bounds: error 100 never trips (strict), success 0 is met at once', async () => {
    const p = uid();
    const [cid] = await createTargets(app, p, 1);
    const r = await runningRollout(app, {
      name: uid('error-100'), targetFilterQuery: fleet(p), distributionSetId: ds,
      errorCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    await runDevice(app, cid!, 'failure');
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ error: 1 }));
    expect((await getGroups(app, r.id))[0].status).toBe('finished');

    const q = uid();
    await createTargets(app, q, 2);
    const zero = await runningRollout(app, {
      name: uid('success-0'), targetFilterQuery: fleet(q), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '0' },
    });
    await waitGroupCounts(app, zero.id, [['running', counts({ running: 1 })], ['running', counts({ running: 1 })]]);
  }, LONG);

  it('success threshold is inclusive: 2 of 4 finished at threshold 50 start the next group', async () => {
    const p = uid();
    await createTargets(app, p, 8);
    const r = await runningRollout(app, {
      name: uid('success'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'threshold', expression: '50' },
    });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const first = await groupTargets(app, r.id, g1.id);
    await runDevice(app, first[0]!, 'success');
    expect((await getGroups(app, r.id))[1].status).toBe('scheduled'); // 25 % < 50 %
    await runDevice(app, first[1]!, 'success');
    await waitGroupCounts(app, r.id, [['running', counts({ finished: 2, running: 2 })], ['running', counts({ running: 4 })]]);
  }, LONG);

  it('success action PAUSE pauses the rollout once the condition holds; resume starts the next group at once', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('success-pause'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' }, successAction: { action: 'PAUSE', expression: '' },
    });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    await runDevice(app, (await groupTargets(app, r.id, g1.id))[0]!, 'success');
    await waitStatus(app, r.id, 'paused');
    // hawkBit's executor finishes a complete group in the pass that pauses: a script waiting for `finished` gets it
    await waitGroups(app, r.id, ['finished', 'scheduled']);
    expect((await getRollout(app, r.id)).status).toBe('paused');
    await op(app, r.id, 'resume');
    await waitStatus(app, r.id, 'running');
    await waitGroups(app, r.id, ['finished', 'running']);
  }, LONG);

  it('download-only: DOWNLOADED counts as finished, groups complete and the rollout finishes', async () => {
    const p = uid();
    const cids = await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('download-only'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2, type: 'downloadonly',
      successCondition: { condition: 'THRESHOLD', expression: '100' },
    });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [first] = await groupTargets(app, r.id, g1.id);
    await runDevice(app, first!, 'downloaded');
    const groups = await waitGroups(app, r.id, ['finished', 'running']);
    expect(groups[0].totalTargetsPerStatus).toEqual(counts({ finished: 1 }));
    await runDevice(app, cids.find((c) => c !== first)!, 'downloaded');
    const done = await waitStatus(app, r.id, 'finished');
    expect(done.totalTargetsPerStatus).toEqual(counts({ finished: 2 }));
  }, LONG);

  // hawkBit's ThresholdRolloutGroupSuccessCondition counts DOWNLOADED only for download-only rollouts (FINISHED only otherwise)
  it('download-only: a FINISHED action does not count toward the success threshold, a DOWNLOADED one does', async () => {
    const p = uid();
    await createTargets(app, p, 4);
    const r = await runningRollout(app, {
      name: uid('dl-threshold'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2, type: 'downloadonly',
      successCondition: { condition: 'THRESHOLD', expression: '50' },
    });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [first, second] = await groupTargets(app, r.id, g1.id);
    await runDevice(app, first!, 'success'); // closed/success: FINISHED, half the group
    await enginePasses(2);
    expect((await getGroups(app, r.id)).map((g) => [g.status, g.totalTargetsPerStatus])).toEqual([
      ['running', counts({ finished: 1, running: 1 })], ['scheduled', counts({ scheduled: 2 })],
    ]);
    await runDevice(app, second!, 'downloaded');
    await waitGroups(app, r.id, ['finished', 'running']);
  }, LONG);

  // hawkBit 1.1 (#3110 as merged): ThresholdRolloutGroupErrorCondition counts ERROR only; CANCELED closes the group
  it('a canceled action is no error: at error threshold 0 the group finishes and the next one starts', async () => {
    const p = uid();
    await createTargets(app, p, 2);
    const r = await runningRollout(app, {
      name: uid('canceled'), targetFilterQuery: fleet(p), distributionSetId: ds, amountGroups: 2,
      successCondition: { condition: 'THRESHOLD', expression: '100' }, errorCondition: { condition: 'THRESHOLD', expression: '0' },
    });
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled']);
    const [cid] = await groupTargets(app, r.id, g1.id);
    const id = await openAction(app, cid!);
    for (const force of ['', '?force=true']) {
      const res = await app.mgmt.delete(`/rest/v1/targets/${cid}/actions/${id}${force}`);
      expect(res.status, res.text).toBe(204);
    }
    const [done] = await waitGroups(app, r.id, ['finished', 'running']);
    expect(done.totalTargetsPerStatus).toEqual(counts({ cancelled: 1 }));
    expect((await getRollout(app, r.id)).status).toBe('running');
  }, LONG);

  it('an empty group in the middle succeeds and the rollout goes on to the next', async () => {
    const p = uid();
    await createTargets(app, p, 2, { description: 'a' });
    const r = await readyRollout(app, {
      name: uid('empty-group'), targetFilterQuery: fleet(p), distributionSetId: ds,
      successCondition: { condition: 'THRESHOLD', expression: '100' },
      groups: [
        { name: 'first', targetFilterQuery: 'description==a', targetPercentage: 50 },
        { name: 'nobody', targetFilterQuery: 'description==zzz', targetPercentage: 100 },
        { name: 'last', targetPercentage: 100 },
      ],
    });
    expect((await getGroups(app, r.id)).map((g) => g.totalTargets)).toEqual([1, 0, 1]);
    await op(app, r.id, 'start');
    const [g1] = await waitGroups(app, r.id, ['running', 'scheduled', 'scheduled']);
    await runDevice(app, (await groupTargets(app, r.id, g1.id))[0]!, 'success');
    const groups = await waitGroups(app, r.id, ['finished', 'finished', 'running']);
    await runDevice(app, (await groupTargets(app, r.id, groups[2].id))[0]!, 'success');
    await waitStatus(app, r.id, 'finished');
  }, LONG);

  it('a group with confirmationRequired (flow on) starts its actions waiting for confirmation, counted as running', async () => {
    await setConfig(app, 'user.confirmation.flow.enabled', true);
    try {
      const p = uid();
      const [cid] = await createTargets(app, p, 1);
      const r = await runningRollout(app, {
        name: uid('confirm'), targetFilterQuery: fleet(p), distributionSetId: ds,
        groups: [{ name: 'needs-ok', targetPercentage: 100, confirmationRequired: true }],
      });
      const [g] = await waitGroups(app, r.id, ['running']);
      expect(g).toMatchObject({ confirmationRequired: true, totalTargetsPerStatus: counts({ running: 1 }) });
      const [action] = (await app.mgmt.get(`/rest/v1/targets/${cid}/actions`)).json().content;
      expect(action).toMatchObject({ detailStatus: 'wait_for_confirmation', rollout: r.id });
      const poll = await app.device(cid!).poll();
      expect(poll._links.confirmationBase).toBeDefined();
      expect(poll._links.deploymentBase).toBeUndefined();
    } finally {
      await setConfig(app, 'user.confirmation.flow.enabled', false);
    }
  }, LONG);

  it('a group without confirmationRequired runs its actions at once even with the flow on', async () => {
    await setConfig(app, 'user.confirmation.flow.enabled', true);
    try {
      const p = uid();
      const [cid] = await createTargets(app, p, 1);
      await runningRollout(app, {
        name: uid('no-confirm'), targetFilterQuery: fleet(p), distributionSetId: ds,
        groups: [{ name: 'go', targetPercentage: 100, confirmationRequired: false }],
      });
      expect(await openAction(app, cid!)).toEqual(expect.any(Number));
    } finally {
      await setConfig(app, 'user.confirmation.flow.enabled', false);
    }
  }, LONG);
});
