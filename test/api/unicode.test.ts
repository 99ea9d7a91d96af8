/**
 * Ill-formed Unicode (a lone UTF-16 surrogate, which JSON's `\udfff` escape can carry): refused in
 * every body string and identifier at the edge; a record that holds one from before (seeded here
 * straight into the store) renders everywhere and can be deleted through its own link.
 * @see issue 7, item 19
 */
import { describe, expect, it } from 'vitest';
import { STORES } from '../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../helpers/seed.js';
import { startDdiApp } from './ddi/fixture.js';

const LONE = 'sur\udfffx';
const BAD_BODY = 'hawkbit.server.error.rest.body.notReadable';

describe.each(STORES)('ill-formed Unicode, %s store', (kind) => {
  it('refuses lone surrogates in Management and DDI bodies and in DDI controller ids with 400', async () => {
    const app = await startDdiApp(kind);
    const bodies: [string, string, string][] = [
      ['POST', '/rest/v1/targets', `[{"controllerId":"sur\\udfffx","name":"n"}]`],
      ['POST', '/rest/v1/targets', `[{"controllerId":"ok-1","name":"bad \\ud800 name"}]`],
      ['POST', '/rest/v1/targettags', `[{"name":"t","description":"\\udc00"}]`],
      ['POST', '/rest/v1/softwaremoduletypes', `[{"key":"k","name":"n","maxAssignments":1,"\\ud83d":"key"}]`],
    ];
    for (const [method, path, body] of bodies) {
      const res = await app.mgmt.request(method, path, { body, headers: { 'content-type': 'application/json' } });
      expect(res.status, body).toBe(400);
      expect(res.json().errorCode).toBe(BAD_BODY);
      expect(res.json().message).toMatch(/is not well-formed Unicode/);
    }
    expect((await app.mgmt.get('/rest/v1/targets/ok-1')).status).toBe(404);
    // a surrogate pair (an emoji) is well-formed and welcome
    expect((await app.mgmt.post('/rest/v1/targets', { json: [{ controllerId: 'dev-\u{1F680}', name: 'rocket \u{1F680}' }] })).status).toBe(201);
    expect((await app.mgmt.get(`/rest/v1/targets/${encodeURIComponent('dev-\u{1F680}')}`)).json().name).toBe('rocket \u{1F680}');

    const dev = app.device('ddi-dev');
    expect((await dev.get()).status).toBe(200);
    const config = await dev.put('/configData', { body: '{"data":{"k":"v\\udfff"}}', headers: { 'content-type': 'application/json' } });
    expect(config.status).toBe(400);
    expect(config.json().message).toContain('body.data.k: is not well-formed Unicode');
    // the surrogate's WTF-8 bytes in a DDI path name no device that may register
    const poll = await app.anon.get(`${app.ddi}/sur%ED%BF%BFx`, { headers: { authorization: 'GatewayToken gw-0123456789abcdef' } });
    expect(poll.status).toBe(400);
    expect((await app.mgmt.get('/rest/v1/targets?q=controllerId==sur*')).json().total).toBe(0);
  });

  it('renders a stored target with a lone surrogate in its id in every list, and deletes it through its own link', async () => {
    const app = await startDdiApp(kind);
    const tag = await app.mgmt.post('/rest/v1/targettags', { json: [{ name: 'lone-tag' }] });
    expect(tag.status).toBe(201);
    const tagId = tag.json()[0].id as number;
    const { ds } = await seedDistributionSet(app);
    await seedTarget(app, LONE, { tags: [tagId], updateStatus: 'registered' });

    const list = await app.mgmt.get('/rest/v1/targets');
    expect(list.status).toBe(200);
    const self = list.json().content.find((t: { name: string }) => t.name === LONE)?._links.self.href as string;
    expect(self).toBe(`${app.url}/rest/v1/targets/sur%ED%BF%BFx`);
    const path = self.slice(app.url.length);
    expect((await app.mgmt.get(path)).json().controllerId).toBe(LONE);
    const assigned = await app.mgmt.post(`${path}/assignedDS`, { json: { id: ds.id } });
    expect(assigned.status).toBe(200);

    for (const listing of ['/rest/v1/targets', '/rest/v1/actions', `/rest/v1/distributionsets/${ds.id}/assignedTargets`,
      `/rest/v1/targettags/${tagId}/assigned`, `${path}/actions`]) {
      const res = await app.mgmt.get(listing);
      expect(res.status, listing).toBe(200);
      expect(res.text, listing).toContain('sur%ED%BF%BFx');
    }
    const deleted = await app.mgmt.delete(path);
    expect(deleted.status).toBe(204);
    expect((await app.mgmt.get(path)).status).toBe(404);
    expect((await app.mgmt.get('/rest/v1/targets')).json().content.some((t: { name: string }) => t.name === LONE)).toBe(false);
    // other broken encodings in paths are still refused
    expect((await app.mgmt.get('/rest/v1/targets/sur%ED%BFx')).status).toBe(400);
    expect((await app.mgmt.get('/rest/v1/targets/%C0%AF')).status).toBe(400);
  });
});
