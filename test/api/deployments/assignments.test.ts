import { beforeAll, describe, expect, it } from 'vitest';
import { DS, SM, type DistributionSetRecord, type SoftwareModuleRecord } from '../../../src/domain/repository.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { startDeployApp, READER, type DeployApp } from './fixture.js';
import {
  assignDs, assignOne, cid, expectError, getAction, patchRecord, seedTargetType, statusTypes, storedTarget,
} from './helpers.js';

describe.each(STORES)('assignments, %s store', (kind) => {
  let app: DeployApp;
  beforeAll(async () => {
    app = await startDeployApp(kind);
  });

  it('assigns a set to a target (forced by default) and links the new action', async () => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const res = await assignDs(app, t.controllerId, { id: ds.id });
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ assigned: 1, alreadyAssigned: 0, total: 1 });
    const id = body.assignedActions[0].id as number;
    expect(body.assignedActions[0]._links.self.href).toBe(`${app.url}/rest/v1/targets/${t.controllerId}/actions/${id}`);
    const action = await getAction(app, t.controllerId, id);
    expect(action).toMatchObject({ id, type: 'update', status: 'pending', detailStatus: 'running', active: true, forceType: 'forced', createdBy: 'admin' });
    expect(action).not.toHaveProperty('forceTime');
    expect(action.weight).toBe(1000); // hawkBit's action-weight-if-absent
    const target = await storedTarget(app, t.id);
    expect(target).toMatchObject({ assignedDs: ds.id, updateStatus: 'pending' });
    const history = await statusTypes(app, t.controllerId, id);
    expect(history).toEqual([expect.objectContaining({ type: 'running', messages: ["Update Server: Assignment initiated by user 'admin'"] })]);
  });

  it.each([
    [{ type: 'soft' }, { forceType: 'soft' }],
    [{ type: 'timeforced', forcetime: 1_900_000_000_000 }, { forceType: 'timeforced', forceTime: 1_900_000_000_000 }],
    [{ type: 'downloadonly', weight: 400 }, { forceType: 'downloadonly', weight: 400 }],
    [{ type: 'forced', weight: 0 }, { forceType: 'forced', weight: 0 }],
  ])('action type %j gives %j', async (options, expected) => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id, ...options });
    expect(await getAction(app, t.controllerId, id)).toMatchObject(expected);
  });

  it('assigns from the distribution set side, one action per target', async () => {
    const { ds } = await seedDistributionSet(app);
    const [a, b] = [await seedTarget(app, cid()), await seedTarget(app, cid())];
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets`, {
      json: [{ id: a.controllerId, type: 'soft' }, { id: b.controllerId.toUpperCase(), weight: 7 }],
    });
    expect(res.status, res.text).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ assigned: 2, alreadyAssigned: 0, total: 2 });
    expect(await getAction(app, a.controllerId, body.assignedActions[0].id)).toMatchObject({ forceType: 'soft' });
    expect(await getAction(app, b.controllerId, body.assignedActions[1].id)).toMatchObject({ forceType: 'forced', weight: 7 });
    // a single object is taken for a one-element array
    const c = await seedTarget(app, cid());
    const single = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets`, { json: { id: c.controllerId } });
    expect(single.json()).toMatchObject({ assigned: 1, total: 1 });
  });

  it('counts a target that has the set assigned already, without a new action', async () => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    await assignOne(app, t.controllerId, { id: ds.id });
    const again = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets`, { json: [{ id: t.controllerId }] });
    expect(again.json()).toEqual({ assigned: 0, alreadyAssigned: 1, total: 1, assignedActions: [] });
    const list = await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`);
    expect(list.json().total).toBe(1);
  });

  it('a new assignment cancels the open action (it shows canceling at once)', async () => {
    const [one, two] = [await seedDistributionSet(app), await seedDistributionSet(app)];
    const t = await seedTarget(app, cid());
    const first = await assignOne(app, t.controllerId, { id: one.ds.id });
    const second = await assignOne(app, t.controllerId, { id: two.ds.id });
    expect(await getAction(app, t.controllerId, first)).toMatchObject({ type: 'cancel', detailStatus: 'canceling', status: 'pending' });
    expect(await getAction(app, t.controllerId, second)).toMatchObject({ type: 'update', detailStatus: 'running' });
    expect((await statusTypes(app, t.controllerId, first)).at(-1)).toEqual(
      expect.objectContaining({ type: 'canceling', messages: ['Update Server: cancel obsolete action due to new update'] }));
    expect(await storedTarget(app, t.id)).toMatchObject({ assignedDs: two.ds.id, updateStatus: 'pending' });
  });

  it('keeps the open action of a required migration step', async () => {
    const step = await seedDistributionSet(app, { requiredMigrationStep: true });
    const next = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const first = await assignOne(app, t.controllerId, { id: step.ds.id });
    await assignOne(app, t.controllerId, { id: next.ds.id });
    expect(await getAction(app, t.controllerId, first)).toMatchObject({ detailStatus: 'running', active: true });
  });

  it('the same target twice in one request is refused without multi-assignment', async () => {
    const [one, two] = [await seedDistributionSet(app), await seedDistributionSet(app)];
    const t = await seedTarget(app, cid());
    expectError(await assignDs(app, t.controllerId, [{ id: one.ds.id }, { id: two.ds.id }]), 400, 'hawkbit.server.error.multiAssignmentNotEnabled');
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${one.ds.id}/assignedTargets`, { json: [{ id: t.controllerId }, { id: t.controllerId.toUpperCase() }] });
    expectError(res, 400, 'hawkbit.server.error.multiAssignmentNotEnabled');
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`)).json().total).toBe(0);
  });

  it('accepts a valid maintenance window and shows its next start', async () => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const window = { schedule: '0 0 3 * * ?', duration: '00:10:00', timezone: '+00:00' };
    const id = await assignOne(app, t.controllerId, { id: ds.id, maintenanceWindow: window });
    const action = await getAction(app, t.controllerId, id);
    expect(action.maintenanceWindow).toMatchObject(window);
    expect(action.maintenanceWindow.nextStartAt).toBeGreaterThan(Date.now());
    expect(new Date(action.maintenanceWindow.nextStartAt as number).getUTCHours()).toBe(3);
  });

  it.each([
    ['a missing duration', { schedule: '0 0 3 * * ?', timezone: '+00:00' }],
    ['a bad timezone', { schedule: '0 0 3 * * ?', duration: '00:10:00', timezone: 'Europe/Berlin' }],
    ['a bad duration', { schedule: '0 0 3 * * ?', duration: '10 minutes', timezone: '+00:00' }],
    ['a bad schedule', { schedule: 'every night', duration: '00:10:00', timezone: '+00:00' }],
  ])('refuses a maintenance window with %s', async (_what, window) => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    expectError(await assignDs(app, t.controllerId, { id: ds.id, maintenanceWindow: window }), 400, 'hawkbit.server.error.maintenanceScheduleInvalid');
  });

  it('checks the distribution set: unknown, deleted, invalid, incomplete', async () => {
    const t = await seedTarget(app, cid());
    expectError(await assignDs(app, t.controllerId, { id: 999_999 }), 404, 'hawkbit.server.error.repo.entityNotFound');
    expectError(await app.mgmt.post('/rest/v1/distributionsets/999999/assignedTargets', { json: [{ id: t.controllerId }] }), 404, 'hawkbit.server.error.repo.entityNotFound');
    const deleted = await seedDistributionSet(app);
    await patchRecord<DistributionSetRecord>(app, DS, deleted.ds.id, { deleted: true });
    expect((await assignDs(app, t.controllerId, { id: deleted.ds.id })).status).toBe(404);
    const invalid = await seedDistributionSet(app);
    await patchRecord<DistributionSetRecord>(app, DS, invalid.ds.id, { valid: false });
    expectError(await assignDs(app, t.controllerId, { id: invalid.ds.id }), 400, 'hawkbit.server.error.distributionset.invalid');
    const incomplete = await seedDistributionSet(app);
    await patchRecord<DistributionSetRecord>(app, DS, incomplete.ds.id, { modules: [] });
    expectError(await assignDs(app, t.controllerId, { id: incomplete.ds.id }), 400, 'hawkbit.server.error.distributionset.incomplete');
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`)).json().total).toBe(0);
  });

  it('404 for an unknown target, in the path or in the list (nothing assigned)', async () => {
    const { ds } = await seedDistributionSet(app);
    expectError(await assignDs(app, 'no-such-target', { id: ds.id }), 404, 'hawkbit.server.error.repo.entityNotFound');
    const known = await seedTarget(app, cid());
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets`, { json: [{ id: known.controllerId }, { id: 'no-such-target' }] });
    expectError(res, 404, 'hawkbit.server.error.repo.entityNotFound');
    expect(res.json().message).toContain('no-such-target');
    expect((await storedTarget(app, known.id)).assignedDs).toBeNull();
  });

  it('refuses a set whose type the target type does not accept', async () => {
    const { ds, dsType } = await seedDistributionSet(app);
    const other = await seedTargetType(app, [dsType.id + 100_000]);
    const fitting = await seedTargetType(app, [dsType.id]);
    const bad = await seedTarget(app, cid(), { targetType: other.id });
    const good = await seedTarget(app, cid(), { targetType: fitting.id });
    expectError(await assignDs(app, bad.controllerId, { id: ds.id }), 400, 'hawkbit.server.error.target.type.incompatible');
    expect((await assignDs(app, good.controllerId, { id: ds.id })).status).toBe(200);
  });

  it('records an offline assignment as installed and in sync; pending targets are skipped', async () => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id }, '?offline=true');
    expect(await getAction(app, t.controllerId, id)).toMatchObject({ status: 'finished', detailStatus: 'finished', active: false });
    expect(await storedTarget(app, t.id)).toMatchObject({ assignedDs: ds.id, installedDs: ds.id, updateStatus: 'in_sync', installedAction: id });
    const other = await seedDistributionSet(app);
    const busy = await seedTarget(app, cid());
    await assignOne(app, busy.controllerId, { id: other.ds.id });
    const res = await app.mgmt.post(`/rest/v1/distributionsets/${ds.id}/assignedTargets?offline=true`, { json: [{ id: busy.controllerId }] });
    expect(res.json()).toMatchObject({ assigned: 0, alreadyAssigned: 1, total: 1 });
  });

  it('locks the set and its modules at the first assignment (implicit lock)', async () => {
    const { ds, module } = await seedDistributionSet(app);
    await patchRecord<SoftwareModuleRecord>(app, SM, module.id, { locked: false });
    const t = await seedTarget(app, cid());
    await assignOne(app, t.controllerId, { id: ds.id });
    expect((await app.store.get<DistributionSetRecord>(app.tenant, DS, ds.id))?.value.locked).toBe(true);
    expect((await app.store.get<SoftwareModuleRecord>(app.tenant, SM, module.id))?.value.locked).toBe(true);
  });

  it.each([
    ['an unknown action type', { type: 'fast' }, 'type'],
    ['a weight above 1000', { weight: 1001 }, 'weight'],
    ['a negative weight', { weight: -1 }, 'weight'],
    ['a textual confirmationRequired', { confirmationRequired: 'yes' }, 'confirmationRequired'],
  ])('400 for %s, naming the field', async (_what, extra, field) => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const res = await assignDs(app, t.controllerId, { id: ds.id, ...extra });
    expectError(res, 400, 'hawkbit.server.error.rest.body.notReadable');
    expect(res.json().message).toContain(field);
  });

  it('400 for a missing set id, malformed JSON and a bad offline parameter', async () => {
    const t = await seedTarget(app, cid());
    expectError(await assignDs(app, t.controllerId, { type: 'soft' }), 400, 'hawkbit.server.error.rest.body.notReadable');
    const malformed = await app.mgmt.post(`/rest/v1/targets/${t.controllerId}/assignedDS`, { body: '{"id":', headers: { 'content-type': 'application/json' } });
    expectError(malformed, 400, 'hawkbit.server.error.rest.body.notReadable');
    const { ds } = await seedDistributionSet(app);
    expect((await assignDs(app, t.controllerId, { id: ds.id }, '?offline=maybe')).status).toBe(400);
  });

  it('needs UPDATE_TARGET: 401 without credentials, 403 for a reader', async () => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    expect((await app.anon.post(`/rest/v1/targets/${t.controllerId}/assignedDS`, { json: { id: ds.id } })).status).toBe(401);
    const res = await app.anon.post(`/rest/v1/targets/${t.controllerId}/assignedDS`, { json: { id: ds.id }, auth: READER });
    expectError(res, 403, 'hawkbit.server.error.insufficientPermission');
  });
});
