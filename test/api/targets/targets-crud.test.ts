import { beforeAll, describe, expect, it } from 'vitest';
import { ACTION, ACTION_STATUS, type ActionRecord, type ActionStatusRecord } from '../../../src/domain/action.js';
import { created } from '../../../src/domain/audit.js';
import { TARGET } from '../../../src/domain/target.js';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ADMIN_HASH } from '../../helpers/server.js';
import { ERR, createTargets, expectError, uid } from './fixtures.js';

describe.each(STORES)('targets CRUD on the %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind, {}, [{ username: 'reader', password: ADMIN_HASH, permissions: ['READ_TARGET'] }]);
  });
  const reader = { auth: ['reader', 'admin'] as [string, string] };

  it('creates targets from an array and answers 201 with the list (self link only)', async () => {
    const a = uid();
    const b = uid();
    const body = await createTargets(app, [{ controllerId: a, name: 'Alpha', description: 'first' }, { controllerId: b }]);
    expect(body).toHaveLength(2);
    expect(body[0]).toMatchObject({ controllerId: a, name: 'Alpha', description: 'first', updateStatus: 'unknown', requestAttributes: true, createdBy: 'admin', lastModifiedBy: 'admin' });
    expect(body[1]).toMatchObject({ controllerId: b, name: b }); // name defaults to the controller id
    expect(body[1]).not.toHaveProperty('description');
    expect(body[0]?.['securityToken']).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(body[0]?.['securityToken']).not.toBe(body[1]?.['securityToken']);
    expect(body[0]).not.toHaveProperty('pollStatus');
    expect(body[0]).not.toHaveProperty('lastControllerRequestAt');
    expect(Object.keys(body[0]?.['_links'] as object)).toEqual(['self']);
    expect((body[0]?.['_links'] as { self: { href: string } }).self.href).toBe(`${app.url}/rest/v1/targets/${a}`);
  });

  it('accepts a single object where an array is expected, keeps a given token, derives ipAddress', async () => {
    const cid = uid();
    const [t] = await createTargets(app, { controllerId: cid, name: '', securityToken: 'given-token', address: 'http://192.168.0.1:8080/x' } as never);
    expect(t).toMatchObject({ controllerId: cid, name: cid, securityToken: 'given-token', address: 'http://192.168.0.1:8080/x', ipAddress: '192.168.0.1' });
  });

  it('shows one target with all links and, once polled, its poll status', async () => {
    const cid = uid();
    const [t] = await createTargets(app, [{ controllerId: cid }]);
    let res = await app.mgmt.get(`/rest/v1/targets/${cid}`);
    expect(res.status).toBe(200);
    const base = `${app.url}/rest/v1/targets/${cid}`;
    expect(res.json()._links).toEqual({
      self: { href: base }, assignedDS: { href: `${base}/assignedDS` }, installedDS: { href: `${base}/installedDS` },
      attributes: { href: `${base}/attributes` }, actions: { href: `${base}/actions?offset=0&limit=50&sort=id:DESC` },
      metadata: { href: `${base}/metadata?offset=0&limit=50` },
    });
    const id = await app.store.lookup(app.tenant, TARGET, 'controllerId', cid);
    const at = Date.now() - 2 * 24 * 3600 * 1000; // two days ago: overdue with pollingTime 12 h + overdue 23:59:59
    await app.store.recordPolls(app.tenant, [{ id: id as number, at, address: 'http://10.1.2.3' }]);
    res = await app.mgmt.get(`/rest/v1/targets/${cid}`);
    expect(res.json()).toMatchObject({
      lastControllerRequestAt: at, ipAddress: '10.1.2.3', address: 'http://10.1.2.3',
      pollStatus: { lastRequestAt: at, nextExpectedRequestAt: at + 12 * 3600 * 1000, overdue: true },
    });
    await app.store.recordPolls(app.tenant, [{ id: id as number, at: Date.now(), address: null }]);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json().pollStatus.overdue).toBe(false);
    expect(t?.['controllerId']).toBe(cid);
  });

  it('hides the security token from callers without READ_TARGET_SECURITY_TOKEN', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    const res = await app.anon.get(`/rest/v1/targets/${cid}`, reader);
    expect(res.status).toBe(200);
    expect(res.json()).not.toHaveProperty('securityToken');
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json().securityToken).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it('updates plain fields with PUT and answers the full target', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid, name: 'old', description: 'old' }]);
    const res = await app.mgmt.put(`/rest/v1/targets/${cid}`, {
      json: { controllerId: 'ignored', name: 'new', description: 'desc', address: 'http://1.2.3.4', securityToken: 'tok', requestAttributes: true },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ controllerId: cid, name: 'new', description: 'desc', address: 'http://1.2.3.4', ipAddress: '1.2.3.4', securityToken: 'tok', updateStatus: 'unknown' });
    expect(res.json()._links.attributes).toBeDefined();
    // absent fields stay unchanged
    const again = await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { description: 'only this' } });
    expect(again.json()).toMatchObject({ name: 'new', description: 'only this', securityToken: 'tok' });
    // an empty address clears it
    const cleared = await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { address: '' } });
    expect(cleared.json()).not.toHaveProperty('address');
    expect(cleared.json()).not.toHaveProperty('ipAddress');
  });

  it('sets and removes the target type with PUT targetType (-1 removes)', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    const type = (await app.mgmt.post('/rest/v1/targettypes', { json: [{ name: uid('type') }] })).json()[0];
    let res = await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { targetType: type.id } });
    expect(res.json()).toMatchObject({ targetType: type.id, targetTypeName: type.name });
    expect(res.json()._links.targetType.href).toBe(`${app.url}/rest/v1/targettypes/${type.id}`);
    res = await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { targetType: -1 } });
    expect(res.json()).not.toHaveProperty('targetType');
    expectError(await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { targetType: 999999 } }), 404, ERR.notFound, '999999');
    expectError(await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: uid(), targetType: 999999 }] }), 404, ERR.notFound, '999999');
  });

  it('refuses requestAttributes false on PUT', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    expectError(await app.mgmt.put(`/rest/v1/targets/${cid}`, { json: { requestAttributes: false } }), 400, ERR.body, 'requestAttributes');
  });

  it('shows autoConfirmActive and the autoConfirm link only while the confirmation flow is on', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json()).not.toHaveProperty('autoConfirmActive');
    expect((await app.mgmt.put('/rest/v1/system/configs/user.confirmation.flow.enabled', { json: { value: true } })).status).toBe(200);
    const res = await app.mgmt.get(`/rest/v1/targets/${cid}`);
    expect(res.json().autoConfirmActive).toBe(false);
    expect(res.json()._links.autoConfirm.href).toBe(`${app.url}/rest/v1/targets/${cid}/autoConfirm`);
    expect((await app.mgmt.delete('/rest/v1/system/configs/user.confirmation.flow.enabled')).status).toBe(204);
  });

  it('deletes a target with its actions, status entries and poll record', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    const id = (await app.store.lookup(app.tenant, TARGET, 'controllerId', cid)) as number;
    const actionId = await app.store.nextIds(app.tenant, ACTION, 1);
    const statusId = await app.store.nextIds(app.tenant, ACTION_STATUS, 1);
    const action: ActionRecord = {
      id: actionId, targetId: id, controllerId: cid, ds: 1, actionType: 'forced', forceTime: 0, weight: null, status: 'finished', active: false,
      maintenanceWindow: null, rollout: null, rolloutGroup: null, lastStatusCode: null, externalRef: null, lastEntry: 'finished', entries: 1,
      ...created('admin', 1),
    };
    const status: ActionStatusRecord = { id: statusId, actionId, type: 'finished', messages: [], reportedAt: 1, timestamp: 1, code: null };
    const committed = await app.store.commit(app.tenant, {
      writes: [{ kind: ACTION, id: actionId, expect: 0, after: action }, { kind: ACTION_STATUS, id: statusId, expect: 0, after: status }],
    });
    expect(committed.ok).toBe(true);
    await app.store.recordPolls(app.tenant, [{ id, at: 5, address: null }]);
    expect((await app.mgmt.delete(`/rest/v1/targets/${cid}`)).status).toBe(204);
    expectError(await app.mgmt.get(`/rest/v1/targets/${cid}`), 404, ERR.notFound, cid);
    expect(await app.store.get(app.tenant, ACTION, actionId)).toBeUndefined();
    expect(await app.store.get(app.tenant, ACTION_STATUS, statusId)).toBeUndefined();
    expect(await app.store.getPolls(app.tenant, [id])).toEqual([undefined]);
    expectError(await app.mgmt.delete(`/rest/v1/targets/${cid}`), 404, ERR.notFound);
    // the controller id is free again
    await createTargets(app, [{ controllerId: cid }]);
  });

  it('answers 404 for unknown targets on every single-target operation', async () => {
    expectError(await app.mgmt.get('/rest/v1/targets/no-such-target'), 404, ERR.notFound, 'no-such-target');
    expectError(await app.mgmt.put('/rest/v1/targets/no-such-target', { json: { name: 'x' } }), 404, ERR.notFound);
    expectError(await app.mgmt.delete('/rest/v1/targets/no-such-target'), 404, ERR.notFound);
  });

  it('refuses a controller id that exists (case-insensitively) or is given twice, creating nothing', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    const fresh = uid();
    expectError(await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: fresh }, { controllerId: cid.toUpperCase() }] }), 409, ERR.exists, cid.toUpperCase());
    expectError(await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: fresh }, { controllerId: fresh }] }), 409, ERR.exists, fresh);
    expectError(await app.mgmt.get(`/rest/v1/targets/${fresh}`), 404, ERR.notFound);
  });

  it.each([
    ['a missing controllerId', [{ name: 'x' }], 'body[0].controllerId: required'],
    ['an object controllerId', [{ controllerId: { id: 42 } }], 'body[0].controllerId: expected a string'],
    ['an empty controllerId', [{ controllerId: '' }], 'body[0].controllerId'],
    ['a controllerId with a space', [{ controllerId: 'a b' }], 'body[0].controllerId: must not contain whitespace'],
    ['a controllerId with a slash', [{ controllerId: 'a/b' }], 'body[0].controllerId: must not contain whitespace'],
    ['a controllerId with a tab', [{ controllerId: 'a\tb' }], 'body[0].controllerId: must not contain whitespace'],
    ['a controllerId of 257 characters', [{ controllerId: 'c'.repeat(257) }], 'body[0].controllerId: must be at most 256 characters long'],
    ['a name of 129 characters', [{ controllerId: 'ok1', name: 'n'.repeat(129) }], 'body[0].name: must be at most 128'],
    ['a description of 513 characters', [{ controllerId: 'ok1', description: 'd'.repeat(513) }], 'body[0].description: must be at most 512'],
    ['an address of 513 characters', [{ controllerId: 'ok1', address: 'a'.repeat(513) }], 'body[0].address: must be at most 512'],
    ['a securityToken of 129 characters', [{ controllerId: 'ok1', securityToken: 't'.repeat(129) }], 'body[0].securityToken: must be at most 128'],
    ['an array name', [{ controllerId: 'ok1', name: [true] }], 'body[0].name: expected a string'],
    ['a string requestAttributes', [{ controllerId: 'ok1', requestAttributes: 'yes' }], 'body[0].requestAttributes'],
    ['a number', 5, 'body[0]'],
  ])('refuses %s with 400 naming the field', async (_what, json, message) => {
    expectError(await app.mgmt.post('/rest/v1/targets', { json }), 400, ERR.body, message);
  });

  it('refuses an address that is not a URI, and malformed JSON', async () => {
    expectError(await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: uid(), address: 'http://a b' }] }), 400, ERR.address, 'body[0].address');
    const res = await app.mgmt.post('/rest/v1/targets', { body: '[{"controllerId":', headers: { 'content-type': 'application/json' } });
    expectError(res, 400, ERR.body, 'truncated JSON');
  });

  it.each([
    [{ name: '' }, 'body.name'],
    [{ name: 'n'.repeat(129) }, 'body.name'],
    [{ securityToken: '' }, 'body.securityToken'],
    [{ targetType: 'x' }, 'body.targetType'],
    [{ targetType: -2 }, 'body.targetType'],
  ])('refuses the PUT body %j with 400', async (json, field) => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    expectError(await app.mgmt.put(`/rest/v1/targets/${cid}`, { json }), 400, ERR.body, field);
  });
});
