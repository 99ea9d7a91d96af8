import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ERR, createTag, createTargets, expectError, uid } from './fixtures.js';

const cids = (list: { controllerId: string }[]): string[] => list.map((t) => t.controllerId).sort();

describe.each(STORES)('target tags on the %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind);
  });
  const tagsOf = async (cid: string): Promise<string[]> => (await app.mgmt.get(`/rest/v1/targets/${cid}/tags`)).json().map((t: { name: string }) => t.name).sort();

  it('creates, reads, lists, updates and deletes tags', async () => {
    const name = uid('tag');
    const res = await app.mgmt.post('/rest/v1/targettags', { json: [{ name, description: 'd', colour: '#ff0000' }] });
    expect(res.status).toBe(201);
    const [tag] = res.json();
    expect(tag).toMatchObject({ name, description: 'd', colour: '#ff0000', createdBy: 'admin', lastModifiedBy: 'admin' });
    expect(tag._links).toEqual({ self: { href: `${app.url}/rest/v1/targettags/${tag.id}` } });
    const one = (await app.mgmt.get(`/rest/v1/targettags/${tag.id}`)).json();
    expect(one._links.assignedTargets.href).toBe(`${app.url}/rest/v1/targettags/${tag.id}/assigned?offset=0&limit=50`);
    const list = (await app.mgmt.get(`/rest/v1/targettags?q=${encodeURIComponent(`name==${name}`)}`)).json();
    expect(list).toMatchObject({ total: 1, size: 1 });
    const put = await app.mgmt.put(`/rest/v1/targettags/${tag.id}`, { json: { description: 'new' } });
    expect(put.json()).toMatchObject({ name, description: 'new', colour: '#ff0000' });
    expect((await app.mgmt.delete(`/rest/v1/targettags/${tag.id}`)).status).toBe(204);
    expectError(await app.mgmt.get(`/rest/v1/targettags/${tag.id}`), 404, ERR.notFound, String(tag.id));
  });

  it('sorts and pages tags, and refuses bad list parameters', async () => {
    const prefix = uid('sort');
    await app.mgmt.post('/rest/v1/targettags', { json: [{ name: `${prefix}-b` }, { name: `${prefix}-a` }, { name: `${prefix}-c` }] });
    const page = (await app.mgmt.get(`/rest/v1/targettags?q=${encodeURIComponent(`name==${prefix}*`)}&sort=name:DESC&limit=2`)).json();
    expect(page.content.map((t: { name: string }) => t.name)).toEqual([`${prefix}-c`, `${prefix}-b`]);
    expect(page).toMatchObject({ total: 3, size: 2 });
    expectError(await app.mgmt.get('/rest/v1/targettags?q=bogus==1'), 400, ERR.rsqlField);
    expectError(await app.mgmt.get('/rest/v1/targettags?sort=bogus:ASC'), 400, ERR.sortField);
  });

  it.each([
    [[{ description: 'no name' }], 'body[0].name: required'],
    [[{ name: '' }], 'body[0].name'],
    [[{ name: 'n'.repeat(129) }], 'body[0].name: must be at most 128'], // hawkBit NamedEntity.NAME_MAX_SIZE
    [[{ name: 'x', description: 'd'.repeat(513) }], 'body[0].description'],
    [[{ name: 'x', colour: 'c'.repeat(17) }], 'body[0].colour'],
    [[{ name: 7 }], 'body[0].name: expected a string'],
  ])('refuses the tag body %j with 400', async (json, message) => {
    expectError(await app.mgmt.post('/rest/v1/targettags', { json }), 400, ERR.body, message);
  });

  it('refuses a duplicate tag name with 409 (create, in-request, rename)', async () => {
    const name = uid('dup');
    const other = await createTag(app, uid('other'));
    await createTag(app, name);
    expectError(await app.mgmt.post('/rest/v1/targettags', { json: [{ name: name.toUpperCase() }] }), 409, ERR.exists);
    expectError(await app.mgmt.post('/rest/v1/targettags', { json: [{ name: 'z1' + name }, { name: 'Z1' + name }] }), 409, ERR.exists);
    expectError(await app.mgmt.put(`/rest/v1/targettags/${other.id}`, { json: { name } }), 409, ERR.exists);
  });

  it('assigns with the 0.5 body and answers the targets; also takes plain controller ids', async () => {
    const tag = await createTag(app, uid('t'));
    const [a, b, c] = [uid(), uid(), uid()];
    await createTargets(app, [{ controllerId: a }, { controllerId: b }, { controllerId: c }]);
    const res = await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [{ controllerId: a }, { controllerId: b }] });
    expect(res.status, res.text).toBe(200);
    expect(cids(res.json())).toEqual([a, b].sort());
    // the 0.9 form (plain ids, POST or PUT) answers 204
    const plain = await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [c] });
    expect(plain.status).toBe(204);
    expect((await app.mgmt.put(`/rest/v1/targettags/${tag.id}/assigned`, { json: [c] })).status).toBe(204);
    expect(await tagsOf(c)).toEqual([tag.name]);
    expect((await app.mgmt.get(`/rest/v1/targettags/${tag.id}/assigned`)).json().total).toBe(3);
    // already assigned: no change, no error
    expect((await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [{ controllerId: a }] })).status).toBe(200);
    expect((await app.mgmt.delete(`/rest/v1/targettags/${tag.id}/assigned/${a}`)).status).toBe(204);
    expect(await tagsOf(a)).toEqual([]);
    expect((await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned/${a}`)).status).toBe(204);
    expect((await app.mgmt.delete(`/rest/v1/targettags/${tag.id}/assigned`, { json: [b, c] })).status).toBe(204);
    expect((await app.mgmt.get(`/rest/v1/targettags/${tag.id}/assigned`)).json().content.map((t: { controllerId: string }) => t.controllerId)).toEqual([a]);
  });

  it('fails on unknown controller ids per onNotFoundPolicy', async () => {
    const tag = await createTag(app, uid('nf'));
    const a = uid();
    await createTargets(app, [{ controllerId: a }]);
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [a, 'ghost-1'] }), 404, ERR.notFound, 'ghost-1');
    expect(await tagsOf(a)).toEqual([]); // FAIL: nothing done
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned?onNotFoundPolicy=ON_WHAT_FOUND_AND_FAIL`, { json: [a, 'ghost-1'] }), 404, ERR.notFound);
    expect(await tagsOf(a)).toEqual([tag.name]);
    const ok = await app.mgmt.delete(`/rest/v1/targettags/${tag.id}/assigned?onNotFoundPolicy=ON_WHAT_FOUND_AND_SUCCESS`, { json: [a, 'ghost-2'] });
    expect(ok.status).toBe(204);
    expect(await tagsOf(a)).toEqual([]);
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned?onNotFoundPolicy=MAYBE`, { json: [a] }), 400, ERR.param, 'onNotFoundPolicy');
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned/ghost-3`), 404, ERR.notFound, 'ghost-3');
    expectError(await app.mgmt.post('/rest/v1/targettags/999999/assigned', { json: [a] }), 404, ERR.notFound, '999999');
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [{ id: a }] }), 400, ERR.body);
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [5] }), 400, ERR.body);
  });

  it('toggles: tags the untagged ones, or untags all when all carry it', async () => {
    const tag = await createTag(app, uid('toggle'));
    const [a, b] = [uid(), uid()];
    await createTargets(app, [{ controllerId: a }, { controllerId: b }]);
    await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [a] });
    // hawkBit (0.5 JpaTargetManagement.toggleTagAssignment): an unknown controller id fails the whole toggle
    const ghost = { json: [{ controllerId: a }, { controllerId: b }, { controllerId: 'ghost' }] };
    expectError(await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned/toggleTagAssignment`, ghost), 404, ERR.notFound, 'ghost');
    expect(await tagsOf(b)).toEqual([]);
    let res = await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned/toggleTagAssignment`, { json: [{ controllerId: a }, { controllerId: b }] });
    expect(res.status, res.text).toBe(200);
    expect(cids(res.json().assignedTargets)).toEqual([b]);
    expect(res.json().unassignedTargets).toEqual([]);
    res = await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned/toggleTagAssignment`, { json: [{ controllerId: a }, { controllerId: b }] });
    expect(res.json().assignedTargets).toEqual([]);
    expect(cids(res.json().unassignedTargets)).toEqual([a, b].sort());
    expect(await tagsOf(a)).toEqual([]);
  });

  it('removes a deleted tag from its targets', async () => {
    const tag = await createTag(app, uid('gone'));
    const a = uid();
    await createTargets(app, [{ controllerId: a }]);
    await app.mgmt.post(`/rest/v1/targettags/${tag.id}/assigned`, { json: [a] });
    expect((await app.mgmt.delete(`/rest/v1/targettags/${tag.id}`)).status).toBe(204);
    expect(await tagsOf(a)).toEqual([]);
    expect((await app.mgmt.get(`/rest/v1/targets?q=${encodeURIComponent(`tag==${tag.name}`)}`)).json().total).toBe(0);
  });

  it('answers 400 for a non-numeric tag id and 404 for an unknown one', async () => {
    expectError(await app.mgmt.get('/rest/v1/targettags/abc'), 400, ERR.param, 'targetTagId');
    expectError(await app.mgmt.get('/rest/v1/targettags/0'), 404, ERR.notFound);
    expectError(await app.mgmt.put('/rest/v1/targettags/999999', { json: { name: 'x' } }), 404, ERR.notFound);
    expectError(await app.mgmt.delete('/rest/v1/targettags/999999'), 404, ERR.notFound);
  });
});
