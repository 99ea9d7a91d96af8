import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ROOT, completeSet, module, smType, unique, upload } from './fixture.js';

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxMetaDataEntriesPerSoftwareModule: 3 } });
  });

  it('creates, reads, updates and lists a module with the documented shape', async () => {
    const t = await smType(app);
    const name = unique('fw');
    const res = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name, version: '2.1', type: t.key.toUpperCase(), description: 'd', vendor: 'ACME', encrypted: false }] });
    expect(res.status).toBe(201);
    const [m] = res.json();
    const self = `${app.url}${ROOT}/softwaremodules/${m.id}`;
    expect(m).toMatchObject({
      name, version: '2.1', type: t.key, typeName: t.name, description: 'd', vendor: 'ACME', encrypted: false, locked: false, deleted: false, createdBy: 'admin',
    });
    expect(m._links).toEqual({
      self: { href: self },
      artifacts: { href: `${self}/artifacts` },
      type: { href: `${app.url}${ROOT}/softwaremoduletypes/${t.id}` },
      metadata: { href: `${self}/metadata?offset=0&limit=50` },
    });
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}`)).json()).toEqual(m);

    const put = await app.mgmt.put(`${ROOT}/softwaremodules/${m.id}`, { json: { description: 'new', vendor: 'Other', locked: true, name: 'ignored' } });
    expect(put.status).toBe(200);
    expect(put.json()).toMatchObject({ name, description: 'new', vendor: 'Other', locked: true });
    // unlocking is allowed (the spec only advises against it)
    expect((await app.mgmt.put(`${ROOT}/softwaremodules/${m.id}`, { json: { locked: false } })).json().locked).toBe(false);

    const byType = (await app.mgmt.get(`${ROOT}/softwaremodules?q=type==${t.key}`)).json();
    expect(byType).toMatchObject({ total: 1, size: 1, content: [{ id: m.id }] });
    expect((await app.mgmt.get(`${ROOT}/softwaremodules?q=type.name==${encodeURIComponent(t.name)};version==2.1`)).json().total).toBe(1);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules?q=name==${name.slice(0, 6)}*&sort=name:DESC`)).json().total).toBeGreaterThanOrEqual(1);
  });

  it.each([
    [[{ version: '1', type: 'x' }], 'body[0].name'],
    [[{ name: 'n', type: 'x' }], 'body[0].version'],
    [[{ name: 'n', version: '1' }], 'body[0].type'],
    [[{ name: 'n', version: 'v'.repeat(65), type: 'x' }], 'body[0].version'],
    [[{ name: 'n', version: '1', type: 'x', vendor: 'v'.repeat(257) }], 'body[0].vendor'],
    [[{ name: 'n', version: '1', type: 'x', encrypted: 'yes' }], 'body[0].encrypted'],
  ])('refuses %j naming %s', async (body, field) => {
    const res = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: body });
    expect(res.status).toBe(400);
    expect(res.json().message).toContain(field);
  });

  it('refuses encrypted: true with 400 encryptionNotSupported and creates nothing (issue 7 item 5)', async () => {
    const t = await smType(app);
    const name = unique('enc');
    const body = [{ name: `${name}-a`, version: '1', type: t.key }, { name: `${name}-b`, version: '1', type: t.key, encrypted: true }];
    const res = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: body });
    expect(res.status, res.text).toBe(400);
    expect(res.json()).toMatchObject({
      errorCode: 'hawkbit.server.error.artifact.encryptionNotSupported',
      exceptionClass: 'org.eclipse.hawkbit.artifact.exception.ArtifactEncryptionUnsupportedException',
    });
    expect(res.json().message).toContain('body[1].encrypted');
    expect((await app.mgmt.get(`${ROOT}/softwaremodules?q=name==${name}*`)).json().total).toBe(0);
    // false (or absent) is what peregrine serves: artifacts in clear
    const plain = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ ...body[1], encrypted: false }] });
    expect(plain.status).toBe(201);
    expect(plain.json()[0].encrypted).toBe(false);
  });

  it('answers 404 naming an unknown type key, as hawkBit does', async () => {
    const res = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name: 'n', version: '1', type: 'no-such-type-key' }] });
    expect(res.status).toBe(404);
    expect(res.json().errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
    expect(res.json().message).toContain('no-such-type-key');
  });

  it('answers 409 for the same name, version and type', async () => {
    const t = await smType(app);
    const other = await smType(app);
    const m = await module(app, t.key);
    const dup = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name: m.name.toUpperCase(), version: m.version, type: t.key }] });
    expect(dup.status).toBe(409);
    expect((await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name: m.name, version: m.version, type: other.key }] })).status).toBe(201);
    expect((await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name: m.name, version: '9', type: t.key }] })).status).toBe(201);
  });

  it('hard-deletes an unassigned module with its artifacts and their content', async () => {
    const t = await smType(app);
    const m = await module(app, t.key);
    const up = await upload(app, m.id, [{ name: 'file', filename: 'a.bin', content: Buffer.from(unique('content')) }]);
    expect(up.status).toBe(201);
    const artifact = up.json();
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${m.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}`)).status).toBe(404);
    expect(await app.store.get(app.tenant, 'artifact', artifact.id)).toBeUndefined();
    expect(await app.store.count(app.tenant, 'artifact', 'sha1', artifact.hashes.sha1)).toBe(0);
    await expect(app.server.server.store.count(app.tenant, 'sm', 'type', String(t.id))).resolves.toBe(0);
  });

  it('soft-deletes a module a set holds: readable, hidden from lists, still in the set, no more changes', async () => {
    const { module: m, ds } = await completeSet(app);
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${m.id}`)).status).toBe(204);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}`)).json()).toMatchObject({ id: m.id, deleted: true });
    expect((await app.mgmt.get(`${ROOT}/softwaremodules?q=id==${m.id}`)).json().total).toBe(0);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules?q=id==${m.id}&soft_deleted_mode=INCLUDE_SOFT_DELETED`)).json().total).toBe(1);
    expect((await app.mgmt.get(`${ROOT}/distributionsets/${ds.id}`)).json().modules[0]).toMatchObject({ id: m.id, deleted: true });
    const put = await app.mgmt.put(`${ROOT}/softwaremodules/${m.id}`, { json: { description: 'x' } });
    expect(put.status).toBe(404);
    expect(put.json().errorCode).toBe('hawkbit.server.error.deleted');
    // the name, version and type are free again
    expect((await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name: m.name, version: m.version, type: m.type }] })).status).toBe(201);
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${m.id}`)).status).toBe(204);
  });

  describe('metadata', () => {
    it('creates (201 with the entries), lists, reads, updates (204) and deletes (204) entries', async () => {
      const t = await smType(app);
      const m = await module(app, t.key);
      const base = `${ROOT}/softwaremodules/${m.id}/metadata`;
      const res = await app.mgmt.post(base, { json: [{ key: 'k1', value: 'v1', targetVisible: true }, { key: 'k2', value: 'v2' }] });
      expect(res.status).toBe(201);
      expect(res.json()).toEqual([{ key: 'k1', value: 'v1', targetVisible: true }, { key: 'k2', value: 'v2', targetVisible: false }]);
      expect((await app.mgmt.get(base)).json()).toEqual({
        content: [{ key: 'k1', value: 'v1', targetVisible: true }, { key: 'k2', value: 'v2', targetVisible: false }], total: 2, size: 2,
      });
      expect((await app.mgmt.get(`${base}?q=targetvisible==true`)).json().total).toBe(1);
      expect((await app.mgmt.get(`${base}?limit=1&sort=key:DESC`)).json()).toMatchObject({ total: 2, size: 1, content: [{ key: 'k2' }] });
      expect((await app.mgmt.get(`${base}/k1`)).json()).toEqual({ key: 'k1', value: 'v1', targetVisible: true });
      const put = await app.mgmt.put(`${base}/k2`, { json: { value: 'changed', targetVisible: true } });
      expect(put.status).toBe(200);
      expect(put.json()).toEqual({ key: 'k2', value: 'changed', targetVisible: true });
      expect((await app.mgmt.get(`${base}/k2`)).json()).toEqual({ key: 'k2', value: 'changed', targetVisible: true });
      expect((await app.mgmt.delete(`${base}/k1`)).status).toBe(204);
      expect((await app.mgmt.get(`${base}/k1`)).status).toBe(404);
      expect((await app.mgmt.put(`${base}/k1`, { json: { value: 'x' } })).status).toBe(404);
      expect((await app.mgmt.delete(`${base}/k1`)).status).toBe(404);
      expect((await app.mgmt.get(`${ROOT}/softwaremodules?q=metadata.k2==changed;id==${m.id}`)).json().total).toBe(1);
    });

    it('refuses duplicates (409), too many entries (403) and bad entries (400)', async () => {
      const t = await smType(app);
      const m = await module(app, t.key);
      const base = `${ROOT}/softwaremodules/${m.id}/metadata`;
      expect((await app.mgmt.post(base, { json: [{ key: 'a', value: '1' }] })).status).toBe(201);
      expect((await app.mgmt.post(base, { json: [{ key: 'a', value: '2' }] })).status).toBe(409);
      expect((await app.mgmt.post(base, { json: [{ key: 'b', value: '1' }, { key: 'b', value: '2' }] })).status).toBe(409);
      const quota = await app.mgmt.post(base, { json: [{ key: 'b' }, { key: 'c' }, { key: 'd' }] });
      expect(quota.status).toBe(403);
      expect(quota.json().errorCode).toBe('hawkbit.server.error.quota.tooManyEntries');
      expect((await app.mgmt.get(base)).json().total).toBe(1);
      const noKey = await app.mgmt.post(base, { json: [{ value: 'x' }] });
      expect(noKey.status).toBe(400);
      expect(noKey.json().message).toContain('body[0].key');
      expect((await app.mgmt.post(base, { json: [{ key: 'k'.repeat(129), value: 'x' }] })).status).toBe(400);
      expect((await app.mgmt.post(base, { json: [{ key: 'long', value: 'v'.repeat(4001) }] })).status).toBe(400);
      expect((await app.mgmt.post(`${ROOT}/softwaremodules/999999/metadata`, { json: [{ key: 'x', value: 'y' }] })).status).toBe(404);
    });
  });
});
