import { beforeAll, describe, expect, it } from 'vitest';
import { ACTION_STATUS } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget, type SeededDs } from '../../helpers/seed.js';
import { startDeployApp, READER, type DeployApp } from './fixture.js';
import { assignOne, cid, expectError, getAction, statusTypes, storedAction, storedTarget } from './helpers.js';

describe.each(STORES)('actions, %s store', (kind) => {
  let app: DeployApp;
  let set: SeededDs;
  beforeAll(async () => {
    app = await startDeployApp(kind);
    set = await seedDistributionSet(app, { name: 'fleet-os', version: '2.1' });
  });

  it("lists a target's actions newest first, compact, with paging", async () => {
    const other = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const first = await assignOne(app, t.controllerId, { id: set.ds.id });
    const second = await assignOne(app, t.controllerId, { id: other.ds.id });
    const res = await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions`);
    expect(res.status).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 2, size: 2 });
    expect(page.content.map((a: { id: number }) => a.id)).toEqual([second, first]);
    expect(Object.keys(page.content[0]._links)).toEqual(['self']);
    const one = (await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions?limit=1&offset=1&sort=id:DESC`)).json();
    expect(one).toMatchObject({ total: 2, size: 1, content: [{ id: first }] });
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions?sort=id:ASC`)).json().content[0].id).toBe(first);
  });

  it('a single action has the full links; another target\'s action is 404', async () => {
    const t = await seedTarget(app, cid(), { name: 'Kitchen sensor' });
    const id = await assignOne(app, t.controllerId, { id: set.ds.id });
    const action = await getAction(app, t.controllerId, id);
    expect(action._links).toEqual({
      self: { href: `${app.url}/rest/v1/targets/${t.controllerId}/actions/${id}` },
      target: { href: `${app.url}/rest/v1/targets/${t.controllerId}`, name: 'Kitchen sensor' },
      distributionset: { href: `${app.url}/rest/v1/distributionsets/${set.ds.id}`, name: 'fleet-os:2.1' },
      status: { href: `${app.url}/rest/v1/targets/${t.controllerId}/actions/${id}/status?offset=0&limit=50&sort=id:DESC` },
    });
    expect((await app.mgmt.get(`/rest/v1/actions/${id}`)).json()).toEqual(action);
    const stranger = await seedTarget(app, cid());
    expectError(await app.mgmt.get(`/rest/v1/targets/${stranger.controllerId}/actions/${id}`), 404, 'hawkbit.server.error.repo.entityNotFound');
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions/999999`)).status).toBe(404);
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions/abc`)).status).toBe(400);
    expect((await app.mgmt.get('/rest/v1/actions/999999')).status).toBe(404);
    expect((await app.mgmt.get('/rest/v1/targets/nobody/actions')).status).toBe(404);
  });

  it('GET /rest/v1/actions filters with FIQL on action, target and set fields', async () => {
    const special = await seedDistributionSet(app, { name: 'fiql-set', version: '9.9' });
    const a = await seedTarget(app, cid('fiql'), { name: 'fiql-alpha' });
    const b = await seedTarget(app, cid('fiql'), { name: 'fiql-beta' });
    const ida = await assignOne(app, a.controllerId, { id: special.ds.id, weight: 11 });
    const idb = await assignOne(app, b.controllerId, { id: special.ds.id, weight: 22 });
    expect((await app.mgmt.delete(`/rest/v1/targets/${b.controllerId}/actions/${idb}`)).status).toBe(204);
    const ids = async (q: string, extra = ''): Promise<number[]> => {
      const res = await app.mgmt.get(`/rest/v1/actions?q=${encodeURIComponent(q)}${extra}`);
      expect(res.status, res.text).toBe(200);
      return res.json().content.map((x: { id: number }) => x.id);
    };
    expect(await ids(`distributionset.id==${special.ds.id}`)).toEqual([idb, ida]);
    expect(await ids('distributionset.name==fiql-set;distributionset.version==9.9', '&sort=id:ASC')).toEqual([ida, idb]);
    expect(await ids('target.name==fiql-al*')).toEqual([ida]);
    expect(await ids(`target.controllerid==${b.controllerId}`)).toEqual([idb]);
    expect(await ids(`distributionset.id==${special.ds.id};detailstatus==canceling`)).toEqual([idb]);
    expect(await ids(`distributionset.id==${special.ds.id};status==canceling`)).toEqual([idb]);
    expect(await ids(`distributionset.id==${special.ds.id};status==pending`)).toEqual([idb, ida]);
    expect(await ids(`distributionset.id==${special.ds.id};weight=gt=15`)).toEqual([idb]);
    expect(await ids(`distributionset.id==${special.ds.id};active==true`, '&sort=weight:ASC')).toEqual([ida, idb]);
    expectError(await app.mgmt.get('/rest/v1/actions?q=colour==red'), 400, 'hawkbit.server.error.rest.param.rsqlInvalidField');
    expectError(await app.mgmt.get('/rest/v1/actions?q=status=='), 400, 'hawkbit.server.error.rest.param.rsqlParamSyntax');
    expectError(await app.mgmt.get('/rest/v1/actions?sort=colour:ASC'), 400, 'hawkbit.server.error.rest.param.invalidField');
    expect((await app.mgmt.get('/rest/v1/actions?limit=five')).status).toBe(400);
  });

  it('representation=full adds links to the list entries', async () => {
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: set.ds.id });
    const q = `&q=${encodeURIComponent(`target.controllerid==${t.controllerId}`)}`;
    const full = (await app.mgmt.get(`/rest/v1/actions?representation=full${q}`)).json().content[0];
    expect(full.id).toBe(id);
    expect(Object.keys(full._links).sort()).toEqual(['distributionset', 'self', 'status', 'target']);
    const compact = (await app.mgmt.get(`/rest/v1/actions?representation=whatever${q}`)).json().content[0];
    expect(Object.keys(compact._links)).toEqual(['self']);
  });

  it('cancel: 204 and canceling; again 405; force quit then closes it and the target falls back', async () => {
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: set.ds.id });
    const path = `/rest/v1/targets/${t.controllerId}/actions/${id}`;
    expectError(await app.mgmt.delete(`${path}?force=true`), 405, 'hawkbit.server.error.action.notForceQuitable');
    expect((await app.mgmt.delete(path)).status).toBe(204);
    const canceling = await getAction(app, t.controllerId, id);
    expect(canceling).toMatchObject({ type: 'cancel', detailStatus: 'canceling', active: true });
    expect(canceling._links.canceledaction.href).toBe(`${app.url}${path}`);
    expect((await statusTypes(app, t.controllerId, id)).at(-1)?.messages).toEqual(['Update Server: manual cancelation requested']);
    expectError(await app.mgmt.delete(path), 405, 'hawkbit.server.error.action.notCancelable');
    expect((await app.mgmt.delete(`${path}?force=true`)).status).toBe(204);
    expect(await getAction(app, t.controllerId, id)).toMatchObject({ type: 'cancel', status: 'finished', detailStatus: 'canceled', active: false });
    expect(await storedTarget(app, t.id)).toMatchObject({ assignedDs: null, updateStatus: 'in_sync' });
    expectError(await app.mgmt.delete(path), 405, 'hawkbit.server.error.action.notCancelable');
    expectError(await app.mgmt.delete(`${path}?force=true`), 405, 'hawkbit.server.error.action.notForceQuitable');
    expect((await app.mgmt.delete(`${path}?force=perhaps`)).status).toBe(400);
  });

  it('a closed action cannot be cancelled', async () => {
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: set.ds.id }, '?offline=true');
    expectError(await app.mgmt.delete(`/rest/v1/targets/${t.controllerId}/actions/${id}`), 405, 'hawkbit.server.error.action.notCancelable');
  });

  it('PUT forceType forced switches a soft action; other values are 400', async () => {
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: set.ds.id, type: 'soft' });
    const path = `/rest/v1/targets/${t.controllerId}/actions/${id}`;
    expectError(await app.mgmt.put(path, { json: { forceType: 'soft' } }), 400, 'hawkbit.server.error.repo.constraintViolation');
    expectError(await app.mgmt.put(path, { json: { forceType: 'sometimes' } }), 400, 'hawkbit.server.error.rest.body.notReadable');
    expectError(await app.mgmt.put(path, { json: {} }), 400, 'hawkbit.server.error.rest.body.notReadable');
    const res = await app.mgmt.put(path, { json: { forceType: 'forced' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ id, forceType: 'forced', detailStatus: 'running' });
    expect((await app.mgmt.put(path, { json: { forceType: 'forced' } })).json()).toMatchObject({ forceType: 'forced' });
  });

  it('status history: newest first by default, with paging and the entry fields', async () => {
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: set.ds.id });
    await app.mgmt.delete(`/rest/v1/targets/${t.controllerId}/actions/${id}`);
    const res = await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions/${id}/status`);
    expect(res.status).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 2, size: 2 });
    expect(page.content.map((e: { type: string }) => e.type)).toEqual(['canceling', 'running']);
    expect(Object.keys(page.content[0]).sort()).toEqual(['id', 'messages', 'reportedAt', 'timestamp', 'type']);
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions/${id}/status?limit=1`)).json()).toMatchObject({ total: 2, size: 1 });
    expect((await app.mgmt.get(`/rest/v1/targets/${t.controllerId}/actions/${id}/status?sort=name:ASC`)).status).toBe(400);
  });

  it('DELETE /rest/v1/actions/{id}: only in an allowed status, with its history', async () => {
    const t = await seedTarget(app, cid());
    const running = await assignOne(app, t.controllerId, { id: set.ds.id });
    expectError(await app.mgmt.delete(`/rest/v1/actions/${running}`), 405, 'hawkbit.server.error.action.notDeletable');
    const t2 = await seedTarget(app, cid());
    const done = await assignOne(app, t2.controllerId, { id: set.ds.id }, '?offline=true');
    expect((await app.mgmt.delete(`/rest/v1/actions/${done}`)).status).toBe(204);
    expect(await storedAction(app, done)).toBeUndefined();
    expect(await app.store.count(app.tenant, ACTION_STATUS, 'action', String(done))).toBe(0);
    expect((await app.mgmt.get(`/rest/v1/actions/${done}`)).status).toBe(404);
    expect((await app.mgmt.delete(`/rest/v1/actions/${done}`)).status).toBe(404);
  });

  it('reading needs READ_TARGET, changing needs UPDATE_TARGET', async () => {
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: set.ds.id });
    expect((await app.anon.get(`/rest/v1/targets/${t.controllerId}/actions`, { auth: READER })).status).toBe(200);
    expect((await app.anon.get('/rest/v1/actions', { auth: READER })).status).toBe(200);
    expect((await app.anon.delete(`/rest/v1/targets/${t.controllerId}/actions/${id}`, { auth: READER })).status).toBe(403);
    expect((await app.anon.get('/rest/v1/actions')).status).toBe(401);
  });
});

describe.each(STORES)('action confirmation, %s store', (kind) => {
  it('confirm moves a waiting action to running; deny keeps it waiting; closed 410; not waiting 404', async () => {
    const app = await startDeployApp(kind, { quotas: { maxStatusEntriesPerAction: 4 } });
    await app.setConfig({ 'user.confirmation.flow.enabled': true });
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id });
    const path = `/rest/v1/targets/${t.controllerId}/actions/${id}/confirmation`;
    expect((await app.mgmt.put(path, { json: { confirmation: 'denied', code: 17, details: ['not now'] } })).status).toBe(204);
    expect(await getAction(app, t.controllerId, id)).toMatchObject({ detailStatus: 'wait_for_confirmation', lastStatusCode: 17 });
    const history = await statusTypes(app, t.controllerId, id);
    expect(history.at(-1)).toMatchObject({ type: 'wait_for_confirmation', messages: ['Update Server: Target rejected the action.', 'not now', 'Device reported status code: 17'] });
    expectError(await app.mgmt.put(path, { json: { confirmation: 'maybe' } }), 400, 'hawkbit.server.error.rest.body.notReadable');
    expectError(await app.mgmt.put(path, { json: {} }), 400, 'hawkbit.server.error.rest.body.notReadable');
    expect((await app.mgmt.put(path, { json: { confirmation: 'confirmed' } })).status).toBe(204);
    expect(await getAction(app, t.controllerId, id)).toMatchObject({ detailStatus: 'running' });
    expectError(await app.mgmt.put(path, { json: { confirmation: 'confirmed' } }), 404, 'hawkbit.server.error.repo.entityNotFound');
    await app.mgmt.delete(`/rest/v1/targets/${t.controllerId}/actions/${id}`);
    await app.mgmt.delete(`/rest/v1/targets/${t.controllerId}/actions/${id}?force=true`);
    expectError(await app.mgmt.put(path, { json: { confirmation: 'confirmed' } }), 410, 'hawkbit.server.error.action.closed');
  });

  it('denials stop at the status-entry quota (403)', async () => {
    const app = await startDeployApp(kind, { quotas: { maxStatusEntriesPerAction: 3 } });
    await app.setConfig({ 'user.confirmation.flow.enabled': true });
    const { ds } = await seedDistributionSet(app);
    const t = await seedTarget(app, cid());
    const id = await assignOne(app, t.controllerId, { id: ds.id });
    const path = `/rest/v1/targets/${t.controllerId}/actions/${id}/confirmation`;
    expect((await app.mgmt.put(path, { json: { confirmation: 'denied' } })).status).toBe(204);
    expect((await app.mgmt.put(path, { json: { confirmation: 'denied' } })).status).toBe(204);
    expectError(await app.mgmt.put(path, { json: { confirmation: 'denied' } }), 403, 'hawkbit.server.error.quota.tooManyEntries');
    expect((await statusTypes(app, t.controllerId, id)).length).toBe(3);
  });
});
