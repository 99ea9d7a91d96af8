import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, storeOptions, tenantFor, type StoreKind } from '../../helpers/app.js';
import { ADMIN_HASH, http, startTestServer } from '../../helpers/server.js';
import { ERR, expectError } from './fixtures.js';

/** Two tenants on one server: tenant B's admin never sees tenant A's data; users without the permission get 403. */
describe.each(STORES)('tenant isolation and permissions on the %s store', (kind: StoreKind) => {
  let api: ReturnType<typeof http>;
  const a = { auth: 'admin:admin' };
  const b = { auth: 'B\\admin:admin' };
  const as = (user: string) => ({ auth: `${user}:admin` });
  let tenantB = '';
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    const tenantA = tenantFor(kind, 'A');
    tenantB = tenantFor(kind, 'B', 'B');
    b.auth = `${tenantB}\\admin:admin`;
    const user = (username: string, permissions: string[]) => ({ username, password: ADMIN_HASH, permissions });
    const server = await startTestServer(
      {
        tenants: [
          {
            name: tenantA,
            users: [
              user('admin', ['ALL']), user('reader', ['READ_TARGET']), user('nobody', ['READ_ROLLOUT']),
              user('configreader', ['READ_TENANT_CONFIGURATION']), user('repo', ['READ_REPOSITORY']),
            ],
          },
          { name: tenantB, users: [user('admin', ['ALL'])] },
        ],
      },
      storeOptions(kind),
    );
    api = http(server.url);
    expect((await api.post('/rest/v1/targets', { ...a, json: [{ controllerId: 'secret-dev' }] })).status).toBe(201);
    ids['tag'] = (await api.post('/rest/v1/targettags', { ...a, json: [{ name: 'secret-tag' }] })).json()[0].id;
    ids['type'] = (await api.post('/rest/v1/targettypes', { ...a, json: [{ name: 'secret-type' }] })).json()[0].id;
    ids['filter'] = (await api.post('/rest/v1/targetfilters', { ...a, json: { name: 'secret-filter', query: 'name==*' } })).json().id;
    expect((await api.put('/rest/v1/system/configs/pollingTime', { ...a, json: { value: '00:01:00' } })).status).toBe(200);
  });

  it("answers 404 to tenant B for every id of tenant A, and lists only B's own data", async () => {
    for (const path of [
      '/rest/v1/targets/secret-dev', '/rest/v1/targets/secret-dev/attributes', '/rest/v1/targets/secret-dev/metadata',
      `/rest/v1/targettags/${ids['tag']}`, `/rest/v1/targettags/${ids['tag']}/assigned`, `/rest/v1/targettypes/${ids['type']}`,
      `/rest/v1/targetfilters/${ids['filter']}`, `/rest/v1/targetfilters/${ids['filter']}/autoAssignDS`,
    ]) {
      expectError(await api.get(path, b), 404, ERR.notFound);
    }
    expectError(await api.put('/rest/v1/targets/secret-dev', { ...b, json: { name: 'pwned' } }), 404, ERR.notFound);
    expectError(await api.delete('/rest/v1/targets/secret-dev', b), 404, ERR.notFound);
    expectError(await api.delete(`/rest/v1/targettags/${ids['tag']}`, b), 404, ERR.notFound);
    expect((await api.get('/rest/v1/targets', b)).json()).toEqual({ content: [], total: 0, size: 0 });
    expect((await api.get('/rest/v1/targettags', b)).json().total).toBe(0);
    expect((await api.get('/rest/v1/targetfilters', b)).json().total).toBe(0);
    // B may create the same names: nothing is shared
    expect((await api.post('/rest/v1/targets', { ...b, json: [{ controllerId: 'secret-dev' }] })).status).toBe(201);
    expect((await api.get('/rest/v1/targets/secret-dev', a)).json().name).toBe('secret-dev');
    expect((await api.get('/rest/v1/system/configs/pollingTime', b)).json()).toMatchObject({ value: '12:00:00', global: true });
    expect((await api.get('/rest/v1/system/configs/pollingTime', a)).json()).toMatchObject({ value: '00:01:00', global: false });
    expect((await api.get('/rest/v1/userinfo', b)).json()).toMatchObject({ tenant: tenantB, username: 'admin' });
  });

  it.each([
    ['reader', 'POST', '/rest/v1/targets', [{ controllerId: 'x1' }]],
    ['reader', 'PUT', '/rest/v1/targets/secret-dev', { name: 'x' }],
    ['reader', 'DELETE', '/rest/v1/targets/secret-dev', undefined],
    ['reader', 'POST', '/rest/v1/targettags', [{ name: 'x' }]],
    ['reader', 'POST', '/rest/v1/targetfilters', { name: 'x', query: 'name==x' }],
    ['reader', 'GET', '/rest/v1/targets/secret-dev/assignedDS', undefined],
    ['reader', 'GET', '/rest/v1/system/configs', undefined],
    ['nobody', 'GET', '/rest/v1/targets', undefined],
    ['nobody', 'GET', '/rest/v1/targettags', undefined],
    ['nobody', 'GET', '/rest/v1/targettypes', undefined],
    ['nobody', 'GET', '/rest/v1/targetfilters', undefined],
    ['repo', 'POST', '/rest/v1/targets/secret-dev/metadata', [{ key: 'k', value: 'v' }]],
    ['configreader', 'PUT', '/rest/v1/system/configs/pollingTime', { value: '00:02:00' }],
    ['configreader', 'DELETE', '/rest/v1/system/configs/pollingTime', undefined],
    ['configreader', 'PUT', '/rest/v1/system/configs', { pollingTime: '00:02:00' }],
  ])('%s may not %s %s (403)', async (user, method, path, json) => {
    expectError(await api.request(method, path, { ...as(user), ...(json === undefined ? {} : { json }) }), 403, ERR.permission);
  });

  it('lets readers read what their permissions cover', async () => {
    expect((await api.get('/rest/v1/targets/secret-dev', as('reader'))).status).toBe(200);
    expect((await api.get('/rest/v1/targets/secret-dev/metadata', as('repo'))).status).toBe(200);
    expect((await api.get('/rest/v1/system/configs', as('configreader'))).status).toBe(200);
    expect((await api.get('/rest/v1/userinfo', as('nobody'))).json()).toMatchObject({ username: 'nobody', permissions: ['READ_ROLLOUT'] });
    expect((await api.get('/rest/v1/targets')).status).toBe(401);
  });
});
