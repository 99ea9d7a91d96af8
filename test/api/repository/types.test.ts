import { beforeAll, describe, expect, it } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ROOT, completeSet, dsType, module, smType, unique } from './fixture.js';

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxSoftwareModuleTypesPerDistributionSetType: 3 } });
  });

  describe('software module types', () => {
    it('creates, reads, updates, lists and deletes a type with the documented shape', async () => {
      const key = unique('os');
      const res = await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: [{ key, name: `${key} name`, description: 'd', colour: '#fff', maxAssignments: 2 }] });
      expect(res.status).toBe(201);
      const [t] = res.json();
      expect(t).toMatchObject({ key, name: `${key} name`, description: 'd', colour: '#fff', maxAssignments: 2, deleted: false, createdBy: 'admin', lastModifiedBy: 'admin' });
      expect(typeof t.id).toBe('number');
      expect(typeof t.createdAt).toBe('number');
      expect(t._links).toEqual({ self: { href: `${app.url}${ROOT}/softwaremoduletypes/${t.id}` } });

      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes/${t.id}`)).json()).toEqual(t);
      const put = await app.mgmt.put(`${ROOT}/softwaremoduletypes/${t.id}`, { json: { description: 'new', colour: 'red', name: 'ignored' } });
      expect(put.status).toBe(200);
      expect(put.json()).toMatchObject({ description: 'new', colour: 'red', name: `${key} name` });

      const list = (await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=key==${key}`)).json();
      expect(list).toMatchObject({ total: 1, size: 1, content: [{ id: t.id, description: 'new' }] });

      expect((await app.mgmt.delete(`${ROOT}/softwaremoduletypes/${t.id}`)).status).toBe(204);
      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes/${t.id}`)).status).toBe(404);
    });

    it('defaults maxAssignments to 1 and accepts a single object for the array', async () => {
      const key = unique('app');
      const res = await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: { key, name: key } });
      expect(res.status).toBe(201);
      expect(res.json()[0].maxAssignments).toBe(1);
    });

    it.each([
      [[{ name: 'x' }], 'body[0].key'],
      [[{ key: 'x' }], 'body[0].name'],
      [[{ key: 'k', name: [5] }], 'body[0].name'],
      [[{ key: 'k', name: 'x'.repeat(129) }], 'body[0].name'],
      [[{ key: 'k'.repeat(65), name: 'x' }], 'body[0].key'],
      [[{ key: 'k', name: 'x', colour: 'c'.repeat(17) }], 'body[0].colour'],
      [[{ key: 'k', name: 'x', description: 'd'.repeat(513) }], 'body[0].description'],
      [[{ key: 'k', name: 'x', maxAssignments: 0 }], 'body[0].maxAssignments'],
      [[{ key: 'k', name: 'x', maxAssignments: 'one' }], 'body[0].maxAssignments'],
      [[{ key: 'k', name: 'x', minArtifacts: -1 }], 'body[0].minArtifacts'],
      [[{ key: 'k', name: 'x', minArtifacts: 'two' }], 'body[0].minArtifacts'],
      [[{ key: 'k', name: 'x', minArtifacts: true }], 'body[0].minArtifacts'],
      [[{ key: '   ', name: 'x' }], 'body[0].key'],
    ])('refuses bad input %j naming %s', async (body, field) => {
      const res = await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: body });
      expect(res.status).toBe(400);
      expect(res.json().errorCode).toBe('hawkbit.server.error.rest.body.notReadable');
      expect(res.json().message).toContain(field);
    });

    it('answers 409 for a taken key or name, also within one request', async () => {
      const t = await smType(app);
      const dupKey = await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: [{ key: t.key.toUpperCase(), name: unique('n') }] });
      expect(dupKey.status).toBe(409);
      expect(dupKey.json().errorCode).toBe('hawkbit.server.error.repo.entityAlreadyExists');
      expect((await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: [{ key: unique('k'), name: t.name }] })).status).toBe(409);
      const k = unique('twice');
      const both = await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: [{ key: k, name: `${k}1` }, { key: k, name: `${k}2` }] });
      expect(both.status).toBe(409);
      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=key==${k}`)).json().total).toBe(0);
    });

    it('soft-deletes a type a module uses: hidden from lists, readable, unusable for new modules', async () => {
      const t = await smType(app);
      await module(app, t.key);
      expect((await app.mgmt.delete(`${ROOT}/softwaremoduletypes/${t.id}`)).status).toBe(204);
      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes/${t.id}`)).json()).toMatchObject({ id: t.id, deleted: true });
      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=id==${t.id}`)).json().total).toBe(0);
      const withDeleted = await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=id==${t.id}&soft_deleted_mode=INCLUDE_SOFT_DELETED`);
      expect(withDeleted.json().total).toBe(1);
      const res = await app.mgmt.post(`${ROOT}/softwaremodules`, { json: [{ name: unique('m'), version: '1', type: t.key }] });
      expect(res.status).toBe(404);
      expect(res.json().message).toContain(t.key);
      // the key is free again
      expect((await app.mgmt.post(`${ROOT}/softwaremoduletypes`, { json: [{ key: t.key, name: unique('again') }] })).status).toBe(201);
    });

    it('filters and sorts on the documented fields, refusing unknown ones', async () => {
      const a = await smType(app, { maxAssignments: 7, description: 'zzz-sort' });
      const b = await smType(app, { maxAssignments: 7, description: 'zzz-sort' });
      const page = (await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=maxassignments==7;description==zzz-sort&sort=id:DESC`)).json();
      expect(page.content.map((t: { id: number }) => t.id)).toEqual([b.id, a.id]);
      const paged = (await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=description==zzz-sort&limit=1&offset=1`)).json();
      expect(paged).toMatchObject({ total: 2, size: 1, content: [{ id: b.id }] });
      const badField = await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=colourx==1`);
      expect(badField.status).toBe(400);
      expect(badField.json().errorCode).toBe('hawkbit.server.error.rest.param.rsqlInvalidField');
      const badSyntax = await app.mgmt.get(`${ROOT}/softwaremoduletypes?q=${encodeURIComponent('name==(')}`);
      expect(badSyntax.json().errorCode).toBe('hawkbit.server.error.rest.param.rsqlParamSyntax');
      const badSort = await app.mgmt.get(`${ROOT}/softwaremoduletypes?sort=nope:ASC`);
      expect(badSort.status).toBe(400);
      expect(badSort.json().errorCode).toBe('hawkbit.server.error.rest.param.invalidField');
      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes?soft_deleted_mode=SOMETIMES`)).status).toBe(400);
    });

    it('answers 404 for unknown ids and 400 for ids that are not numbers', async () => {
      const res = await app.mgmt.get(`${ROOT}/softwaremoduletypes/999999`);
      expect(res.status).toBe(404);
      expect(res.json().errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
      expect((await app.mgmt.get(`${ROOT}/softwaremoduletypes/abc`)).status).toBe(400);
      expect((await app.mgmt.put(`${ROOT}/softwaremoduletypes/999999`, { json: { description: 'x' } })).status).toBe(404);
      expect((await app.mgmt.delete(`${ROOT}/softwaremoduletypes/999999`)).status).toBe(404);
    });
  });

  describe('distribution set types', () => {
    it('creates a type with module types and reads it with the documented shape', async () => {
      const os = await smType(app);
      const appType = await smType(app, { maxAssignments: 5 });
      const key = unique('fw');
      const res = await app.mgmt.post(`${ROOT}/distributionsettypes`, {
        json: [{ key, name: key, description: 'fw', colour: 'blue', mandatorymodules: [{ id: os.id }], optionalmodules: [{ id: appType.id }] }],
      });
      expect(res.status).toBe(201);
      const [t] = res.json();
      const self = `${app.url}${ROOT}/distributionsettypes/${t.id}`;
      expect(t).toMatchObject({ key, name: key, description: 'fw', colour: 'blue', deleted: false, createdBy: 'admin' });
      expect(t._links).toEqual({
        self: { href: self }, mandatorymodules: { href: `${self}/mandatorymoduletypes` }, optionalmodules: { href: `${self}/optionalmoduletypes` },
      });
      const mandatory = (await app.mgmt.get(`${ROOT}/distributionsettypes/${t.id}/mandatorymoduletypes`)).json();
      expect(mandatory.map((m: { id: number }) => m.id)).toEqual([os.id]);
      const optional = (await app.mgmt.get(`${ROOT}/distributionsettypes/${t.id}/optionalmoduletypes`)).json();
      expect(optional.map((m: { key: string }) => m.key)).toEqual([appType.key]);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes/${t.id}/mandatorymoduletypes/${os.id}`)).json().key).toBe(os.key);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes/${t.id}/mandatorymoduletypes/${appType.id}`)).status).toBe(404);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes/${t.id}/optionalmoduletypes/${appType.id}`)).status).toBe(200);

      const put = await app.mgmt.put(`${ROOT}/distributionsettypes/${t.id}`, { json: { description: 'changed', colour: null } });
      expect(put.json()).toMatchObject({ description: 'changed', colour: 'blue' });
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes?q=key==${key}`)).json().total).toBe(1);
    });

    it('adds and removes module types until a set uses the type, then answers 403 read-only', async () => {
      const os = await smType(app);
      const extra = await smType(app);
      const t = await dsType(app, []);
      const base = `${ROOT}/distributionsettypes/${t.id}`;
      expect((await app.mgmt.post(`${base}/optionalmoduletypes`, { json: { id: extra.id } })).status).toBe(204);
      expect((await app.mgmt.post(`${base}/mandatorymoduletypes`, { json: { id: os.id } })).status).toBe(204);
      // moving a type to the other list
      expect((await app.mgmt.post(`${base}/mandatorymoduletypes`, { json: { id: extra.id } })).status).toBe(204);
      expect((await app.mgmt.get(`${base}/optionalmoduletypes`)).json()).toEqual([]);
      expect((await app.mgmt.delete(`${base}/mandatorymoduletypes/${extra.id}`)).status).toBe(204);
      expect((await app.mgmt.get(`${base}/mandatorymoduletypes`)).json().map((m: { id: number }) => m.id)).toEqual([os.id]);
      expect((await app.mgmt.post(`${base}/mandatorymoduletypes`, { json: { id: 999999 } })).status).toBe(404);

      const m = await module(app, os.key);
      const set = await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: unique('ds'), version: '1', type: t.key, modules: [{ id: m.id }] }] });
      expect(set.status).toBe(201);
      const frozen = await app.mgmt.post(`${base}/optionalmoduletypes`, { json: { id: extra.id } });
      expect(frozen.status).toBe(403);
      expect(frozen.json().errorCode).toBe('hawkbit.server.error.entityReadOnly');
      expect((await app.mgmt.delete(`${base}/mandatorymoduletypes/${os.id}`)).status).toBe(403);
    });

    it('caps the module types of a set type by quota (403)', async () => {
      const types = await Promise.all([smType(app), smType(app), smType(app), smType(app)]);
      const res = await app.mgmt.post(`${ROOT}/distributionsettypes`, {
        json: [{ key: unique('q'), name: unique('q'), mandatorymodules: types.map((t) => ({ id: t.id })) }],
      });
      expect(res.status).toBe(403);
      expect(res.json().errorCode).toBe('hawkbit.server.error.quota.tooManyEntries');
      const t = await dsType(app, types.slice(0, 3).map((x) => x.id));
      const more = await app.mgmt.post(`${ROOT}/distributionsettypes/${t.id}/optionalmoduletypes`, { json: [{ id: types[3].id }] });
      expect(more.status).toBe(403);
    });

    it('refuses bad input and duplicates', async () => {
      const t = await dsType(app, []);
      expect((await app.mgmt.post(`${ROOT}/distributionsettypes`, { json: [{ key: t.key, name: unique('n') }] })).status).toBe(409);
      const noKey = await app.mgmt.post(`${ROOT}/distributionsettypes`, { json: [{ name: unique('n') }] });
      expect(noKey.status).toBe(400);
      expect(noKey.json().message).toContain('body[0].key');
      const badModules = await app.mgmt.post(`${ROOT}/distributionsettypes`, { json: [{ key: unique('k'), name: unique('n'), mandatorymodules: [{ id: 'x' }] }] });
      expect(badModules.status).toBe(400);
      expect(badModules.json().message).toContain('body[0].mandatorymodules[0].id');
      const unknownModuleType = await app.mgmt.post(`${ROOT}/distributionsettypes`, { json: [{ key: unique('k'), name: unique('n'), optionalmodules: [{ id: 987654 }] }] });
      expect(unknownModuleType.status).toBe(404);
    });

    it('soft-deletes a type in use and hard-deletes an unused one', async () => {
      const { dsType: used } = await completeSet(app);
      expect((await app.mgmt.delete(`${ROOT}/distributionsettypes/${used.id}`)).status).toBe(204);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes/${used.id}`)).json().deleted).toBe(true);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes?q=id==${used.id}`)).json().total).toBe(0);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes?q=id==${used.id}&soft_deleted_mode=ONLY_SOFT_DELETED`)).json().total).toBe(1);
      const create = await app.mgmt.post(`${ROOT}/distributionsets`, { json: [{ name: unique('ds'), version: '1', type: used.key }] });
      expect(create.status).toBe(404);

      const unused = await dsType(app, []);
      expect((await app.mgmt.delete(`${ROOT}/distributionsettypes/${unused.id}`)).status).toBe(204);
      expect((await app.mgmt.get(`${ROOT}/distributionsettypes/${unused.id}`)).status).toBe(404);
    });
  });
});
