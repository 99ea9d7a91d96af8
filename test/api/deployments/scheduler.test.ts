import { describe, expect, it } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { startDeployApp } from './fixture.js';
import { assignOne, cid, getAction, seedFilter, seedTargetType, statusTypes, storedAction } from './helpers.js';

const DAY = 86_400_000;

describe.each(STORES)('scheduler, %s store', (kind) => {
  it('auto-assignment gives each matching target one action, once, attributed to the initiator', async () => {
    const app = await startDeployApp(kind);
    const { ds, dsType } = await seedDistributionSet(app);
    const prefix = cid('auto');
    const a = await seedTarget(app, `${prefix}-a`, { attributes: { hw: 'rev2' } });
    const b = await seedTarget(app, `${prefix}-b`, { attributes: { hw: 'rev2' } });
    await seedTarget(app, `${prefix}-c`, { attributes: { hw: 'rev1' } });
    const wrongType = await seedTargetType(app, [dsType.id + 100_000]);
    await seedTarget(app, `${prefix}-d`, { attributes: { hw: 'rev2' }, targetType: wrongType.id });
    const filter = await seedFilter(app, {
      query: `controllerid==${prefix}-*;attribute.hw==rev2`, autoAssignDs: ds.id, autoAssignActionType: 'soft', autoAssignWeight: 300,
      autoAssignInitiatedBy: 'alice',
    });
    const first = await app.scheduler.runOnce();
    expect(first.autoAssigned[app.tenant]).toBe(2);
    expect(first.skipped).toEqual([]);
    for (const t of [a, b]) {
      const list = (await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`)).json();
      expect(list.total).toBe(1);
      const action = await getAction(app, t.controllerId, list.content[0].id);
      expect(action).toMatchObject({ forceType: 'soft', weight: 300, createdBy: 'alice', detailStatus: 'running' });
      expect((await statusTypes(app, t.controllerId, action.id))[0]?.messages).toEqual([`Update Server: Auto assignment: ${filter.name}`]);
    }
    expect((await app.scheduler.runOnce()).autoAssigned[app.tenant]).toBe(0);

    // a target cancelled away from the set is not assigned again; a new matching one is
    const actionA = (await app.mgmt.get(`/rest/v1/targets/${a.controllerId}/actions`)).json().content[0].id as number;
    await app.mgmt.delete(`/rest/v1/targets/${a.controllerId}/actions/${actionA}`);
    await app.mgmt.delete(`/rest/v1/targets/${a.controllerId}/actions/${actionA}?force=true`);
    const late = await seedTarget(app, `${prefix}-e`, { attributes: { hw: 'rev2' } });
    expect((await app.scheduler.runOnce()).autoAssigned[app.tenant]).toBe(1);
    expect((await app.mgmt.get(`/rest/v1/targets/${late.controllerId}/actions`)).json().total).toBe(1);
    expect((await app.mgmt.get(`/rest/v1/targets/${a.controllerId}/actions`)).json().total).toBe(1);
  });

  it('auto-assignment skips a filter whose set is not assignable and runs the others', async () => {
    const app = await startDeployApp(kind);
    const good = await seedDistributionSet(app);
    const prefix = cid('skip');
    await seedTarget(app, `${prefix}-1`);
    await seedFilter(app, { query: `controllerid==${prefix}-*`, autoAssignDs: 999_999 });
    await seedFilter(app, { query: 'name=in=(', autoAssignDs: good.ds.id });
    await seedFilter(app, { query: `controllerid==${prefix}-*`, autoAssignDs: good.ds.id });
    expect((await app.scheduler.runOnce()).autoAssigned[app.tenant]).toBe(1);
  });

  it('runs on its own interval when enabled', async () => {
    const app = await startDeployApp(kind, { scheduler: { enabled: true, autoAssignMs: 50 } });
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid('loop'));
    await seedFilter(app, { query: `controllerid==${t.controllerId}`, autoAssignDs: ds.id });
    await expect.poll(async () => (await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`)).json().total, { timeout: 5000 }).toBe(1);
  });

  it('cleanup deletes only closed actions in the listed statuses older than the expiry', async () => {
    const app = await startDeployApp(kind);
    const { ds } = await seedDistributionSet(app);
    const other = await seedDistributionSet(app);
    const canceledT = await seedTarget(app, cid());
    const canceled = await assignOne(app, canceledT.controllerId, { id: ds.id });
    await app.mgmt.delete(`/rest/v1/targets/${canceledT.controllerId}/actions/${canceled}`);
    await app.mgmt.delete(`/rest/v1/targets/${canceledT.controllerId}/actions/${canceled}?force=true`);
    const finishedT = await seedTarget(app, cid());
    const finished = await assignOne(app, finishedT.controllerId, { id: ds.id }, '?offline=true');
    const runningT = await seedTarget(app, cid());
    const running = await assignOne(app, runningT.controllerId, { id: ds.id });
    const cancelingT = await seedTarget(app, cid());
    const canceling = await assignOne(app, cancelingT.controllerId, { id: ds.id });
    await assignOne(app, cancelingT.controllerId, { id: other.ds.id });

    expect((await app.scheduler.runOnce(Date.now() + 60 * DAY)).cleanedUp[app.tenant]).toBe(0); // disabled by default
    await app.setConfig({ 'action.cleanup.enabled': true, 'action.cleanup.actionExpiry': DAY, 'action.cleanup.actionStatus': 'CANCELED,ERROR,CANCELING' });
    expect((await app.scheduler.runOnce(Date.now())).cleanedUp[app.tenant]).toBe(0); // not old enough
    expect((await app.scheduler.runOnce(Date.now() + 2 * DAY)).cleanedUp[app.tenant]).toBe(1);
    expect(await storedAction(app, canceled)).toBeUndefined();
    expect(await app.store.count(app.tenant, ACTION_STATUS, 'action', String(canceled))).toBe(0);
    for (const id of [finished, running, canceling]) expect(await storedAction(app, id)).toBeDefined();
  });

  it('keeps actions whose maintenance window is still to come', async () => {
    const app = await startDeployApp(kind);
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id, maintenanceWindow: { schedule: '0 0 3 * * ?', duration: '00:10:00', timezone: '+00:00' } });
    expect((await app.scheduler.runOnce()).lapsedCanceled[app.tenant]).toBe(0);
    expect((await getAction(app, t.controllerId, id)).detailStatus).toBe('running');
  });

  it('cancels open actions whose maintenance schedule has no window left, and only those', async () => {
    const app = await startDeployApp(kind);
    const { ds } = await seedDistributionSet(app);
    const window = { schedule: '0 0 3 * * ?', duration: '00:10:00', timezone: '+00:00' };
    const lapsing = await Promise.all([cid(), cid()].map(async (c) => {
      const t = await seedTarget(app, c);
      return { t, id: await assignOne(app, t.controllerId, { id: ds.id, maintenanceWindow: window }) };
    }));
    const keptT = await seedTarget(app, cid());
    const kept = await assignOne(app, keptT.controllerId, { id: ds.id, maintenanceWindow: window });
    // a schedule whose windows all lie in the past (Quartz's year field), as a stored record may hold it
    for (const { id } of lapsing) {
      const cur = (await app.store.get<ActionRecord>(app.tenant, ACTION, id))!;
      const after = { ...cur.value, maintenanceWindow: { ...window, schedule: '0 0 3 * * ? 2020' } };
      const write = { kind: ACTION, id, expect: cur.version, before: cur.value, after };
      expect((await app.store.commit(app.tenant, { writes: [write] })).ok).toBe(true);
    }
    expect((await app.scheduler.runOnce()).lapsedCanceled[app.tenant]).toBe(2);
    for (const { t, id } of lapsing) expect((await getAction(app, t.controllerId, id)).detailStatus).toBe('canceling');
    expect((await getAction(app, keptT.controllerId, kept)).detailStatus).toBe('running');
  });

  it('counts overdue targets into the peregrine_targets_overdue gauge', async () => {
    const app = await startDeployApp(kind);
    const now = Date.now();
    const [fresh, stale, silent] = [await seedTarget(app, cid()), await seedTarget(app, cid()), await seedTarget(app, cid())];
    void silent; // never polled: not overdue
    // defaults: pollingTime 12:00:00 + pollingOverdueTime 23:59:59
    await app.store.recordPolls(app.tenant, [
      { id: fresh.id, at: now - DAY, address: null },
      { id: stale.id, at: now - 2 * DAY, address: null },
    ]);
    expect((await app.scheduler.runOnce(now)).overdue[app.tenant]).toBe(1);
    const metrics = await app.server.server.metrics.render();
    expect(metrics).toContain(`peregrine_targets_overdue{tenant="${app.tenant}"} 1`);
  });
});
