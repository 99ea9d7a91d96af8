import { beforeAll, describe, expect, it } from 'vitest';
import { activateAutoConfirm, DDI_FALLBACK_REMARK, deactivateAutoConfirm } from '../../../src/actors/auto-confirm.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { startDeployApp, READER, type DeployApp } from './fixture.js';
import { assignOne, cid, expectError, getAction, statusTypes, storedTarget } from './helpers.js';

describe.each(STORES)('auto-confirmation, %s store', (kind) => {
  let app: DeployApp;
  beforeAll(async () => {
    app = await startDeployApp(kind);
    await app.setConfig({ 'user.confirmation.flow.enabled': true });
  });

  it('GET shows the state with the link that changes it; activate, 409 when active, deactivate', async () => {
    const t = await seedTarget(app, cid());
    const base = `/rest/v1/targets/${t.controllerId}/autoConfirm`;
    expect((await app.mgmt.get(base)).json()).toEqual({ active: false, _links: { activate: { href: `${app.url}${base}/activate` } } });
    const before = Date.now();
    expect((await app.mgmt.post(`${base}/activate`, { json: { initiator: 'ops-team', remark: 'field test' } })).status).toBe(204);
    const state = (await app.mgmt.get(base)).json();
    expect(state).toMatchObject({ active: true, initiator: 'ops-team', remark: 'field test', _links: { deactivate: { href: `${app.url}${base}/deactivate` } } });
    expect(state.activatedAt).toBeGreaterThanOrEqual(before);
    expectError(await app.mgmt.post(`${base}/activate`, { json: {} }), 409, 'hawkbit.server.error.repo.autoConfAlreadyActive');
    expect((await app.mgmt.post(`${base}/deactivate`)).status).toBe(204);
    expect((await app.mgmt.get(base)).json().active).toBe(false);
    expect((await app.mgmt.post(`${base}/deactivate`)).status).toBe(204);
  });

  it('activation without a body stores no initiator and no remark', async () => {
    const t = await seedTarget(app, cid());
    const base = `/rest/v1/targets/${t.controllerId}/autoConfirm`;
    expect((await app.mgmt.post(`${base}/activate`)).status).toBe(204);
    const state = (await app.mgmt.get(base)).json();
    expect(state).toMatchObject({ active: true });
    expect(state).not.toHaveProperty('initiator');
    expect(state).not.toHaveProperty('remark');
  });

  it('activation confirms the waiting actions, naming the initiator; deactivation leaves running actions alone', async () => {
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id });
    expect((await getAction(app, t.controllerId, id)).detailStatus).toBe('wait_for_confirmation');
    const base = `/rest/v1/targets/${t.controllerId}/autoConfirm`;
    expect((await app.mgmt.post(`${base}/activate`, { json: { initiator: 'ops', remark: 'trusted' } })).status).toBe(204);
    expect((await getAction(app, t.controllerId, id)).detailStatus).toBe('running');
    expect((await statusTypes(app, t.controllerId, id)).at(-1)).toMatchObject({
      type: 'running', messages: ["Update Server: Action auto-confirmed by initiator 'ops'.", 'trusted'],
    });
    expect((await app.mgmt.post(`${base}/deactivate`)).status).toBe(204);
    expect((await getAction(app, t.controllerId, id)).detailStatus).toBe('running');
  });

  it('the shared service uses the DDI fallback remark unless told otherwise', async () => {
    const t = await seedTarget(app, cid());
    await activateAutoConfirm(app.services, app.tenant, t.id, { initiator: null, remark: null }, 1_234);
    expect((await storedTarget(app, t.id)).autoConfirm).toEqual({ initiator: null, remark: DDI_FALLBACK_REMARK, activatedAt: 1_234 });
    await expect(activateAutoConfirm(app.services, app.tenant, t.id, { initiator: 'x', remark: null }, 1_235))
      .rejects.toMatchObject({ code: 'AUTO_CONFIRM_ALREADY_ACTIVE' });
    await deactivateAutoConfirm(app.services, app.tenant, t.id);
    expect((await storedTarget(app, t.id)).autoConfirm).toBeNull();
    await expect(deactivateAutoConfirm(app.services, app.tenant, 987_654)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('404 for an unknown target; 400 for a malformed body; reader may only read', async () => {
    expectError(await app.mgmt.get('/rest/v1/targets/nobody/autoConfirm'), 404, 'hawkbit.server.error.repo.entityNotFound');
    expect((await app.mgmt.post('/rest/v1/targets/nobody/autoConfirm/activate')).status).toBe(404);
    expect((await app.mgmt.post('/rest/v1/targets/nobody/autoConfirm/deactivate')).status).toBe(404);
    const t = await seedTarget(app, cid());
    const base = `/rest/v1/targets/${t.controllerId}/autoConfirm`;
    const bad = await app.mgmt.post(`${base}/activate`, { body: '{"initiator":', headers: { 'content-type': 'application/json' } });
    expectError(bad, 400, 'hawkbit.server.error.rest.body.notReadable');
    expectError(await app.mgmt.post(`${base}/activate`, { json: { initiator: [42] } }), 400, 'hawkbit.server.error.rest.body.notReadable');
    expect((await app.anon.get(base, { auth: READER })).status).toBe(200);
    expect((await app.anon.post(`${base}/activate`, { auth: READER })).status).toBe(403);
  });
});
