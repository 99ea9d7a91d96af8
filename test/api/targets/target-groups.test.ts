import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ADMIN_HASH } from '../../helpers/server.js';
import { ERR, createTag, createTargets, expectError, uid } from './fixtures.js';

const READER = ['reader', 'admin'] as const;
const EDITOR = ['editor', 'admin'] as const;

/** `/rest/v1/targetgroups` (hawkBit 1.0-1.1 MgmtTargetGroupRestApi, reference §3.5) over the targets' `group`. */
describe.each(STORES)('target groups on the %s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind, {}, [
      { username: 'reader', password: ADMIN_HASH, permissions: ['READ_TARGET'] },
      { username: 'editor', password: ADMIN_HASH, permissions: ['READ_TARGET', 'UPDATE_TARGET'] },
    ]);
  });
  const groupOf = async (cid: string): Promise<string | undefined> => (await app.mgmt.get(`/rest/v1/targets/${cid}`)).json().group;
  const members = async (path: string): Promise<string[]> => {
    const res = await app.mgmt.get(path);
    expect(res.status, res.text).toBe(200);
    return res.json().content.map((t: { controllerId: string }) => t.controllerId);
  };

  it('puts targets into groups by controller ids, lists groups and their targets, takes them out again', async () => {
    const p = uid('grp');
    const [a, b, c] = [`${p}-a`, `${p}-b`, `${p}-c`];
    await createTargets(app, [{ controllerId: a }, { controllerId: b }, { controllerId: c, group: `${p}-Parent/Child` }]);
    // unknown controller ids are ignored, as hawkBit's bulk update
    expect((await app.mgmt.put(`/rest/v1/targetgroups/${p}-Parent/assigned`, { json: [a, b, 'nobody-such'] })).status).toBe(204);
    expect(await groupOf(a)).toBe(`${p}-Parent`);
    const groups: string[] = (await app.mgmt.get('/rest/v1/targetgroups')).json();
    expect(groups.filter((g) => g.startsWith(p))).toEqual([`${p}-Parent`, `${p}-Parent/Child`]);

    // exact match, case-insensitive; sub-groups only when asked
    expect(await members(`/rest/v1/targetgroups/${p}-parent/assigned`)).toEqual([a, b]);
    expect(await members(`/rest/v1/targetgroups/assigned?group=${encodeURIComponent(`${p}-Parent`)}`)).toEqual([a, b]);
    expect(await members(`/rest/v1/targetgroups/assigned?group=${encodeURIComponent(`${p}-Parent`)}&subgroups=true`)).toEqual([a, b, c]);
    expect(await members(`/rest/v1/targetgroups/assigned?group=${encodeURIComponent(`${p}-Parent/Child`)}`)).toEqual([c]);
    const page = (await app.mgmt.get(`/rest/v1/targetgroups/${p}-Parent/assigned?limit=1&offset=1&sort=controllerId:DESC`)).json();
    expect(page).toMatchObject({ total: 2, size: 1, content: [{ controllerId: a, group: `${p}-Parent` }] });

    // sub-groups through the query parameter
    expect((await app.mgmt.put(`/rest/v1/targetgroups/assigned?group=${encodeURIComponent(`${p}-Parent/Other`)}`, { json: [b] })).status).toBe(204);
    expect(await groupOf(b)).toBe(`${p}-Parent/Other`);
    expect((await app.mgmt.delete('/rest/v1/targetgroups/assigned', { json: [a, b] })).status).toBe(204);
    expect(await groupOf(a)).toBeUndefined();
    expect(await groupOf(b)).toBeUndefined();
    expect(await groupOf(c)).toBe(`${p}-Parent/Child`);
    expect((await app.mgmt.get('/rest/v1/targetgroups')).json()).not.toContain(`${p}-Parent`);
  });

  it('puts the targets matching q into a group and takes them out by q', async () => {
    const p = uid('grq');
    await createTargets(app, [{ controllerId: `${p}-1`, name: `${p}-lab` }, { controllerId: `${p}-2`, name: `${p}-lab` }, { controllerId: `${p}-3` }]);
    const q = encodeURIComponent(`name==${p}-lab`);
    expect((await app.mgmt.put(`/rest/v1/targetgroups/${p}-lab?q=${q}`)).status).toBe(204);
    expect(await members(`/rest/v1/targetgroups/${p}-lab/assigned`)).toEqual([`${p}-1`, `${p}-2`]);
    expect((await app.mgmt.put(`/rest/v1/targetgroups?group=${encodeURIComponent(`${p}/all`)}&q=${encodeURIComponent(`controllerId==${p}-*`)}`)).status).toBe(204);
    expect(await members(`/rest/v1/targetgroups/assigned?group=${p}&subgroups=true`)).toEqual([`${p}-1`, `${p}-2`, `${p}-3`]);
    expect((await app.mgmt.delete(`/rest/v1/targetgroups?q=${encodeURIComponent(`controllerId==${p}-1`)}`)).status).toBe(204);
    expect(await groupOf(`${p}-1`)).toBeUndefined();
    expect(await groupOf(`${p}-2`)).toBe(`${p}/all`);
    // q matching nothing changes nothing
    expect((await app.mgmt.put(`/rest/v1/targetgroups/${p}-none?q=${encodeURIComponent('controllerId==nothing-matches-this')}`)).status).toBe(204);
    expect((await app.mgmt.get('/rest/v1/targetgroups')).json()).not.toContain(`${p}-none`);
  });

  it('bad input: FIQL errors, missing parameters, wrong bodies are 400; nothing changes', async () => {
    const p = uid('grb');
    await createTargets(app, [{ controllerId: `${p}-x`, group: 'before' }]);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}?q=${encodeURIComponent('colour==red')}`), 400, ERR.rsqlField);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}?q=${encodeURIComponent('name==')}`), 400, ERR.rsqlSyntax);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}`), 400, ERR.param, 'q');
    expectError(await app.mgmt.put(`/rest/v1/targetgroups?q=${encodeURIComponent(`controllerId==${p}-x`)}`), 400, ERR.param, 'group');
    expectError(await app.mgmt.delete('/rest/v1/targetgroups'), 400, ERR.param, 'q');
    expectError(await app.mgmt.get('/rest/v1/targetgroups/assigned'), 400, ERR.param, 'group');
    expectError(await app.mgmt.get(`/rest/v1/targetgroups/assigned?group=${p}&subgroups=maybe`), 400, ERR.param);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}/assigned`, { json: [] }), 400, ERR.body);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}/assigned`, { json: { controllerId: `${p}-x` } }), 400, ERR.body);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}/assigned`, { json: [[`${p}-x`]] }), 400, ERR.body);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/${p}/assigned`), 400, ERR.body);
    expectError(await app.mgmt.delete('/rest/v1/targetgroups/assigned'), 400, ERR.body);
    expectError(await app.mgmt.put(`/rest/v1/targetgroups/assigned?group=${'g'.repeat(257)}`, { json: [`${p}-x`] }), 400, 'hawkbit.server.error.repo.constraintViolation');
    expect((await app.mgmt.get(`/rest/v1/targetgroups/${p}/assigned?limit=five`)).status).toBe(400);
    expect(await groupOf(`${p}-x`)).toBe('before');
  });

  it('a bulk edit (group, tag) stamps the caller on the targets it changes, and leaves the others as they were', async () => {
    const p = uid('gra');
    const [a, b] = [`${p}-a`, `${p}-b`];
    await createTargets(app, [{ controllerId: a }, { controllerId: b, group: p }]);
    const audit = async (cid: string): Promise<{ lastModifiedBy: string; lastModifiedAt: number }> => {
      const { lastModifiedBy, lastModifiedAt } = (await app.mgmt.get(`/rest/v1/targets/${cid}`)).json();
      return { lastModifiedBy, lastModifiedAt };
    };
    const before = await audit(b);
    // b is in the group already: not written, so its audit fields stay
    expect((await app.anon.put(`/rest/v1/targetgroups/${p}/assigned`, { auth: EDITOR, json: [a, b] })).status).toBe(204);
    expect(await audit(a)).toMatchObject({ lastModifiedBy: 'editor' });
    expect(await audit(b)).toEqual(before);
    const tag = await createTag(app, uid('gra-tag'));
    expect((await app.anon.put(`/rest/v1/targettags/${tag.id}/assigned`, { auth: EDITOR, json: [b] })).status).toBe(204);
    const tagged = await audit(b);
    expect(tagged.lastModifiedBy).toBe('editor');
    expect(tagged.lastModifiedAt).toBeGreaterThanOrEqual(before.lastModifiedAt);
  });

  it('reading needs READ_TARGET, changing UPDATE_TARGET', async () => {
    const p = uid('grp');
    await createTargets(app, [{ controllerId: `${p}-r`, group: `${p}` }]);
    expect((await app.anon.get('/rest/v1/targetgroups', { auth: READER })).status).toBe(200);
    expect((await app.anon.get(`/rest/v1/targetgroups/${p}/assigned`, { auth: READER })).status).toBe(200);
    expectError(await app.anon.put(`/rest/v1/targetgroups/other/assigned`, { auth: READER, json: [`${p}-r`] }), 403, ERR.permission);
    expectError(await app.anon.delete('/rest/v1/targetgroups/assigned', { auth: READER, json: [`${p}-r`] }), 403, ERR.permission);
    expect((await app.anon.get('/rest/v1/targetgroups')).status).toBe(401);
    expect(await groupOf(`${p}-r`)).toBe(p);
  });
});
