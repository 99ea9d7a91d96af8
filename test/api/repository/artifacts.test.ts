import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { STORES, startApp, type App } from '../../helpers/app.js';
import { ROOT, module, multipart, smType, upload } from './fixture.js';

const hex = (alg: string, data: Buffer) => createHash(alg).update(data).digest('hex');

/** Every regular file under a directory (recursively); one removed while it is listed (the server cleaning up) is not there. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return [];
    return stat.isDirectory() ? filesUnder(path) : [path];
  });
}

describe.each(STORES)('%s store', (kind) => {
  let app: App;
  let dataDir: string;
  const binaries = () => filesUnder(join(dataDir, 'artifacts'));
  const temps = () => filesUnder(join(dataDir, 'tmp'));
  beforeAll(async () => {
    app = await startApp(kind, { quotas: { maxArtifactSize: 300_000, maxArtifactsPerSoftwareModule: 3 } });
    dataDir = app.server.config.dataDir;
  });
  async function freshModule() {
    return module(app, (await smType(app)).key);
  }

  it('uploads an artifact and answers 201 with the documented shape; lists, reads and downloads it', async () => {
    const m = await freshModule();
    const content = randomBytes(100_000);
    const res = await upload(app, m.id, [{ name: 'file', filename: 'image.bin', content }]);
    expect(res.status, res.text).toBe(201);
    const a = res.json();
    const self = `${app.url}${ROOT}/softwaremodules/${m.id}/artifacts/${a.id}`;
    expect(a).toMatchObject({
      providedFilename: 'image.bin', size: content.length, createdBy: 'admin', lastModifiedBy: 'admin',
      hashes: { sha1: hex('sha1', content), md5: hex('md5', content), sha256: hex('sha256', content) },
    });
    expect(a._links).toEqual({ self: { href: self }, download: { href: `${self}/download` } });

    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}/artifacts/${a.id}`)).json()).toEqual(a);
    const compact = (await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}/artifacts`)).json();
    expect(compact).toEqual([{ ...a, _links: { self: { href: self } } }]);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}/artifacts?representation=full`)).json()).toEqual([a]);

    const download = await fetch(`${self}/download`, { headers: { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('etag')).toBe(`"${a.hashes.sha1}"`);
    expect(Buffer.from(await download.arrayBuffer()).equals(content)).toBe(true);
    const range = await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}/artifacts/${a.id}/download`, { headers: { range: 'bytes=10-19' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 10-19/${content.length}`);
  });

  it('takes filename and checksums from fields before or after the file part, or from the query', async () => {
    const m = await freshModule();
    const content = randomBytes(5000);
    const before = await upload(app, m.id, [
      { name: 'md5sum', content: hex('md5', content).toUpperCase() },
      { name: 'file', filename: 'original.bin', content },
      { name: 'filename', content: 'renamed.bin' },
      { name: 'sha256sum', content: hex('sha256', content) },
    ]);
    expect(before.status, before.text).toBe(201);
    expect(before.json().providedFilename).toBe('renamed.bin');
    const viaQuery = await upload(app, m.id, [{ name: 'file', filename: 'x.bin', content }], `?filename=q.bin&sha1sum=${hex('sha1', content)}`);
    expect(viaQuery.status).toBe(201);
    expect(viaQuery.json().providedFilename).toBe('q.bin');
  });

  it.each([
    ['md5sum', 'before', 'hawkbit.server.error.artifact.uploadFailed.checksum.md5.match'],
    ['sha1sum', 'after', 'hawkbit.server.error.artifact.uploadFailed.checksum.sha1.match'],
    ['sha256sum', 'before', 'hawkbit.server.error.artifact.uploadFailed.checksum.sha256.match'],
    ['sha256sum', 'after', 'hawkbit.server.error.artifact.uploadFailed.checksum.sha256.match'],
  ])('refuses a wrong %s sent %s the file with 400 and stores nothing', async (field, where, code) => {
    const m = await freshModule();
    const content = randomBytes(3000);
    const wrong = { name: field, content: 'a'.repeat(field === 'md5sum' ? 32 : field === 'sha1sum' ? 40 : 64) };
    const file = { name: 'file', filename: 'f.bin', content };
    const res = await upload(app, m.id, where === 'before' ? [wrong, file] : [file, wrong]);
    expect(res.status).toBe(400);
    expect(res.json().errorCode).toBe(code);
    expect(await app.store.count(app.tenant, 'artifact', 'module', String(m.id))).toBe(0);
    expect(binaries().some((p) => p.endsWith(hex('sha1', content)))).toBe(false);
    expect(temps()).toEqual([]);
  });

  it('stores identical content once and removes it with its last artifact', async () => {
    const [m1, m2] = [await freshModule(), await freshModule()];
    const content = randomBytes(20_000);
    const sha1 = hex('sha1', content);
    const a1 = (await upload(app, m1.id, [{ name: 'file', filename: 'same.bin', content }])).json();
    const a2 = (await upload(app, m2.id, [{ name: 'file', filename: 'same.bin', content }])).json();
    expect(a1.hashes.sha1).toBe(sha1);
    expect(a2.id).not.toBe(a1.id);
    expect(binaries().filter((p) => p.endsWith(sha1))).toHaveLength(1);
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${m1.id}/artifacts/${a1.id}`)).status).toBe(204);
    expect(binaries().filter((p) => p.endsWith(sha1))).toHaveLength(1);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m2.id}/artifacts/${a2.id}/download`)).status).toBe(200);
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${m2.id}/artifacts/${a2.id}`)).status).toBe(204);
    expect(binaries().filter((p) => p.endsWith(sha1))).toHaveLength(0);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m2.id}/artifacts/${a2.id}`)).status).toBe(404);
  });

  it('answers 409 for the same filename twice in a module and keeps the first', async () => {
    const m = await freshModule();
    const first = randomBytes(1000);
    const second = randomBytes(1000);
    expect((await upload(app, m.id, [{ name: 'file', filename: 'dup.bin', content: first }])).status).toBe(201);
    const dup = await upload(app, m.id, [{ name: 'file', filename: 'dup.bin', content: second }]);
    expect(dup.status).toBe(409);
    expect(binaries().some((p) => p.endsWith(hex('sha1', second)))).toBe(false);
    expect(binaries().some((p) => p.endsWith(hex('sha1', first)))).toBe(true);
  });

  it('refuses uploads to a locked module (423) and keeps its artifacts', async () => {
    const m = await freshModule();
    const a = (await upload(app, m.id, [{ name: 'file', filename: 'a.bin', content: randomBytes(100) }])).json();
    await app.mgmt.put(`${ROOT}/softwaremodules/${m.id}`, { json: { locked: true } });
    const res = await upload(app, m.id, [{ name: 'file', filename: 'b.bin', content: randomBytes(100) }]);
    expect(res.status).toBe(423);
    expect(res.json().errorCode).toBe('hawkbit.server.error.locked');
    expect((await app.mgmt.delete(`${ROOT}/softwaremodules/${m.id}/artifacts/${a.id}`)).status).toBe(423);
  });

  it('enforces the artifact size (403) and count (403) quotas', async () => {
    const m = await freshModule();
    const big = await upload(app, m.id, [{ name: 'file', filename: 'big.bin', content: randomBytes(300_001) }]);
    expect(big.status).toBe(403);
    expect(big.json().errorCode).toBe('hawkbit.server.error.quota.fileSizeExceeded');
    for (const n of [1, 2, 3]) expect((await upload(app, m.id, [{ name: 'file', filename: `${n}.bin`, content: randomBytes(50) }])).status).toBe(201);
    const fourth = await upload(app, m.id, [{ name: 'file', filename: '4.bin', content: randomBytes(50) }]);
    expect(fourth.status).toBe(403);
    expect(fourth.json().errorCode).toBe('hawkbit.server.error.quota.tooManyEntries');
    expect(temps()).toEqual([]);
  });

  it.each([
    ['no file part', [{ name: 'filename', content: 'x.bin' }], 'file'],
    ['an empty file', [{ name: 'file', filename: 'e.bin', content: '' }], 'empty'],
    ['a file part without a name', [{ name: 'file', content: 'data' }], 'filename'],
    ['a filename with a slash', [{ name: 'file', filename: 'x.bin', content: 'data' }, { name: 'filename', content: 'a/b.bin' }], 'filename'],
  ])('refuses a body with %s (400 uploadFailed)', async (_what, parts, text) => {
    const m = await freshModule();
    const res = await upload(app, m.id, parts);
    expect(res.status).toBe(400);
    expect(res.json().errorCode).toBe('hawkbit.server.error.artifact.uploadFailed');
    expect(res.json().message).toContain(text);
    expect(await app.store.count(app.tenant, 'artifact', 'module', String(m.id))).toBe(0);
  });

  it('refuses non-multipart bodies (415), malformed multipart (400) and unknown modules (404)', async () => {
    const m = await freshModule();
    const json = await app.mgmt.post(`${ROOT}/softwaremodules/${m.id}/artifacts`, { json: { file: 'x' } });
    expect(json.status).toBe(415);
    const { contentType } = multipart([]);
    const broken = await app.mgmt.post(`${ROOT}/softwaremodules/${m.id}/artifacts`, {
      body: `--nope\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc`, headers: { 'content-type': contentType },
    });
    expect(broken.status).toBe(400);
    expect(broken.json().errorCode).toBe('hawkbit.server.error.artifact.uploadFailed');
    expect((await upload(app, 999999, [{ name: 'file', filename: 'a.bin', content: 'x' }])).status).toBe(404);
    const other = await freshModule();
    const a = (await upload(app, m.id, [{ name: 'file', filename: 'a.bin', content: randomBytes(10) }])).json();
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${other.id}/artifacts/${a.id}`)).status).toBe(404);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${other.id}/artifacts/${a.id}/download`)).status).toBe(404);
    expect(temps()).toEqual([]);
  });

  it('leaves no record and no file behind when the client sends less than announced and goes away', async () => {
    const m = await freshModule();
    const boundary = 'trunc' + randomBytes(6).toString('hex');
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.bin"\r\n\r\n`);
    const partial = Buffer.concat([head, randomBytes(200_000)]);
    const socket = connect(app.server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write([
      `POST ${ROOT}/softwaremodules/${m.id}/artifacts HTTP/1.1`, 'Host: 127.0.0.1',
      `Authorization: Basic ${Buffer.from('admin:admin').toString('base64')}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`, `Content-Length: ${partial.length + 500_000}`, '', '',
    ].join('\r\n'));
    await new Promise<void>((resolve) => socket.write(partial, () => resolve()));
    // the server is storing it: a temporary file exists
    await vi.waitFor(() => expect(temps()).toHaveLength(1), { timeout: 5000, interval: 20 });
    socket.destroy();
    await vi.waitFor(() => expect(temps()).toEqual([]), { timeout: 5000, interval: 50 });
    expect(await app.store.count(app.tenant, 'artifact', 'module', String(m.id))).toBe(0);
    expect((await app.mgmt.get(`${ROOT}/softwaremodules/${m.id}/artifacts`)).json()).toEqual([]);
  });

  it('enforces the tenant storage quota (403)', async () => {
    const small = await startApp(kind, { quotas: { maxArtifactStorage: 50_000 } });
    const m = await module(small, (await smType(small)).key);
    expect((await upload(small, m.id, [{ name: 'file', filename: '1.bin', content: randomBytes(30_000) }])).status).toBe(201);
    const over = await upload(small, m.id, [{ name: 'file', filename: '2.bin', content: randomBytes(30_000) }]);
    expect(over.status).toBe(403);
    expect(over.json().errorCode).toBe('hawkbit.server.error.quota.storageExceeded');
    expect(filesUnder(join(small.server.config.dataDir, 'artifacts'))).toHaveLength(1);
  });
});
