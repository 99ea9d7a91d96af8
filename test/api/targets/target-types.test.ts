import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { ERR, createTargets, expectError, uid } from './fixtures.js';

describe.each(STORES)('target types on the %s store', (kind) => {
  let app: App;
  let dsTypes: number[];
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxDistributionSetTypesPerTargetType: 2 } });
    dsTypes = [
      (await seedDistributionSet(app)).dsType.id,
      (await seedDistributionSet(app)).dsType.id,
      (await seedDistributionSet(app)).dsType.id,
    ];
  });
  const create = async (json: unknown) => app.mgmt.post('/rest/v1/targettypes', { json });

  it('creates, reads, lists, updates and deletes a type with compatible DS types', async () => {
    const name = uid('type');
    const res = await create([{ name, key: `${name}-key`, description: 'd', colour: 'blue', compatibledistributionsettypes: [{ id: dsTypes[0] }] }]);
    expect(res.status, res.text).toBe(201);
    const [type] = res.json();
    expect(type).toMatchObject({ name, key: `${name}-key`, description: 'd', colour: 'blue', deleted: false, createdBy: 'admin' });
    expect(type._links).toEqual({ self: { href: `${app.url}/rest/v1/targettypes/${type.id}` } });
    const one = (await app.mgmt.get(`/rest/v1/targettypes/${type.id}`)).json();
    expect(one._links.compatibledistributionsettypes.href).toBe(`${app.url}/rest/v1/targettypes/${type.id}/compatibledistributionsettypes`);
    const compat = (await app.mgmt.get(`/rest/v1/targettypes/${type.id}/compatibledistributionsettypes`)).json();
    expect(compat.map((t: { id: number }) => t.id)).toEqual([dsTypes[0]]);
    expect(compat[0]).toMatchObject({ key: expect.any(String), name: expect.any(String), deleted: false });
    expect(compat[0]._links.self.href).toBe(`${app.url}/rest/v1/distributionsettypes/${dsTypes[0]}`);
    expect((await app.mgmt.get(`/rest/v1/targettypes?q=${encodeURIComponent(`key==${name}-key`)}`)).json().total).toBe(1);
    expect((await app.mgmt.get(`/rest/v1/targettypes?q=${encodeURIComponent(`name==${name}`)}`)).json().content[0].id).toBe(type.id);
    const put = await app.mgmt.put(`/rest/v1/targettypes/${type.id}`, { json: { name: `${name}-2`, colour: 'red' } });
    expect(put.json()).toMatchObject({ name: `${name}-2`, colour: 'red', description: 'd', key: `${name}-key` });
    expect((await app.mgmt.delete(`/rest/v1/targettypes/${type.id}`)).status).toBe(204);
    expectError(await app.mgmt.get(`/rest/v1/targettypes/${type.id}`), 404, ERR.notFound);
  });

  it('adds and removes compatible DS types, within the quota', async () => {
    const [type] = (await create([{ name: uid('compat') }])).json();
    const base = `/rest/v1/targettypes/${type.id}/compatibledistributionsettypes`;
    expect((await app.mgmt.post(base, { json: [{ id: dsTypes[0] }, { id: dsTypes[1] }] })).status).toBe(204);
    expectError(await app.mgmt.post(base, { json: [{ id: dsTypes[2] }] }), 403, ERR.quota);
    expectError(await app.mgmt.post(base, { json: [{ id: 999999 }] }), 404, ERR.notFound, '999999');
    expect((await app.mgmt.delete(`${base}/${dsTypes[0]}`)).status).toBe(204);
    expect((await app.mgmt.post(base, { json: [{ id: dsTypes[2] }] })).status).toBe(204);
    expect((await app.mgmt.get(base)).json().map((t: { id: number }) => t.id).sort()).toEqual([dsTypes[1], dsTypes[2]].sort());
    expectError(await app.mgmt.delete(`${base}/999999`), 404, ERR.notFound);
    expectError(await create([{ name: uid('q'), compatibledistributionsettypes: dsTypes.map((id) => ({ id })) }]), 403, ERR.quota);
  });

  it('refuses to delete a type in use (409) and lets targets take and drop it', async () => {
    const [type] = (await create([{ name: uid('used') }])).json();
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    expect((await app.mgmt.post(`/rest/v1/targets/${cid}/targettype`, { json: { id: type.id } })).status).toBe(204);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json()).toMatchObject({ targetType: type.id, targetTypeName: type.name });
    expectError(await app.mgmt.delete(`/rest/v1/targettypes/${type.id}`), 409, 'hawkbit.server.error.target.type.used');
    expect((await app.mgmt.delete(`/rest/v1/targets/${cid}/targettype`)).status).toBe(204);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json()).not.toHaveProperty('targetType');
    expect((await app.mgmt.delete(`/rest/v1/targettypes/${type.id}`)).status).toBe(204);
    expectError(await app.mgmt.post(`/rest/v1/targets/${cid}/targettype`, { json: { id: type.id } }), 404, ERR.notFound);
    expectError(await app.mgmt.post(`/rest/v1/targets/${cid}/targettype`, { json: { id: 'x' } }), 400, ERR.body, 'body.id');
  });

  it('refuses duplicate names and keys with 409', async () => {
    const name = uid('dup');
    await create([{ name, key: `${name}-k` }]);
    expectError(await create([{ name: name.toUpperCase() }]), 409, ERR.exists);
    expectError(await create([{ name: uid('other'), key: `${name}-k` }]), 409, ERR.exists);
    expectError(await create([{ name: 'x' + name }, { name: 'X' + name }]), 409, ERR.exists);
  });

  it.each([
    [[{}], 'body[0].name: required'],
    [[{ name: 'n'.repeat(129) }], 'body[0].name'], // hawkBit NamedEntity.NAME_MAX_SIZE 128
    [[{ name: 'x', key: 'k'.repeat(65) }], 'body[0].key'],
    [[{ name: 'x', description: 'd'.repeat(513) }], 'body[0].description'],
    [[{ name: 'x', compatibledistributionsettypes: [{ id: 'one' }] }], 'body[0].compatibledistributionsettypes[0].id'],
  ])('refuses the type body %j with 400', async (json, message) => {
    expectError(await create(json), 400, ERR.body, message);
  });
});
