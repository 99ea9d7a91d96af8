/**
 * Tenants created and deleted at runtime (issue 26 item 2, src/tenancy/registry.ts), over real HTTP on
 * the memory store, Redis and the Cluster: the system administrator's API and its bad input; a tenant
 * created while the server runs has its rollout advanced by the engine, its devices poll and report,
 * its effects dispatched and its webhooks delivered; a deleted one is refused everywhere and its data is gone.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SM_TYPE } from '../../../src/domain/repository.js';
import { STORES, withAuth } from '../../helpers/app.js';
import { http } from '../../helpers/server.js';
import { GATEWAY_KEY } from '../ddi/fixture.js';
import {
  createSet, createTargets, expectError, fleet, gatewayDevice, groupTargets, runDevice, runningRollout, startRolloutApp, uid, waitStatus,
  type Json, type RolloutApp,
} from '../rollouts/fixture.js';
import { FAST, createWebhook, startReceiver } from '../webhooks/receiver.js';

const TENANTS = '/rest/v1/system/admin/tenants';
const ERR = {
  body: 'hawkbit.server.error.rest.body.notReadable',
  exists: 'hawkbit.server.error.repo.entityAlreadyExists',
  notFound: 'hawkbit.server.error.repo.entityNotFound',
  readOnly: 'hawkbit.server.error.entityReadOnly',
  permission: 'hawkbit.server.error.insufficientPermission',
  unauthorized: 'hawkbit.server.error.unauthorized',
} as const;

const PASSWORD = 'a-good-password';
const user = (username = 'sim', permissions = ['ALL']) => ({ username, password: PASSWORD, permissions });
const newName = (): string => `RUN-${randomBytes(4).toString('hex').toUpperCase()}`;

/** The same app seen from a runtime tenant: its user's credentials, its DDI paths (gateway token). */
function inTenant(app: RolloutApp, tenant: string, username = 'sim'): RolloutApp {
  const client = http(app.url);
  return {
    ...app,
    tenant,
    mgmt: withAuth(client, [`${tenant}\\${username}`, PASSWORD]),
    ddi: `/${tenant}/controller/v1`,
    device: (controllerId) => gatewayDevice(client, tenant, controllerId),
  };
}

describe.each(STORES)('runtime tenants on the %s store', (kind) => {
  let app: RolloutApp;
  beforeAll(async () => {
    app = await startRolloutApp(kind, { webhookSettings: FAST });
  });
  const create = (json: unknown, auth?: readonly [string, string]) => app.mgmt.post(TENANTS, { json, ...(auth ? { auth } : {}) });

  it('creates a tenant with its first user, lists it beside config.yaml\'s, and deletes it with its data', async () => {
    const name = newName();
    const res = await create({ name: name.toLowerCase(), users: [user('sim', ['READ_TARGET', 'CREATE_TARGET'])] });
    expect(res.status, res.text).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name, source: 'runtime', createdBy: 'admin', users: [{ username: 'sim', permissions: ['READ_TARGET', 'CREATE_TARGET'] }],
      _links: { self: { href: `${app.url}${TENANTS}/${name}` } },
    });
    expect(created.users[0]).not.toHaveProperty('password');
    expect((await app.mgmt.get(`${TENANTS}/${name.toLowerCase()}`)).json()).toEqual(created);
    const listed = (await app.mgmt.get(TENANTS)).json();
    expect(listed.content.map((t: Json) => [t.name, t.source])).toEqual(expect.arrayContaining([[app.tenant.toUpperCase(), 'config'], [name, 'runtime']]));

    // its user signs in to its own tenant; its repository has the standard types
    const own = inTenant(app, name);
    expect((await own.mgmt.get('/rest/v1/userinfo')).json()).toMatchObject({ tenant: name, username: 'sim' });
    const types = (await app.store.ids(name, SM_TYPE, { offset: 0, limit: 10 })).total;
    expect(types).toBe(2);
    expect((await own.mgmt.post('/rest/v1/targets', { json: [{ controllerId: 'dev-1' }] })).status).toBe(201);

    expect((await app.mgmt.delete(`${TENANTS}/${name}`)).status).toBe(200);
    expectError(await app.mgmt.get(`${TENANTS}/${name}`), 404, ERR.notFound, name);
    expectError(await own.mgmt.get('/rest/v1/userinfo'), 401, ERR.unauthorized);
    expect((await own.device('dev-1').get('')).status).toBe(404);
    expect((await app.store.ids(name, SM_TYPE, { offset: 0, limit: 10 })).total).toBe(0);
    expectError(await app.mgmt.delete(`${TENANTS}/${name}`), 404, ERR.notFound);
  });

  it('refuses bad names, bad users, taken names and the deletion of a config.yaml tenant', async () => {
    for (const bad of ['', 'a b', 'x'.repeat(65), 'ü', 'a/b', 42, null]) {
      expectError(await create({ name: bad, users: [user()] }), 400, ERR.body, 'name');
    }
    const name = newName();
    expectError(await create({ name }), 400, ERR.body, 'users');
    expectError(await create({ name, users: [] }), 400, ERR.body, 'at least one');
    expectError(await create({ name, users: [{ ...user(), password: 'short' }] }), 400, ERR.body, 'password');
    expectError(await create({ name, users: [user('a:b')] }), 400, ERR.body, 'username');
    expectError(await create({ name, users: [user('sim', ['NO_SUCH'])] }), 400, ERR.body, 'NO_SUCH');
    expectError(await create({ name, users: [user('sim', ['SYSTEM_ADMIN'])] }), 400, ERR.body, 'SYSTEM_ADMIN');
    expectError(await create({ name, users: [user(), user()] }), 400, ERR.body, 'duplicate');
    expectError(await app.mgmt.post(TENANTS, { body: '{"name":', headers: { 'content-type': 'application/json' } }), 400, ERR.body);
    // nothing of the refused bodies was created
    expectError(await app.mgmt.get(`${TENANTS}/${name}`), 404, ERR.notFound);

    expectError(await create({ name: app.tenant.toLowerCase(), users: [user()] }), 409, ERR.exists, app.tenant.toUpperCase());
    expect((await create({ name, users: [user()] })).status).toBe(201);
    expectError(await create({ name: name.toLowerCase(), users: [user()] }), 409, ERR.exists, name);
    expectError(await app.mgmt.delete(`${TENANTS}/${app.tenant}`), 403, ERR.readOnly, 'config.yaml');
    expect((await app.mgmt.get(`${TENANTS}/${app.tenant}`)).json()).toMatchObject({ name: app.tenant.toUpperCase(), source: 'config' });
    expect((await app.mgmt.delete(`${TENANTS}/${name}`)).status).toBe(200);
  });

  it('is for SYSTEM_ADMIN of a config.yaml tenant only: a runtime tenant\'s user with ALL may not', async () => {
    const name = newName();
    expectError(await create({ name, users: [user()] }, ['reader', 'admin']), 403, ERR.permission, 'SYSTEM_ADMIN');
    expectError(await app.anon.get(TENANTS), 401, ERR.unauthorized);
    expect((await create({ name, users: [user()] })).status).toBe(201);
    const own = inTenant(app, name);
    expectError(await own.mgmt.get(TENANTS), 403, ERR.permission, 'config.yaml');
    expectError(await own.mgmt.post(TENANTS, { json: { name: newName(), users: [user()] } }), 403, ERR.permission);
    expectError(await own.mgmt.delete(`${TENANTS}/${name}`), 403, ERR.permission);
    // its user sees its own tenant's data only
    expect((await own.mgmt.get('/rest/v1/rollouts')).json().total).toBe(0);
    expect((await app.mgmt.delete(`${TENANTS}/${name}`)).status).toBe(200);
  });

  it('runs a rollout in a tenant created at runtime: engine, devices, effects and webhooks, then stops with its deletion', async () => {
    const name = newName();
    expect((await create({ name, users: [user()] })).status).toBe(201);
    const own = inTenant(app, name);
    const config = await own.mgmt.put('/rest/v1/system/configs', {
      json: { 'authentication.gatewaytoken.enabled': true, 'authentication.gatewaytoken.key': GATEWAY_KEY },
    });
    expect(config.status, config.text).toBe(200);
    const receiver = await startReceiver();
    await createWebhook(own, { url: receiver.url, kinds: ['rollout', 'action'] });
    const prefix = uid('rt');
    await createTargets(own, prefix, 2);
    const ds = (await createSet(own)).id;
    // the engine starts its first group (the scheduler's loop found the new tenant)
    const rollout = await runningRollout(own, { name: uid('r'), targetFilterQuery: fleet(prefix), distributionSetId: ds, amountGroups: 2 });
    const groups = (await own.mgmt.get(`/rest/v1/rollouts/${rollout.id}/deploygroups`)).json().content as Json[];
    expect(groups).toHaveLength(2);
    // devices poll and report; their feedback's effects reach the group and the engine starts the next group
    for (const g of groups) {
      // a device of the second group gets its deployment once the first group finished
      for (const controllerId of await groupTargets(own, rollout.id, g.id)) await runDevice(own, controllerId, 'success');
    }
    await waitStatus(own, rollout.id, 'finished');
    const hook = await receiver.next((r) => r.body?.type === 'rollout' && r.body.data.status === 'finished', 'the rollout finished');
    expect(hook.body).toMatchObject({ tenant: name, data: { rolloutId: rollout.id } });
    // the config.yaml tenant saw none of it
    expect((await app.mgmt.get(`/rest/v1/targets?q=${encodeURIComponent(fleet(prefix))}`)).json().total).toBe(0);

    expect((await app.mgmt.delete(`${TENANTS}/${name}`)).status).toBe(200);
    expect((await own.device(`${prefix}-1`).get('')).status).toBe(404);
    expect(await app.store.get(name, 'rollout', rollout.id)).toBeUndefined();
    expect(await app.store.pendingEffects(name)).toBe(0);
    expect((await app.store.readJournal(name, undefined, 1)).last).toBe('0-0');
  });
});

describe('a tenant of config.yaml and one created at runtime with the same users', () => {
  it('keeps TENANT\\user apart: the bare name is config.yaml\'s user', async () => {
    const app = await startRolloutApp('memory');
    const name = newName();
    expect((await app.mgmt.post(TENANTS, { json: { name, users: [user('admin')] } })).status).toBe(201);
    const bare = withAuth(http(app.url), ['admin', 'admin']);
    expect((await bare.get('/rest/v1/userinfo')).json()).toMatchObject({ tenant: app.tenant.toUpperCase() });
    const qualified = withAuth(http(app.url), [`${name}\\admin`, PASSWORD]);
    expect((await qualified.get('/rest/v1/userinfo')).json()).toMatchObject({ tenant: name });
  });
});
