import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ROOT, completeSet, ds, unique } from './fixture.js';

const TAGS = `${ROOT}/distributionsettags`;
const ids = (page: { content: { id: number }[] }) => page.content.map((d) => d.id);

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind);
  });

  async function tag(over: Record<string, unknown> = {}) {
    const res = await app.mgmt.post(TAGS, { json: [{ name: unique('tag'), ...over }] });
    expect(res.status).toBe(201);
    return res.json()[0];
  }

  it('creates, reads, updates, lists and deletes tags with the documented shape', async () => {
    const name = unique('beta');
    const res = await app.mgmt.post(TAGS, { json: [{ name, description: 'beta sets', colour: '#00ff00' }] });
    expect(res.status).toBe(201);
    const [t] = res.json();
    const self = `${app.url}${TAGS}/${t.id}`;
    expect(t).toMatchObject({ name, description: 'beta sets', colour: '#00ff00', createdBy: 'admin', lastModifiedBy: 'admin' });
    // hawkBit's MgmtTagMapper: lists and create answers carry `self` only, single-tag answers add the members link
    expect(t._links).toEqual({ self: { href: self } });
    const links = { self: { href: self }, assignedDistributionSets: { href: `${self}/assigned?offset=0&limit=50` } };
    expect((await app.mgmt.get(`${TAGS}/${t.id}`)).json()).toEqual({ ...t, _links: links });
    const put = await app.mgmt.put(`${TAGS}/${t.id}`, { json: { name: `${name}-x`, colour: 'red' } });
    expect(put.json()).toMatchObject({ name: `${name}-x`, description: 'beta sets', colour: 'red' });
    expect((await app.mgmt.get(`${TAGS}?q=name==${name}-x`)).json()).toMatchObject({ total: 1, content: [{ id: t.id }] });
    expect((await app.mgmt.get(`${TAGS}?q=colour==red;id==${t.id}&sort=name:DESC`)).json().total).toBe(1);
    expect((await app.mgmt.delete(`${TAGS}/${t.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${TAGS}/${t.id}`)).status).toBe(404);
  });

  it('refuses duplicates (409), missing or over-long names (400), unknown fields in q (400)', async () => {
    const t = await tag();
    expect((await app.mgmt.post(TAGS, { json: [{ name: t.name.toUpperCase() }] })).status).toBe(409);
    const other = await tag();
    expect((await app.mgmt.put(`${TAGS}/${other.id}`, { json: { name: t.name } })).status).toBe(409);
    const noName = await app.mgmt.post(TAGS, { json: [{ description: 'x' }] });
    expect(noName.status).toBe(400);
    expect(noName.json().message).toContain('body[0].name');
    expect((await app.mgmt.post(TAGS, { json: [{ name: 'n'.repeat(129) }] })).status).toBe(400);
    expect((await app.mgmt.post(TAGS, { json: [{ name: 'x', colour: 'c'.repeat(17) }] })).status).toBe(400);
    expect((await app.mgmt.get(`${TAGS}?q=target==1`)).json().errorCode).toBe('hawkbit.server.error.rest.param.rsqlInvalidField');
  });

  it('assigns and unassigns sets by id arrays (204), singly, and lists them paged', async () => {
    const t = await tag();
    const { ds: a, dsType } = await completeSet(app);
    const b = await ds(app, dsType.key, []);
    const c = await ds(app, dsType.key, []);
    expect((await app.mgmt.post(`${TAGS}/${t.id}/assigned`, { json: [a.id, b.id] })).status).toBe(204);
    expect((await app.mgmt.post(`${TAGS}/${t.id}/assigned/${c.id}`)).status).toBe(204);
    const all = (await app.mgmt.get(`${TAGS}/${t.id}/assigned`)).json();
    expect(all.total).toBe(3);
    expect(ids(all)).toEqual([a.id, b.id, c.id]);
    expect(all.content[0]).toMatchObject({ id: a.id, name: a.name, modules: [{ id: a.modules[0].id }] });
    expect(ids((await app.mgmt.get(`${TAGS}/${t.id}/assigned?limit=1&offset=1&sort=id:DESC`)).json())).toEqual([b.id]);
    expect(ids((await app.mgmt.get(`${TAGS}/${t.id}/assigned?q=name==${b.name}`)).json())).toEqual([b.id]);
    expect((await app.mgmt.get(`${TAGS}/${t.id}/distributionsets`)).json().total).toBe(3);
    // tags filter by the sets that carry them
    expect(ids((await app.mgmt.get(`${TAGS}?q=distributionset.id==${a.id}`)).json())).toEqual([t.id]);

    expect((await app.mgmt.delete(`${TAGS}/${t.id}/assigned/${c.id}`)).status).toBe(204);
    expect((await app.mgmt.delete(`${TAGS}/${t.id}/assigned`, { json: [a.id] })).status).toBe(204);
    expect(ids((await app.mgmt.get(`${TAGS}/${t.id}/assigned`)).json())).toEqual([b.id]);
    expect((await app.mgmt.put(`${TAGS}/${t.id}/assigned`, { json: [a.id] })).status).toBe(204);
    expect((await app.mgmt.get(`${TAGS}/${t.id}/assigned`)).json().total).toBe(2);
  });

  it('accepts the 0.5-0.9 body [{"id": n}] and answers with the sets', async () => {
    const t = await tag();
    const { ds: a } = await completeSet(app);
    const res = await app.mgmt.post(`${TAGS}/${t.id}/assigned`, { json: [{ id: a.id }] });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject([{ id: a.id, name: a.name }]);
  });

  it('toggles: adds the tag unless every listed set has it, then removes it from all', async () => {
    const t = await tag();
    const { ds: a, dsType } = await completeSet(app);
    const b = await ds(app, dsType.key, []);
    await app.mgmt.post(`${TAGS}/${t.id}/assigned/${a.id}`);
    const first = await app.mgmt.post(`${TAGS}/${t.id}/assigned/toggleTagAssignment`, { json: [{ id: a.id }, { id: b.id }] });
    expect(first.status).toBe(200);
    expect(first.json().assignedDistributionSets.map((d: { id: number }) => d.id)).toEqual([b.id]);
    expect(first.json().unassignedDistributionSets).toEqual([]);
    const second = (await app.mgmt.post(`${TAGS}/${t.id}/assigned/toggleTagAssignment`, { json: [{ id: a.id }, { id: b.id }] })).json();
    expect(second.assignedDistributionSets).toEqual([]);
    expect(second.unassignedDistributionSets.map((d: { id: number }) => d.id)).toEqual([a.id, b.id]);
    expect((await app.mgmt.get(`${TAGS}/${t.id}/assigned`)).json().total).toBe(0);
  });

  it('answers 404 for unknown tags or sets, 400 for bad bodies, and untags sets when the tag goes', async () => {
    const t = await tag();
    const { ds: a } = await completeSet(app);
    expect((await app.mgmt.post(`${TAGS}/999999/assigned`, { json: [a.id] })).status).toBe(404);
    const unknownSet = await app.mgmt.post(`${TAGS}/${t.id}/assigned`, { json: [a.id, 999999] });
    expect(unknownSet.status).toBe(404);
    expect((await app.mgmt.get(`${TAGS}/${t.id}/assigned`)).json().total).toBe(0);
    expect((await app.mgmt.post(`${TAGS}/${t.id}/assigned`, { json: ['x'] })).status).toBe(400);
    expect((await app.mgmt.post(`${TAGS}/${t.id}/assigned/999999`)).status).toBe(404);
    expect((await app.mgmt.get(`${TAGS}/${t.id}/assigned?q=bogus==1`)).status).toBe(400);

    await app.mgmt.post(`${TAGS}/${t.id}/assigned`, { json: [a.id] });
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=tag==${t.name}`)).json().total).toBe(1);
    expect((await app.mgmt.delete(`${TAGS}/${t.id}`)).status).toBe(204);
    expect(await app.store.count(app.tenant, 'ds', 'tag', String(t.id))).toBe(0);
    expect((await app.mgmt.get(`${ROOT}/distributionsets?q=tag==${t.name}`)).json().total).toBe(0);
  });
});
