import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { ERR, createTag, createTargets, expectError, uid } from './fixtures.js';

describe.each(STORES)('target sub-resources on the %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxMetaDataEntriesPerTarget: 3 } });
  });

  it('answers attributes as a map, or 204 when there are none', async () => {
    const cid = uid();
    await seedTarget(app, cid, { attributes: { hwRevision: '2', 'serial no': 'A-1' } });
    const res = await app.mgmt.get(`/rest/v1/targets/${cid}/attributes`);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ hwRevision: '2', 'serial no': 'A-1' });
    const bare = uid();
    await createTargets(app, [{ controllerId: bare }]);
    const empty = await app.mgmt.get(`/rest/v1/targets/${bare}/attributes`);
    expect(empty.status).toBe(204);
    expect(empty.text).toBe('');
    expectError(await app.mgmt.get('/rest/v1/targets/ghost/attributes'), 404, ERR.notFound);
  });

  it('lists the tags of a target', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}/tags`)).json()).toEqual([]);
    const tag = await createTag(app, uid('tag'), { colour: 'green' });
    await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned/${cid}`);
    const tags = (await app.mgmt.get(`/rest/v1/targets/${cid}/tags`)).json();
    expect(tags).toEqual([expect.objectContaining({ id: tag.id, name: tag.name, colour: 'green', _links: { self: { href: `${app.url}/rest/v1/targettags/${tag.id}` } } })]);
  });

  it('shows the assigned and installed distribution sets, 204 when none', async () => {
    const { ds } = await seedDistributionSet(app, { name: 'fw', version: '3.1' });
    const cid = uid();
    await seedTarget(app, cid, { assignedDs: ds.id, installedDs: null, updateStatus: 'pending' });
    const assigned = await app.mgmt.get(`/rest/v1/targets/${cid}/assignedDS`);
    expect(assigned.status).toBe(200);
    expect(assigned.json()).toMatchObject({ id: ds.id, name: 'fw', version: '3.1', complete: true });
    expect(assigned.json().modules).toHaveLength(1);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}/installedDS`)).status).toBe(204);
    expect((await app.mgmt.get(`/rest/v1/targets/${cid}`)).json().updateStatus).toBe('pending');
    expectError(await app.mgmt.get('/rest/v1/targets/ghost/installedDS'), 404, ERR.notFound);
  });

  it('creates, lists, reads, updates and deletes metadata', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    const base = `/rest/v1/targets/${cid}/metadata`;
    const res = await app.mgmt.post(base, { json: [{ key: 'site', value: 'berlin' }, { key: 'rack', value: 'r1' }] });
    expect(res.status, res.text).toBe(201);
    expect(res.json()).toEqual([{ key: 'site', value: 'berlin' }, { key: 'rack', value: 'r1' }]);
    expect((await app.mgmt.get(base)).json()).toEqual({ content: [{ key: 'rack', value: 'r1' }, { key: 'site', value: 'berlin' }], total: 2, size: 2 });
    expect((await app.mgmt.get(`${base}?q=key==si*&limit=1`)).json()).toEqual({ content: [{ key: 'site', value: 'berlin' }], total: 1, size: 1 });
    expect((await app.mgmt.get(`${base}/site`)).json()).toEqual({ key: 'site', value: 'berlin' });
    const put = await app.mgmt.put(`${base}/site`, { json: { key: 'site', value: 'paris' } });
    expect(put.status).toBe(200); // spec 4.5: 200 {key, value}
    expect(put.json()).toEqual({ key: 'site', value: 'paris' });
    expect((await app.mgmt.get(`${base}/site`)).json()).toEqual({ key: 'site', value: 'paris' });
    expect((await app.mgmt.get(`/rest/v1/targets?q=${encodeURIComponent('metadata.site==paris')}`)).json().content[0].controllerId).toBe(cid);
    expect((await app.mgmt.delete(`${base}/site`)).status).toBe(204);
    expectError(await app.mgmt.get(`${base}/site`), 404, ERR.notFound, 'site');
    expectError(await app.mgmt.put(`${base}/site`, { json: { value: 'x' } }), 404, ERR.notFound);
    expectError(await app.mgmt.delete(`${base}/site`), 404, ERR.notFound);
  });

  it('refuses duplicate metadata keys (409), too many entries (403) and bad bodies (400)', async () => {
    const cid = uid();
    await createTargets(app, [{ controllerId: cid }]);
    const base = `/rest/v1/targets/${cid}/metadata`;
    expect((await app.mgmt.post(base, { json: { key: 'a', value: '1' } })).status).toBe(201);
    expectError(await app.mgmt.post(base, { json: [{ key: 'a', value: '2' }] }), 409, ERR.exists, 'a');
    expectError(await app.mgmt.post(base, { json: [{ key: 'b', value: '2' }, { key: 'b', value: '3' }] }), 409, ERR.exists);
    expectError(await app.mgmt.post(base, { json: [{ key: 'b' }, { key: 'c' }, { key: 'd' }] }), 403, ERR.quota);
    expectError(await app.mgmt.post(base, { json: [{ value: 'x' }] }), 400, ERR.body, 'body[0].key: required');
    expectError(await app.mgmt.post(base, { json: [{ key: 'k'.repeat(129), value: 'x' }] }), 400, ERR.body, 'body[0].key');
    expectError(await app.mgmt.post(base, { json: [{ key: 'x', value: 'v'.repeat(4001) }] }), 400, ERR.body, 'body[0].value');
    // hawkBit's MgmtMetadataBodyPut has an optional value: without one the entry keeps its value
    const kept = await app.mgmt.put(`${base}/a`, { json: { key: 'a' } });
    expect(kept.status).toBe(200); // spec 4.5: 200 with the entry
    expect(kept.json()).toEqual({ key: 'a', value: '1' });
    expect((await app.mgmt.get(`${base}/a`)).json()).toEqual({ key: 'a', value: '1' });
    expectError(await app.mgmt.post('/rest/v1/targets/ghost/metadata', { json: [{ key: 'a', value: '1' }] }), 404, ERR.notFound);
    expect((await app.mgmt.get(`${base}`)).json().total).toBe(1);
  });
});
