/**
 * How Management replies are represented: null properties left out as hawkBit's NON_NULL models do
 * (target filters keep theirs: `Include.ALWAYS`), hal+json first when Accept allows anything, and
 * ETags with 304 on GETs.
 * @see issue 7, items 16, 17, 18
 */
import { describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../helpers/app.js';
import { completeSet, ROOT, smType, unique } from './repository/fixture.js';

/** Paths of every null found in a JSON value. */
function nullsIn(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => nullsIn(v, `${path}.${k}`));
}

async function getJson(app: App, path: string): Promise<unknown> {
  const res = await app.mgmt.get(path);
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.json();
}

describe.each(STORES)('Management representation, %s store', (kind) => {
  it('leaves null properties out of every entity, as hawkBit NON_NULL models do', async () => {
    const app = await startApp(kind);
    const set = await completeSet(app); // no descriptions, colours or vendors given
    const tag = await app.mgmt.post(`${ROOT}/distributionsettags`, { json: [{ name: unique('tag') }] });
    expect(tag.status).toBe(201);
    const ttag = await app.mgmt.post(`${ROOT}/targettags`, { json: [{ name: unique('ttag') }] });
    expect(ttag.status).toBe(201);
    const target = await app.mgmt.post(`${ROOT}/targets`, { json: [{ controllerId: 'nn-1', name: 'nn-1' }] });
    expect(target.status).toBe(201);
    const assigned = await app.mgmt.post(`${ROOT}/targets/nn-1/assignedDS`, { json: { id: set.ds.id } });
    expect(assigned.status).toBe(200);
    for (const body of [set.smType, set.module, set.dsType, set.ds, tag.json(), target.json(), assigned.json()]) {
      expect(nullsIn(body)).toEqual([]);
    }
    const paths = [
      `${ROOT}/targets`, `${ROOT}/targets/nn-1`, `${ROOT}/targets/nn-1/actions`, `${ROOT}/actions`, `${ROOT}/softwaremodules/${set.module.id}`,
      `${ROOT}/softwaremoduletypes/${set.smType.id}`, `${ROOT}/distributionsets/${set.ds.id}`, `${ROOT}/distributionsettypes/${set.dsType.id}`,
      `${ROOT}/distributionsettags`, `${ROOT}/targettags`, `${ROOT}/softwaremodules`, `${ROOT}/distributionsets`,
    ];
    for (const path of paths) expect(nullsIn(await getJson(app, path)), path).toEqual([]);
    const created = target.json()[0];
    expect(created).not.toHaveProperty('description');
    expect(set.smType).not.toHaveProperty('colour');
    expect(set.module).not.toHaveProperty('vendor');
  });

  it('keeps the nulls of target filters, whose hawkBit model writes every field', async () => {
    const app = await startApp(kind);
    const res = await app.mgmt.post(`${ROOT}/targetfilters`, { json: { name: unique('f'), query: 'name==x*' } });
    expect(res.status).toBe(201);
    const filter = res.json();
    expect(filter).toMatchObject({
      autoAssignDistributionSet: null, autoAssignActionType: null, autoAssignWeight: null, confirmationRequired: null,
    });
    const list = (await getJson(app, `${ROOT}/targetfilters`)) as { content: Record<string, unknown>[] };
    expect(list.content[0]).toHaveProperty('autoAssignWeight', null);
  });

  it('answers application/hal+json without Accept or with */*, application/json when asked for it', async () => {
    const app = await startApp(kind);
    for (const accept of [undefined, '*/*', 'application/*', 'application/hal+json', 'text/html, */*;q=0.1']) {
      const res = await app.mgmt.get(`${ROOT}/targets`, accept === undefined ? {} : { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type'), String(accept)).toBe('application/hal+json');
    }
    for (const accept of ['application/json', 'application/json, application/hal+json', 'application/hal+json;q=0.5, application/json']) {
      const res = await app.mgmt.get(`${ROOT}/targets`, { headers: { accept } });
      expect(res.headers.get('content-type'), accept).toBe('application/json');
    }
    expect((await app.mgmt.get(`${ROOT}/targets`, { headers: { accept: 'text/html' } })).status).toBe(406);
    // errors follow the same negotiation
    const missing = await app.mgmt.get(`${ROOT}/targets/nobody`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/hal+json');
  });

  it('tags Management GETs with an ETag and answers a matching If-None-Match with 304 until the resource changes', async () => {
    const app = await startApp(kind);
    const type = await smType(app);
    const path = `${ROOT}/softwaremoduletypes/${type.id}`;
    const first = await app.mgmt.get(path);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"0[0-9a-f]{16}"$/);
    expect((await app.mgmt.get(path)).headers.get('etag')).toBe(etag);
    const cached = await app.mgmt.get(path, { headers: { 'if-none-match': etag! } });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(cached.headers.get('etag')).toBe(etag);
    expect((await app.mgmt.get(path, { headers: { 'if-none-match': `"0000000000000000", W/${etag}` } })).status).toBe(304);
    expect((await app.mgmt.head(path, { headers: { 'if-none-match': etag! } })).status).toBe(304);
    // the tag is of the bytes, as Spring's ShallowEtagHeaderFilter makes it: the same text as application/json has it too
    expect((await app.mgmt.get(path, { headers: { accept: 'application/json' } })).headers.get('etag')).toBe(etag);
    // a change gives a new body and a new tag
    expect((await app.mgmt.put(path, { json: { description: 'changed' } })).status).toBe(200);
    const changed = await app.mgmt.get(path, { headers: { 'if-none-match': etag! } });
    expect(changed.status).toBe(200);
    expect(changed.json().description).toBe('changed');
    expect(changed.headers.get('etag')).not.toBe(etag);
    // lists too; writes and errors carry none
    const list = await app.mgmt.get(`${ROOT}/softwaremoduletypes`);
    expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes`, { headers: { 'if-none-match': list.headers.get('etag')! } })).status).toBe(304);
    expect((await app.mgmt.put(path, { json: { description: 'again' } })).headers.get('etag')).toBeNull();
    expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes/999999`)).headers.get('etag')).toBeNull();
  });
});
