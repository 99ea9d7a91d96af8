import { beforeAll, describe, expect, it } from 'vitest';
import { created } from '../../../src/domain/audit.js';
import { DS, type DistributionSetRecord } from '../../../src/domain/repository.js';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { seedDistributionSet, type SeededDs } from '../../helpers/seed.js';
import { ERR, createTargets, expectError, uid } from './fixtures.js';

const AUTO_FIELDS = ['autoAssignDistributionSet', 'autoAssignActionType', 'autoAssignWeight', 'confirmationRequired'];

describe.each(STORES)('target filters on the %s store', (kind) => {
  let app: App;
  let seeded: SeededDs;
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxTargetsPerAutoAssignment: 3 } });
    seeded = await seedDistributionSet(app, { name: 'auto', version: '1.0' });
  });
  const createFilter = async (query = 'name==*'): Promise<{ id: number; name: string }> => {
    const res = await app.mgmt.post('/rest/v1/targetfilters', { json: { name: uid('filter'), query } });
    expect(res.status, res.text).toBe(201);
    return res.json();
  };
  /** A DS record written straight to the store, to make one incomplete, invalid or deleted. */
  const variant = async (over: Partial<DistributionSetRecord>): Promise<number> => {
    const id = await app.store.nextIds(app.tenant, DS, 1);
    const ds: DistributionSetRecord = { ...seeded.ds, ...created('seed', 1), id, name: uid('v'), ...over };
    expect((await app.store.commit(app.tenant, { writes: [{ kind: DS, id, expect: 0, after: ds }] })).ok).toBe(true);
    return id;
  };

  it('creates, reads, lists, updates and deletes a filter; all auto-assign fields present as null', async () => {
    const name = uid('f');
    const res = await app.mgmt.post('/rest/v1/targetfilters', { json: { name, query: 'updatestatus==registered' } });
    expect(res.status).toBe(201);
    const f = res.json();
    expect(f).toMatchObject({ name, query: 'updatestatus==registered', createdBy: 'admin' });
    for (const field of AUTO_FIELDS) expect(f[field]).toBeNull();
    expect(f._links).toEqual({ self: { href: `${app.url}/rest/v1/targetfilters/${f.id}` }, autoAssignDS: { href: `${app.url}/rest/v1/targetfilters/${f.id}/autoAssignDS` } });
    expect((await app.mgmt.get(`/rest/v1/targetfilters/${f.id}`)).json()).toEqual(f);
    const list = (await app.mgmt.get(`/rest/v1/targetfilters?q=${encodeURIComponent(`name==${name}`)}`)).json();
    expect(list).toMatchObject({ total: 1, size: 1 });
    expect(Object.keys(list.content[0]._links)).toEqual(['self']);
    const full = (await app.mgmt.get(`/rest/v1/targetfilters?representation=full&q=${encodeURIComponent(`name==${name}`)}`)).json();
    expect(Object.keys(full.content[0]._links)).toEqual(['self', 'autoAssignDS']);
    const put = await app.mgmt.put(`/rest/v1/targetfilters/${f.id}`, { json: { query: 'tag==x' } });
    expect(put.json()).toMatchObject({ name, query: 'tag==x' });
    expect((await app.mgmt.delete(`/rest/v1/targetfilters/${f.id}`)).status).toBe(204);
    expectError(await app.mgmt.get(`/rest/v1/targetfilters/${f.id}`), 404, ERR.notFound);
  });

  it('validates the query with the target fields', async () => {
    expectError(await app.mgmt.post('/rest/v1/targetfilters', { json: { name: uid(), query: 'bogus==1' } }), 400, ERR.rsqlField, 'bogus');
    expectError(await app.mgmt.post('/rest/v1/targetfilters', { json: { name: uid(), query: 'name==' } }), 400, ERR.rsqlSyntax);
    const f = await createFilter();
    expectError(await app.mgmt.put(`/rest/v1/targetfilters/${f.id}`, { json: { query: '(name==a' } }), 400, ERR.rsqlSyntax);
  });

  it.each([
    [{ query: 'name==a' }, 'body.name: required'],
    [{ name: 'x' }, 'body.query: required'],
    [{ name: 'n'.repeat(129), query: 'name==a' }, 'body.name'], // hawkBit NamedEntity.NAME_MAX_SIZE 128
    [{ name: 'x', query: 'q'.repeat(1025) }, 'body.query'],
    [{ name: 'x', query: 5 }, 'body.query: expected a string'],
  ])('refuses the filter body %j with 400', async (json, message) => {
    expectError(await app.mgmt.post('/rest/v1/targetfilters', { json }), 400, ERR.body, message);
  });

  it('refuses a duplicate filter name with 409', async () => {
    const f = await createFilter();
    expectError(await app.mgmt.post('/rest/v1/targetfilters', { json: { name: f.name, query: 'name==a' } }), 409, ERR.exists);
  });

  it('sets, shows and clears the auto-assigned distribution set', async () => {
    const f = await createFilter('name==nothing-matches');
    const base = `/rest/v1/targetfilters/${f.id}/autoAssignDS`;
    expect((await app.mgmt.get(base)).status).toBe(204);
    const res = await app.mgmt.post(base, { json: { id: seeded.ds.id, type: 'soft', weight: 700, confirmationRequired: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toMatchObject({ id: f.id, autoAssignDistributionSet: seeded.ds.id, autoAssignActionType: 'soft', autoAssignWeight: 700, confirmationRequired: true });
    const ds = await app.mgmt.get(base);
    expect(ds.status).toBe(200);
    expect(ds.json()).toMatchObject({ id: seeded.ds.id, name: 'auto', version: '1.0' });
    expect((await app.mgmt.get(`/rest/v1/targetfilters?q=${encodeURIComponent('autoassigndistributionset.name==auto')}`)).json().content.map((x: { id: number }) => x.id)).toContain(f.id);
    // defaults: forced, no weight, confirmation as the tenant's flow (off)
    const defaults = (await app.mgmt.post(base, { json: { id: seeded.ds.id } })).json();
    expect(defaults).toMatchObject({ autoAssignActionType: 'forced', autoAssignWeight: null, confirmationRequired: false });
    expect((await app.mgmt.delete(base)).status).toBe(204);
    const cleared = (await app.mgmt.get(`/rest/v1/targetfilters/${f.id}`)).json();
    for (const field of AUTO_FIELDS) expect(cleared[field]).toBeNull();
    expect((await app.mgmt.get(base)).status).toBe(204);
  });

  it.each([
    [{ id: 1, type: 'timeforced' }, 400, 'hawkbit.server.error.repo.invalidAutoAssignActionType'],
    [{ id: 1, type: 'sometimes' }, 400, ERR.body],
    [{ id: 1, weight: 1001 }, 400, ERR.body],
    [{ id: 1, weight: -1 }, 400, ERR.body],
    [{ type: 'forced' }, 400, ERR.body],
    [{ id: 999999 }, 404, ERR.notFound],
  ])('refuses the auto-assign body %j', async (json: Record<string, unknown>, status, code) => {
    const f = await createFilter();
    const body = { ...json, ...(json['id'] === 1 ? { id: seeded.ds.id } : {}) };
    expectError(await app.mgmt.post(`/rest/v1/targetfilters/${f.id}/autoAssignDS`, { json: body }), status, code);
  });

  it('refuses incomplete, invalidated and deleted sets, and filters matching too many targets', async () => {
    const f = await createFilter('name==nothing-matches');
    const base = `/rest/v1/targetfilters/${f.id}/autoAssignDS`;
    expectError(await app.mgmt.post(base, { json: { id: await variant({ modules: [] }) } }), 400, 'hawkbit.server.error.distributionset.incomplete');
    expectError(await app.mgmt.post(base, { json: { id: await variant({ valid: false }) } }), 400, 'hawkbit.server.error.distributionset.invalid');
    expectError(await app.mgmt.post(base, { json: { id: await variant({ deleted: true }) } }), 404, 'hawkbit.server.error.deleted');
    const prefix = uid('many');
    await createTargets(app, [1, 2, 3, 4].map((i) => ({ controllerId: `${prefix}-${i}` })));
    const wide = await createFilter(`controllerid==${prefix}-*`);
    expectError(await app.mgmt.post(`/rest/v1/targetfilters/${wide.id}/autoAssignDS`, { json: { id: seeded.ds.id } }), 403, ERR.quota);
    expectError(await app.mgmt.post('/rest/v1/targetfilters/999999/autoAssignDS', { json: { id: seeded.ds.id } }), 404, ERR.notFound);
  });
});
