import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { ERR, createTag, createTargets, expectError } from './fixtures.js';

/**
 * FIQL over the Target fields of reference §5 on a small fixed fleet, one app per store:
 *   alpha-1 registered, tag beta, type gw, attribute hwRevision=2, metadata site=berlin, polled 3 days ago (overdue)
 *   alpha-2 in_sync, tags beta+prod, DS release-a:1.0 assigned and installed, polled now, group eu/berlin
 *   bravo-3 pending, DS release-b:2.0 assigned, release-a:1.0 installed, never polled
 *   charlie-4 unknown (created through the API), type sensor
 *   delta-5 error, auto-confirm active
 */
describe.each(STORES)('target queries on the %s store', (kind) => {
  let app: App;
  let beta: number;
  let dsA: number;
  let sensorType: number;
  const ids = async (query: string): Promise<string[]> => {
    const res = await app.mgmt.get(`/rest/v1/targets?${query}`);
    expect(res.status, res.text).toBe(200);
    return res.json().content.map((t: { controllerId: string }) => t.controllerId);
  };
  const q = (fiql: string): Promise<string[]> => ids(`q=${encodeURIComponent(fiql)}`);

  beforeAll(async () => {
    app = await startApp(kind);
    beta = (await createTag(app, 'beta')).id;
    const prod = (await createTag(app, 'prod')).id;
    const types = (await app.mgmt.post('/rest/v1/targettypes', { json: [{ name: 'Gateway', key: 'gw' }, { name: 'Sensor', key: 'sensor' }] })).json();
    sensorType = types[1].id;
    const a = await seedDistributionSet(app, { name: 'release-a', version: '1.0' });
    const b = await seedDistributionSet(app, { name: 'release-b', version: '2.0' });
    dsA = a.ds.id;
    const now = Date.now();
    const t1 = await seedTarget(app, 'alpha-1', {
      name: 'Alpha One', description: 'first foo device', updateStatus: 'registered', tags: [beta], targetType: types[0].id,
      attributes: { hwRevision: '2' }, metadata: { site: 'berlin' }, address: 'http://10.0.0.1',
    });
    const t2 = await seedTarget(app, 'alpha-2', { name: 'Alpha Two', updateStatus: 'in_sync', tags: [beta, prod], assignedDs: a.ds.id, installedDs: a.ds.id, group: 'eu/berlin' });
    await seedTarget(app, 'bravo-3', { name: 'Bravo', description: 'FOO bar', updateStatus: 'pending', assignedDs: b.ds.id, installedDs: a.ds.id });
    await createTargets(app, [{ controllerId: 'charlie-4', name: 'charlie', description: 'other', targetType: sensorType }]);
    await seedTarget(app, 'delta-5', { name: 'Delta', updateStatus: 'error', autoConfirm: { initiator: 'me', remark: null, activatedAt: 1 } });
    await app.store.recordPolls(app.tenant, [{ id: t1.id, at: now - 3 * 24 * 3600 * 1000, address: null }, { id: t2.id, at: now, address: 'http://10.9.9.9' }]);
  });

  it('lists all targets sorted by controllerId by default, with total and size', async () => {
    const res = await app.mgmt.get('/rest/v1/targets');
    expect(res.json()).toMatchObject({ total: 5, size: 5 });
    expect(await ids('')).toEqual(['alpha-1', 'alpha-2', 'bravo-3', 'charlie-4', 'delta-5']);
  });

  it.each([
    ['name==alpha*', ['alpha-1', 'alpha-2']],
    ['name=="ALPHA ONE"', ['alpha-1']],
    ['description==*foo*', ['alpha-1', 'bravo-3']],
    ["description==''", ['alpha-2', 'delta-5']],
    ['description!=*foo*', ['alpha-2', 'charlie-4', 'delta-5']],
    ['controllerid==ALPHA-1', ['alpha-1']],
    ['id=in=(alpha-1,bravo-3,nope)', ['alpha-1', 'bravo-3']],
    ['updatestatus==registered', ['alpha-1']],
    ['updatestatus=in=(in_sync,PENDING)', ['alpha-2', 'bravo-3']],
    ['updatestatus!=unknown', ['alpha-1', 'alpha-2', 'bravo-3', 'delta-5']],
    ['attribute.hwRevision==2', ['alpha-1']],
    ['attribute.hwrevision=is=null', ['alpha-2', 'bravo-3', 'charlie-4', 'delta-5']],
    ['tag==beta', ['alpha-1', 'alpha-2']],
    ['tag.name==PROD', ['alpha-2']],
    ['tag==b*', ['alpha-1', 'alpha-2']],
    ['tag=in=(prod,none)', ['alpha-2']],
    ['tag!=beta', ['bravo-3', 'charlie-4', 'delta-5']],
    ['tag==nosuchtag', []],
    ['assignedds.name==release-a;assignedds.version==1.0', ['alpha-2']],
    ['assignedds==release-*', ['alpha-2', 'bravo-3']],
    ['installedds.version==1.0', ['alpha-2', 'bravo-3']],
    ['installedds.name=is=null', ['alpha-1', 'charlie-4', 'delta-5']],
    ['lastcontrollerrequestat=lt=${OVERDUE_TS}', ['alpha-1']],
    ['lastcontrollerrequestat=ge=${OVERDUE_TS}', ['alpha-2']],
    ['lastcontrollerrequestat=le=${NOW_TS}', ['alpha-1', 'alpha-2']],
    ['lastcontrollerrequestat=is=null', ['bravo-3', 'charlie-4', 'delta-5']],
    ['metadata.site==berlin', ['alpha-1']],
    ['type==gw', ['alpha-1']],
    ['targettype.name==sensor', ['charlie-4']],
    ['type.key=in=(gw,sensor)', ['alpha-1', 'charlie-4']],
    ['autoconfirm==true', ['delta-5']],
    ['ipaddress==*10.0.0.*', ['alpha-1']],
    ['ipaddress==*10.9.9.9', ['alpha-2']],
    ['group=="eu/*"', ['alpha-2']],
    ['name==alpha*,name==bravo', ['alpha-1', 'alpha-2', 'bravo-3']],
    ['(name==alpha*;tag==prod),updatestatus==error', ['alpha-2', 'delta-5']],
    ['createdat=gt=0;createdby==seed', ['alpha-1', 'alpha-2', 'bravo-3', 'delta-5']],
    ['name=="*\'; DROP TABLE targets; --"', []],
  ])('q=%s', async (fiql, expected) => {
    expect(await q(fiql)).toEqual(expected);
  });

  it('finds the targets of a target type by id', async () => {
    expect(await q(`type.id==${sensorType}`)).toEqual(['charlie-4']);
  });

  it.each([
    ['sort=name:DESC', ['delta-5', 'charlie-4', 'bravo-3', 'alpha-2', 'alpha-1']],
    ['sort=updatestatus:asc,controllerid:desc', ['delta-5', 'alpha-2', 'bravo-3', 'alpha-1', 'charlie-4']],
    ['sort=lastcontrollerrequestat:DESC', ['bravo-3', 'charlie-4', 'delta-5', 'alpha-2', 'alpha-1']],
    ['sort=tag:ASC&q=tag==beta', ['alpha-1', 'alpha-2']],
    ['limit=2', ['alpha-1', 'alpha-2']],
    ['offset=4&limit=2', ['delta-5']],
    ['offset=9', []],
  ])('%s', async (query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });

  it('reports total and size of a partial page', async () => {
    expect((await app.mgmt.get('/rest/v1/targets?offset=1&limit=2&q=name==*a*')).json()).toMatchObject({ total: 5, size: 2 });
  });

  it('lists the targets of a tag and of a distribution set, with their own q', async () => {
    const page = (await app.mgmt.get(`/rest/v1/targettags/${beta}/assigned`)).json();
    expect(page).toMatchObject({ total: 2, size: 2 });
    const two = (await app.mgmt.get(`/rest/v1/targettags/${beta}/assigned?q=${encodeURIComponent('name==*Two')}`)).json();
    expect(two.content.map((t: { controllerId: string }) => t.controllerId)).toEqual(['alpha-2']);
    const assigned = (await app.mgmt.get(`/rest/v1/distributionsets/${dsA}/assignedTargets`)).json();
    expect(assigned.content.map((t: { controllerId: string }) => t.controllerId)).toEqual(['alpha-2']);
    const installed = (await app.mgmt.get(`/rest/v1/distributionsets/${dsA}/installedTargets?sort=controllerid:DESC`)).json();
    expect(installed.content.map((t: { controllerId: string }) => t.controllerId)).toEqual(['bravo-3', 'alpha-2']);
    expectError(await app.mgmt.get('/rest/v1/distributionsets/999999/assignedTargets'), 404, ERR.notFound, '999999');
    expectError(await app.mgmt.get('/rest/v1/distributionsets/999999/installedTargets'), 404, ERR.notFound);
    expectError(await app.mgmt.get('/rest/v1/distributionsets/abc/installedTargets'), 400, ERR.param);
  });

  it.each([
    ['q=nosuchfield==1', ERR.rsqlField, 'nosuchfield'],
    ['q=attribute==1', ERR.rsqlField, 'attribute'],
    ['q=name==', ERR.rsqlSyntax, undefined],
    ['q=name==ALPHA ONE', ERR.rsqlSyntax, undefined],
    ['q=name=foo', ERR.rsqlSyntax, undefined],
    ['q=(name==a', ERR.rsqlSyntax, undefined],
    ["q=name==*'; DROP TABLE targets", ERR.rsqlSyntax, undefined],
    ['q=updatestatus==bogus', ERR.rsqlSyntax, 'bogus'],
    ['q=updatestatus=gt=pending', ERR.rsqlSyntax, undefined],
    ['q=createdat=gt=yesterday', ERR.rsqlSyntax, 'yesterday'],
    ['q=autoconfirm==maybe', ERR.rsqlSyntax, 'maybe'],
    ['sort=nosuchfield:ASC', ERR.sortField, 'nosuchfield'],
    ['sort=attribute.x:ASC', ERR.sortField, undefined],
    ['sort=name:UP', ERR.sortDirection, 'UP'],
    ['sort=name', ERR.sortSyntax, undefined],
    ['limit=ten', ERR.param, 'limit'],
    ['limit=2147483648', ERR.param, 'limit'],
    ['offset=-2147483649', ERR.param, 'offset'],
    ['q=name==a&q=name==b', ERR.param, 'q'],
  ])('refuses %s with 400', async (query, code, mentions) => {
    expectError(await app.mgmt.get(`/rest/v1/targets?${query.replace(/ /g, '%20')}`), 400, code, mentions);
  });

  it('keeps serving after hostile queries', async () => {
    await app.mgmt.get(`/rest/v1/targets?q=${encodeURIComponent('name==' + '('.repeat(200))}`);
    await app.mgmt.get(`/rest/v1/targets?q=${encodeURIComponent('name==' + 'a*'.repeat(1500))}`);
    expect(await q('name==alpha-1,controllerid==alpha-1')).toEqual(['alpha-1']);
  });
});

/** hawkBit's PagingUtility: limit over the maximum → the maximum, under 1 → the default, offset < 0 → 0 (issue 7 item 9). */
describe.each(STORES)('paging on the %s store', (kind) => {
  it('clamps paging as hawkBit does instead of refusing it', async () => {
    const app = await startApp(kind, { limits: { defaultPageSize: 2, maxPageSize: 3 } });
    await createTargets(app, ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'].map((controllerId) => ({ controllerId, name: controllerId })));
    const page = async (query: string): Promise<{ ids: string[]; size: number; total: number }> => {
      const res = await app.mgmt.get(`/rest/v1/targets?q=controllerId==p-*&${query}`);
      expect(res.status, res.text).toBe(200);
      const body = res.json();
      return { ids: body.content.map((t: { controllerId: string }) => t.controllerId), size: body.size, total: body.total };
    };
    expect(await page('limit=9')).toEqual({ ids: ['p-1', 'p-2', 'p-3'], size: 3, total: 5 });
    expect(await page('limit=2147483647')).toEqual({ ids: ['p-1', 'p-2', 'p-3'], size: 3, total: 5 });
    expect(await page('limit=0')).toEqual({ ids: ['p-1', 'p-2'], size: 2, total: 5 });
    expect(await page('limit=-4')).toEqual({ ids: ['p-1', 'p-2'], size: 2, total: 5 });
    expect(await page('offset=-3&limit=3')).toEqual({ ids: ['p-1', 'p-2', 'p-3'], size: 3, total: 5 });
    expect(await page('offset=3&limit=3')).toEqual({ ids: ['p-4', 'p-5'], size: 2, total: 5 });
    // the same parser serves every list: actions, metadata, sub-collections
    expect((await app.mgmt.get('/rest/v1/actions?limit=0&offset=-1')).status).toBe(200);
    expect((await app.mgmt.get('/rest/v1/targets/p-1/metadata?limit=100000')).status).toBe(200);
    expectError(await app.mgmt.get('/rest/v1/targets?limit=1e3'), 400, ERR.param, 'limit');
  });
});
