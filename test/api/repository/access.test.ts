import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, tenantFor, type App } from '../../helpers/app.js';
import { ADMIN_HASH } from '../../helpers/server.js';
import { ROOT, completeSet, unique, upload } from './fixture.js';

const READER: readonly [string, string] = ['reader', 'admin'];
const INTRUDER: readonly [string, string] = ['intruder', 'admin'];

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  let set: Awaited<ReturnType<typeof completeSet>>;
  let artifact: { id: number };
  let tag: { id: number };
  beforeAll(async () => {
    const [a, b] = [tenantFor(kind, 'A'), tenantFor(kind, 'B', 'OTHER')];
    app = await startApp(kind, {
      tenants: [
        { name: a, users: [
          { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] },
          { username: 'reader', password: ADMIN_HASH, permissions: ['READ_REPOSITORY'] },
        ] },
        { name: b, users: [{ username: 'intruder', password: ADMIN_HASH, permissions: ['ALL'] }] },
      ],
    });
    set = await completeSet(app);
    artifact = (await upload(app, set.module.id, [{ name: 'file', filename: 'a.bin', content: 'content' }])).json();
    tag = (await app.mgmt.post(`${ROOT}/distributionsettags`, { json: [{ name: unique('t') }] })).json()[0];
  });

  const reads = () => [
    `${ROOT}/softwaremoduletypes/${set.smType.id}`,
    `${ROOT}/softwaremodules/${set.module.id}`,
    `${ROOT}/softwaremodules/${set.module.id}/artifacts/${artifact.id}`,
    `${ROOT}/softwaremodules/${set.module.id}/artifacts/${artifact.id}/download`,
    `${ROOT}/softwaremodules/${set.module.id}/metadata`,
    `${ROOT}/distributionsettypes/${set.dsType.id}`,
    `${ROOT}/distributionsettypes/${set.dsType.id}/mandatorymoduletypes`,
    `${ROOT}/distributionsets/${set.ds.id}`,
    `${ROOT}/distributionsets/${set.ds.id}/assignedSM`,
    `${ROOT}/distributionsettags/${tag.id}`,
    `${ROOT}/distributionsettags/${tag.id}/assigned`,
  ];

  it('lets a READ_REPOSITORY user read everything and change nothing (403)', async () => {
    for (const path of reads()) expect((await app.mgmt.get(path, { auth: READER })).status, path).toBe(200);
    expect((await app.mgmt.get(`${ROOT}/distributionsets`, { auth: READER })).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', `${ROOT}/softwaremoduletypes`, [{ key: 'k', name: 'n' }]],
      ['PUT', `${ROOT}/softwaremodules/${set.module.id}`, { description: 'x' }],
      ['DELETE', `${ROOT}/distributionsets/${set.ds.id}`, undefined],
      ['POST', `${ROOT}/distributionsets/${set.ds.id}/metadata`, [{ key: 'k', value: 'v' }]],
      ['POST', `${ROOT}/distributionsettags/${tag.id}/assigned`, [set.ds.id]],
      ['POST', `${ROOT}/distributionsettypes/${set.dsType.id}/optionalmoduletypes`, { id: set.smType.id }],
      ['DELETE', `${ROOT}/softwaremodules/${set.module.id}/artifacts/${artifact.id}`, undefined],
    ];
    for (const [method, path, json] of writes) {
      const res = await app.mgmt.request(method, path, { auth: READER, ...(json === undefined ? {} : { json }) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json().errorCode).toBe('hawkbit.server.error.insufficientPermission');
    }
    const up = await upload(app, set.module.id, [{ name: 'file', filename: 'b.bin', content: 'x' }], '', READER);
    expect(up.status).toBe(403);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${set.module.id}/artifacts`)).json()).toHaveLength(1);
  });

  it('answers 401 without credentials', async () => {
    expect((await app.anon.get(`${ROOT}/distributionsets`)).status).toBe(401);
    expect((await app.anon.post(`${ROOT}/softwaremodules/${set.module.id}/artifacts`, { body: 'x', headers: { 'content-type': 'multipart/form-data; boundary=x' } })).status).toBe(401);
  });

  it("hides one tenant's repository from another tenant's admin (404), lists included", async () => {
    for (const path of reads()) {
      const res = await app.mgmt.get(path, { auth: INTRUDER });
      expect(res.status, path).toBe(404);
    }
    for (const list of ['softwaremodules', 'distributionsets', 'distributionsettags']) {
      expect((await app.mgmt.get(`${ROOT}/${list}`, { auth: INTRUDER })).json().total, list).toBe(0);
    }
    // the other tenant has only its own (bootstrapped) types
    const keys = async (list: string) => (await app.mgmt.get(`${ROOT}/${list}?limit=500`, { auth: INTRUDER })).json().content.map((t: { key: string }) => t.key);
    expect(await keys('softwaremoduletypes')).not.toContain(set.smType.key);
    expect(await keys('distributionsettypes')).not.toContain(set.dsType.key);
    expect((await app.mgmt.delete(`${ROOT}/distributionsets/${set.ds.id}`, { auth: INTRUDER })).status).toBe(404);
    expect((await upload(app, set.module.id, [{ name: 'file', filename: 'c.bin', content: 'x' }], '', INTRUDER)).status).toBe(404);
    // the other tenant may use the same names and keys
    const res = await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: [{ key: set.smType.key, name: set.smType.name }], auth: INTRUDER });
    expect(res.status).toBe(201);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${set.ds.id}`)).status).toBe(200);
  });
});
