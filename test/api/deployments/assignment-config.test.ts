import { describe, expect, it } from 'vitest';
import { activateAutoConfirm } from '../../../src/actors/auto-confirm.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { startDeployApp } from './fixture.js';
import { assignDs, assignOne, cid, expectError, getAction, statusTypes, storedTarget } from './helpers.js';

/** Assignment rules that depend on tenant configuration and quotas: each test has its own app. */
describe.each(STORES)('assignments with tenant configuration, %s store', (kind) => {
  it('with autoclose the replaced action is closed at once (canceled, inactive)', async () => {
    const app = await startDeployApp(kind);
    await app.setConfig({ 'repository.actions.autoclose.enabled': true });
    const [one, two] = [await seedDistributionSet(app), await seedDistributionSet(app)];
    const t = await seedTarget(app, cid());
    const first = await assignOne(app, t.controllerId, { id: one.ds.id });
    await assignOne(app, t.controllerId, { id: two.ds.id });
    expect(await getAction(app, t.controllerId, first)).toMatchObject({ type: 'cancel', status: 'finished', detailStatus: 'canceled', active: false });
    expect((await statusTypes(app, t.controllerId, first)).at(-1)?.messages).toEqual(['Update Server: close obsolete action due to new update']);
    expect(await storedTarget(app, t.id)).toMatchObject({ assignedDs: two.ds.id, updateStatus: 'pending' });
  });

  it('with multi-assignment a target gets several sets; an item without weight gets 1000 (issue 7 item 13)', async () => {
    const app = await startDeployApp(kind);
    await app.setConfig({ 'multi.assignments.enabled': true });
    const [one, two, three] = [await seedDistributionSet(app), await seedDistributionSet(app), await seedDistributionSet(app)];
    const t = await seedTarget(app, cid());
    const res = await assignDs(app, t.controllerId, [{ id: one.ds.id, weight: 10 }, { id: two.ds.id }]);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ assigned: 2, alreadyAssigned: 0, total: 2 });
    const [a, b] = res.json().assignedActions.map((x: { id: number }) => x.id) as [number, number];
    expect(await getAction(app, t.controllerId, a)).toMatchObject({ detailStatus: 'running', weight: 10 });
    expect(await getAction(app, t.controllerId, b)).toMatchObject({ detailStatus: 'running', weight: 1000 });
    // from the set's side too, and an explicit weight is kept
    const other = await seedTarget(app, cid());
    const bySet = await app.mgmt.post(`/rest/v1/distributionsets/${three.ds.id}/assignedTargets`, { json: [{ id: t.controllerId }, { id: other.controllerId, weight: 20 }] });
    expect(bySet.status, bySet.text).toBe(200);
    const [c, d] = bySet.json().assignedActions.map((x: { id: number }) => x.id) as [number, number];
    expect(await getAction(app, t.controllerId, c)).toMatchObject({ weight: 1000 });
    expect(await getAction(app, other.controllerId, d)).toMatchObject({ weight: 20 });
    // the same set again is another action, and nothing was cancelled
    const again = await app.mgmt.post(`/rest/v1/distributionsets/${one.ds.id}/assignedTargets`, { json: [{ id: t.controllerId, weight: 5 }] });
    expect(again.json()).toMatchObject({ assigned: 1 });
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions?q=detailstatus==running`)).json().total).toBe(4);
  });

  it('with the confirmation flow actions wait, unless confirmation is not required or auto-confirm is on', async () => {
    const app = await startDeployApp(kind);
    await app.setConfig({ 'user.confirmation.flow.enabled': true });
    const { ds } = await seedDistributionSet(app);
    const waiting = await seedTarget(app, cid());
    const id = await assignOne(app, waiting.controllerId, { id: ds.id });
    expect(await getAction(app, waiting.controllerId, id)).toMatchObject({ detailStatus: 'wait_for_confirmation', status: 'pending' });
    const direct = await seedTarget(app, cid());
    const id2 = await assignOne(app, direct.controllerId, { id: ds.id, confirmationRequired: false });
    expect(await getAction(app, direct.controllerId, id2)).toMatchObject({ detailStatus: 'running' });
    const auto = await seedTarget(app, cid());
    await activateAutoConfirm(app.services, app.tenant, auto.id, { initiator: 'ops', remark: 'trusted fleet' }, Date.now());
    const id3 = await assignOne(app, auto.controllerId, { id: ds.id });
    expect(await getAction(app, auto.controllerId, id3)).toMatchObject({ detailStatus: 'running' });
    expect((await statusTypes(app, auto.controllerId, id3))[0]?.messages).toEqual([
      "Update Server: Assignment initiated by user 'admin'",
      "Update Server: Assignment automatically confirmed by initiator 'ops'.",
      'trusted fleet',
    ]);
  });

  it('without the confirmation flow confirmationRequired: true has no effect', async () => {
    const app = await startDeployApp(kind);
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id, confirmationRequired: true });
    expect(await getAction(app, t.controllerId, id)).toMatchObject({ detailStatus: 'running' });
  });

  it('without implicit lock the set stays unlocked', async () => {
    const app = await startDeployApp(kind);
    await app.setConfig({ 'implicit.lock.enabled': false });
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    await assignOne(app, t.controllerId, { id: ds.id });
    expect((await app.store.get<{ locked: boolean }>(app.tenant, 'ds', ds.id))?.value.locked).toBe(false);
  });

  it('quotas: assignments per request and actions per target (403)', async () => {
    const app = await startDeployApp(kind, {
      quotas: { maxTargetDistributionSetAssignmentsPerManualAssignment: 2, maxActionsPerTarget: 2 },
    });
    const sets = [await seedDistributionSet(app), await seedDistributionSet(app), await seedDistributionSet(app)];
    const targets = [await seedTarget(app, cid()), await seedTarget(app, cid()), await seedTarget(app, cid())];
    const tooMany = await app.mgmt.post(`/rest/v1/distributionsets/${sets[0]?.ds.id}/assignedTargets`, { json: targets.map((t) => ({ id: t.controllerId })) });
    expectError(tooMany, 403, 'hawkbit.server.error.quota.tooManyEntries');
    const t = targets[0]!;
    await assignOne(app, t.controllerId, { id: sets[0]!.ds.id });
    await assignOne(app, t.controllerId, { id: sets[1]!.ds.id });
    expectError(await assignDs(app, t.controllerId, { id: sets[2]!.ds.id }), 403, 'hawkbit.server.error.quota.tooManyEntries');
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`)).json().total).toBe(2);
  });
});
