import { describe, expect, it } from 'vitest';
import { ACTION_STATUS, type ActionStatusRecord } from '../../../src/domain/action.js';
import { STORES } from '../../helpers/app.js';
import { seedDistributionSet, seedTarget } from '../../helpers/seed.js';
import { assign, startDdiApp, targetOf, type DdiApp } from './fixture.js';

async function downloadEntries(app: DdiApp, actionId: number): Promise<number> {
  const page = await app.store.members(app.tenant, ACTION_STATUS, 'action', String(actionId), { offset: 0, limit: 1000 });
  return (await app.store.getMany<ActionStatusRecord>(app.tenant, ACTION_STATUS, page.ids)).filter((e) => e?.value.type === 'download').length;
}

describe.each(STORES)('DDI device data, %s store', (kind) => {
  describe('configData', () => {
    it('merges, replaces and removes attributes and clears the attribute request', async () => {
      const app = await startDdiApp(kind);
      const dev = app.device('cfg-1');
      expect((await dev.get()).json()._links.configData).toBeDefined();
      expect((await dev.put('/configData', { json: { data: { hw: 'rev2', serial: 42, ok: true } } })).status).toBe(200);
      const t1 = await targetOf(app, 'cfg-1');
      expect(t1.attributes).toEqual({ hw: 'rev2', serial: '42', ok: 'true' });
      expect(t1.requestAttributes).toBe(false);
      expect((await dev.get()).json()._links).toBeUndefined();

      await dev.put('/configData', { json: { mode: 'merge', data: { hw: null, fw: '1.2' }, id: 'x', time: '20240101T000000', status: {} } });
      expect((await targetOf(app, 'cfg-1')).attributes).toEqual({ serial: '42', ok: 'true', fw: '1.2' });
      await dev.put('/configData', { json: { mode: 'replace', data: { only: 'this' } } });
      expect((await targetOf(app, 'cfg-1')).attributes).toEqual({ only: 'this' });
      await dev.put('/configData', { json: { mode: 'remove', data: { only: '' } } });
      expect((await targetOf(app, 'cfg-1')).attributes).toEqual({});
    });

    it('refuses bad bodies with 400 and growth beyond maxAttributeEntriesPerTarget with 403', async () => {
      const app = await startDdiApp(kind, { quotas: { maxAttributeEntriesPerTarget: 3 } });
      const dev = app.device('cfg-2');
      await dev.get();
      const bad: [unknown, string, string][] = [
        [{ data: {} }, 'hawkbit.server.error.rest.body.notReadable', 'body.data: must not be empty'],
        [{}, 'hawkbit.server.error.rest.body.notReadable', 'body.data: required'],
        [{ mode: 'append', data: { a: 'b' } }, 'hawkbit.server.error.rest.body.notReadable', 'body.mode: must be one of'],
        [{ data: { a: ['x'] } }, 'hawkbit.server.error.rest.body.notReadable', 'body.data.a'],
        [{ data: { ['k'.repeat(129)]: 'v' } }, 'hawkbit.server.error.repo.invalidTargetAttributes', 'key must be 1-128 characters'],
        [{ data: { k: 'v'.repeat(129) } }, 'hawkbit.server.error.repo.invalidTargetAttributes', 'at most 128 characters'],
        [{ data: { k: 'line\nbreak' } }, 'hawkbit.server.error.repo.invalidTargetAttributes', 'control character'],
      ];
      for (const [json, code, message] of bad) {
        const res = await dev.put('/configData', { json });
        expect(res.status, JSON.stringify(json)).toBe(400);
        expect(res.json().errorCode).toBe(code);
        expect(res.json().message).toContain(message);
      }
      expect((await dev.put('/configData', { json: { data: { a: '1', b: '2', c: '3' } } })).status).toBe(200);
      const over = await dev.put('/configData', { json: { data: { d: '4' } } });
      expect(over.status).toBe(403);
      expect(over.json().errorCode).toBe('hawkbit.server.error.quota.tooManyEntries');
      expect((await targetOf(app, 'cfg-2')).attributes).toEqual({ a: '1', b: '2', c: '3' });
      // replacing within the quota is fine
      expect((await dev.put('/configData', { json: { mode: 'replace', data: { d: '4' } } })).status).toBe(200);
      // unknown target
      expect((await app.device('cfg-nobody').put('/configData', { json: { data: { a: '1' } } })).status).toBe(404);
    });
  });

  describe('set running version (PUT installedBase)', () => {
    it('records the reported DS as installed: 201, then 200; 404 for an unknown DS', async () => {
      const app = await startDdiApp(kind);
      const dev = app.device('srv-1');
      await dev.get();
      const { ds } = await seedDistributionSet(app, { name: 'Firmware', version: '2.0' });
      expect((await dev.put('/installedBase', { json: { name: 'firmware', version: '2.0' } })).status).toBe(201);
      const t = await targetOf(app, 'srv-1');
      expect(t).toMatchObject({ updateStatus: 'in_sync', installedDs: ds.id, assignedDs: ds.id });
      expect((await dev.get()).json()._links.installedBase.href).toContain(`/installedBase/${t.installedAction}`);
      expect((await dev.get(`/installedBase/${t.installedAction}`)).json().id).toBe(String(t.installedAction));
      expect((await dev.put('/installedBase', { json: { name: 'Firmware', version: '2.0' } })).status).toBe(200);
      const unknown = await dev.put('/installedBase', { json: { name: 'Firmware', version: '9.9' } });
      expect(unknown.status).toBe(404);
      expect((await dev.put('/installedBase', { json: { name: 'Firmware' } })).json().message).toContain('body.version');
      expect((await app.device('srv-nobody').put('/installedBase', { json: { name: 'Firmware', version: '2.0' } })).status).toBe(404);
    });
  });

  describe('artifacts', () => {
    it('serves only modules of the target\'s open actions and answers range, precondition and lookup errors', async () => {
      const app = await startDdiApp(kind);
      const dev = app.device('art-1');
      await dev.get();
      const seeded = await seedDistributionSet(app, { artifacts: [{ filename: 'a b.bin' }, { filename: 'image.bin' }] });
      const other = await seedDistributionSet(app);
      const path = `/softwaremodules/${seeded.module.id}/artifacts`;
      expect((await dev.get(path)).status).toBe(404); // nothing assigned yet
      expect((await dev.get(`${path}/image.bin`)).status).toBe(404);
      const actionId = await assign(app, 'art-1', seeded.ds.id);

      const list = await dev.get(path);
      expect(list.status).toBe(200);
      expect(list.json().map((a: { filename: string }) => a.filename)).toEqual(['a b.bin', 'image.bin']);
      expect(list.json()[0]._links['download-http'].href).toBe(`${app.url}${dev.base}${path}/a%20b.bin`);
      expect((await dev.get(`/softwaremodules/${other.module.id}/artifacts`)).status).toBe(404);
      expect((await dev.get(`/softwaremodules/${other.module.id}/artifacts/image.bin`)).status).toBe(404);
      expect((await dev.get('/softwaremodules/x/artifacts')).status).toBe(400);
      expect((await dev.get(`${path}/missing.bin`)).json().errorCode).toBe('hawkbit.server.error.repo.entityNotFound');
      expect((await dev.get(`${path}/missing.bin.MD5SUM`)).status).toBe(404);
      // another target may not fetch this target's artifacts
      await app.device('art-2').get();
      expect((await app.device('art-2').get(`${path}/image.bin`)).status).toBe(404);

      const size = seeded.artifacts[1]!.content.length;
      const past = await dev.get(`${path}/image.bin`, { headers: { range: `bytes=${size}-${size + 10}` } });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe(`bytes */${size}`);
      expect(past.json().errorCode).toBe('hawkbit.server.error.rest.range.notSatisfiable');
      const malformed = await dev.get(`${path}/image.bin`, { headers: { range: 'bytes=abc' } });
      expect(malformed.status).toBe(416);
      expect(malformed.json().message).toContain('not of the form');
      expect((await dev.get(`${path}/image.bin`, { headers: { 'if-match': '"nope"' } })).status).toBe(412);
      const sha1 = seeded.artifacts[1]!.record.hashes.sha1;
      expect((await dev.get(`${path}/image.bin`, { headers: { 'if-none-match': `"${sha1}"` } })).status).toBe(304);
      const head = await dev.head(`${path}/image.bin`);
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(size));
      expect(head.headers.get('etag')).toBe(`"${sha1}"`);
      expect(head.text).toBe('');
      // none of the above was a complete download
      expect(await downloadEntries(app, actionId)).toBe(0);
      const spaced = await dev.get(`${path}/a%20b.bin`);
      expect(spaced.status).toBe(200);
      expect(spaced.headers.get('content-disposition')).toBe('attachment;filename="a b.bin"');
      expect(await downloadEntries(app, actionId)).toBe(1);
      // If-Range naming another version: the whole file (a complete download) instead of the range
      const stale = await dev.get(`${path}/image.bin`, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
      expect(stale.status).toBe(200);
      expect(stale.headers.get('content-length')).toBe(String(size));
      const fresh = await dev.get(`${path}/image.bin`, { headers: { range: 'bytes=0-9', 'if-range': `"${sha1}"` } });
      expect(fresh.status).toBe(206);
      expect(await downloadEntries(app, actionId)).toBe(2);
    });

    it('answers 404 for a target without any action and for a canceling action\'s modules', async () => {
      const app = await startDdiApp(kind);
      await seedTarget(app, 'art-3', { updateStatus: 'registered' });
      const first = await seedDistributionSet(app);
      const second = await seedDistributionSet(app);
      await assign(app, 'art-3', first.ds.id);
      await assign(app, 'art-3', second.ds.id); // the first action is now canceling
      const dev = app.device('art-3');
      expect((await dev.get(`/softwaremodules/${first.module.id}/artifacts/image.bin`)).status).toBe(404);
      expect((await dev.get(`/softwaremodules/${second.module.id}/artifacts/image.bin`)).status).toBe(200);
    });
  });
});
