/**
 * DDI downloads of a hot artifact (one kept in memory, artifacts.hotCacheBytes): the bytes come from
 * memory once it is hot, and the cache never outlives the artifact: a deleted artifact is 404 at once,
 * a new upload under the same name is served with its own content, and a soft-deleted module's
 * artifacts answer as they do without the cache (still downloadable, as documented).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_STORES, type StoreKind } from '../../helpers/app.js';
import { seedDistributionSet } from '../../helpers/seed.js';
import { assign, GATEWAY, startDdiApp } from './fixture.js';

async function download(url: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url, { headers: GATEWAY });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** An app whose device `dev` has an action delivering `image.bin` of `bytes` random bytes, and that file's DDI URL. */
async function deviceWithArtifact(kind: StoreKind, dev: string, bytes: number) {
  const app = await startDdiApp(kind);
  const content = randomBytes(bytes);
  const seeded = await seedDistributionSet(app, { artifacts: [{ filename: 'image.bin', content }] });
  await app.device(dev).get();
  await assign(app, dev, seeded.ds.id);
  return { app, content, seeded, url: `${app.url}${app.ddi}/${dev}/softwaremodules/${seeded.module.id}/artifacts/image.bin` };
}

describe.each(LOCAL_STORES)('hot artifact downloads (%s)', (kind) => {
  it('serves a hot artifact from memory, and a deleted or replaced one never', async () => {
    const { app, content, seeded, url } = await deviceWithArtifact(kind, 'dev-hot', 256 * 1024);
    // the second download makes it hot; wait until the file is no longer needed
    const sha1 = seeded.artifacts[0]!.record.hashes.sha1;
    const file = join(app.server.config.dataDir, 'artifacts', app.tenant, sha1.slice(0, 2), sha1);
    expect((await download(url)).body.equals(content)).toBe(true);
    expect((await download(url)).body.equals(content)).toBe(true);
    rmSync(file); // behind the server's back: only memory can answer now
    await expect.poll(async () => (await download(url)).status).toBe(200);
    const hot = await download(url);
    expect(hot.body.equals(content)).toBe(true);
    const ranged = await fetch(url, { headers: { ...GATEWAY, range: 'bytes=1000-1999' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(content.subarray(1000, 2000))).toBe(true);

    // the artifact deleted through the Management API: 404 at once, not the cached bytes
    const moduleUrl = `/rest/v1/softwaremodules/${seeded.module.id}`;
    expect((await app.mgmt.put(moduleUrl, { json: { locked: false } })).status).toBe(200);
    expect((await app.mgmt.delete(`${moduleUrl}/artifacts/${seeded.artifacts[0]!.record.id}`)).status).toBe(204);
    expect((await download(url)).status).toBe(404);

    // a new upload under the same name: its own content
    const replacement = randomBytes(200 * 1024);
    const form = new FormData();
    form.append('file', new Blob([replacement]), 'image.bin');
    const upload = await fetch(`${app.url}${moduleUrl}/artifacts`, { method: 'POST', body: form, headers: { authorization: basic() } });
    expect(upload.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await download(url)).body.equals(replacement)).toBe(true);
  });

  it('answers for a soft-deleted module\'s artifact as without the cache', async () => {
    const { app, content, seeded, url } = await deviceWithArtifact(kind, 'dev-soft', 128 * 1024);
    for (let i = 0; i < 3; i++) expect((await download(url)).body.equals(content)).toBe(true);
    // the module is in a distribution set: soft-deleted, its artifacts stay downloadable
    expect((await app.mgmt.delete(`/rest/v1/softwaremodules/${seeded.module.id}`)).status).toBe(204);
    const after = await download(url);
    expect(after.status).toBe(200);
    expect(after.body.equals(content)).toBe(true);
  });
});

function basic(): string {
  return `Basic ${Buffer.from('admin:admin').toString('base64')}`;
}
