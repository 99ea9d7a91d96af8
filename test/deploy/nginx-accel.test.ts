/**
 * X-Accel-Redirect with deploy/nginx.conf as shipped (ports, the upstream, certificate paths and the
 * artifacts alias replaced) in front of peregrine with `artifacts.accelRedirect.enabled`: peregrine checks
 * the device and the request and answers with headers only, nginx sends the file from the storage path.
 * Everything a device sees must be what peregrine sends itself: bytes, ETag (the sha1), Last-Modified,
 * Content-Disposition, ranges, conditional requests, HEAD, refusals; and the internal location is not
 * reachable from outside.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ACTION_STATUS, type ActionStatusRecord } from '../../src/domain/action.js';
import { startNginx, type Nginx } from '../helpers/nginx.js';
import { freePort } from '../helpers/redis.js';
import { seedDistributionSet, type SeededDs } from '../helpers/seed.js';
import { assign, GATEWAY, startDdiApp, type DdiApp } from '../api/ddi/fixture.js';

const SHIPPED = join(import.meta.dirname, '../../deploy/nginx.conf');

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

let serverCa: Buffer;

function tlsFetch(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, method, path, headers, ca: serverCa, servername: 'localhost', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${path} within 10 s`))); // a hang guard, not a speed check
    req.end();
  });
}

/** deploy/nginx.conf with this test's ports, upstream, files and artifacts directory; fails if the shipped file lacks what it replaces. */
function configure(dir: string, upstream: number, tls: number, mtls: number, artifacts: string): string {
  const replacements: [string, string][] = [
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${upstream};`],
    ['listen 443 ssl;', `listen 127.0.0.1:${tls} ssl;`],
    ['listen 8443 ssl;', `listen 127.0.0.1:${mtls} ssl;`],
    ['/etc/nginx/peregrine/server.crt', join(dir, 'server.crt')],
    ['/etc/nginx/peregrine/server.key', join(dir, 'server.key')],
    ['/etc/nginx/peregrine/device-ca.crt', join(dir, 'ca.crt')],
    ['alias /var/lib/peregrine/data/artifacts/;', `alias ${artifacts}/;`],
  ];
  let config = readFileSync(SHIPPED, 'utf8');
  for (const [from, to] of replacements) {
    expect(config, `deploy/nginx.conf should contain ${from}`).toContain(from);
    config = config.split(from).join(to);
  }
  return config;
}

describe.each(['memory', 'redis'] as const)('artifact downloads through deploy/nginx.conf with X-Accel-Redirect, %s store', (kind) => {
  let dir: string;
  let app: DdiApp;
  let nginx: Nginx;
  let tls: number;
  let seeded: SeededDs;
  let content: Buffer;
  let sha1: string;
  let path: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(inject('testTmpDir') ?? tmpdir(), 'peregrine-accel-'));
    const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=Test CA');
    ssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'server.ext');
    serverCa = readFileSync(join(dir, 'ca.crt'));
    app = await startDdiApp(kind, { trustedProxies: ['127.0.0.1'], artifacts: { accelRedirect: { enabled: true } } });
    tls = await freePort();
    const mtls = await freePort();
    nginx = await startNginx(dir, configure(dir, app.server.port, tls, mtls, join(app.server.config.dataDir, 'artifacts')), [tls, mtls]);
    content = Buffer.from(Array.from({ length: 300 * 1024 }, (_, i) => (i * 7) % 251));
    seeded = await seedDistributionSet(app, { artifacts: [{ filename: 'image v1.bin', content }] });
    sha1 = seeded.artifacts[0]!.record.hashes.sha1;
    const base = `/${app.tenant}/controller/v1/dev-accel`;
    expect((await tlsFetch(tls, base, GATEWAY)).status).toBe(200);
    await assign(app, 'dev-accel', seeded.ds.id);
    path = `${base}/softwaremodules/${seeded.module.id}/artifacts/${encodeURIComponent('image v1.bin')}`;
  });
  afterAll(async () => {
    await nginx?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('peregrine answers a trusted proxy with the headers and X-Accel-Redirect, and no bytes', async () => {
    const res = await fetch(`${app.url}${path}`, { headers: GATEWAY });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-accel-redirect')).toBe(`/_peregrine/artifacts/${app.tenant}/${sha1.slice(0, 2)}/${sha1}`);
    expect(res.headers.get('etag')).toBe(`"${sha1}"`);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('nginx sends the whole file with peregrine\'s headers, and the download is recorded', async () => {
    const res = await tlsFetch(tls, path, GATEWAY);
    expect(res.status).toBe(200);
    expect(res.body.equals(content)).toBe(true);
    expect(res.headers).toMatchObject({
      etag: `"${sha1}"`,
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment;filename="image v1.bin"',
      'content-length': String(content.length),
      'accept-ranges': 'bytes',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['x-accel-redirect']).toBeUndefined();
    const direct = await fetch(`${app.url}${path}`, { method: 'HEAD', headers: GATEWAY });
    expect(res.headers['last-modified']).toBe(direct.headers.get('last-modified'));
    const page = await app.store.members(app.tenant, ACTION_STATUS, 'action', String((await actionIdOf())), { offset: 0, limit: 100 });
    const entries = (await app.store.getMany<ActionStatusRecord>(app.tenant, ACTION_STATUS, page.ids)).map((e) => e!.value);
    expect(entries.some((e) => e.type === 'download' && e.messages[0] === `Update Server: Target downloads ${path}`)).toBe(true);
  });

  it('nginx sends a single range as 206 with its Content-Range', async () => {
    for (const [range, from, to] of [['bytes=1000-1999', 1000, 1999], ['bytes=-100', content.length - 100, content.length - 1], ['bytes=307000-', 307000, content.length - 1]] as const) {
      const res = await tlsFetch(tls, path, { ...GATEWAY, range });
      expect(res.status, range).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${from}-${to}/${content.length}`);
      expect(res.body.equals(content.subarray(from, to + 1))).toBe(true);
      expect(res.headers['etag']).toBe(`"${sha1}"`);
    }
  });

  it('conditional requests, several ranges, unsatisfiable ranges and HEAD answer as without the proxy', async () => {
    const notModified = await tlsFetch(tls, path, { ...GATEWAY, 'if-none-match': `"${sha1}"` });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect((await tlsFetch(tls, path, { ...GATEWAY, 'if-match': '"0000"' })).status).toBe(412);
    const matching = await tlsFetch(tls, path, { ...GATEWAY, 'if-match': `"${sha1}"` });
    expect(matching.status).toBe(200);
    expect(matching.body.equals(content)).toBe(true);
    const ifRangeMiss = await tlsFetch(tls, path, { ...GATEWAY, range: 'bytes=0-9', 'if-range': '"0000000000000000000000000000000000000000"' });
    expect(ifRangeMiss.status).toBe(200);
    expect(ifRangeMiss.body.equals(content)).toBe(true);
    const ifRangeHit = await tlsFetch(tls, path, { ...GATEWAY, range: 'bytes=0-9', 'if-range': `"${sha1}"` });
    expect(ifRangeHit.status).toBe(206);
    expect(ifRangeHit.body.equals(content.subarray(0, 10))).toBe(true);
    const multi = await tlsFetch(tls, path, { ...GATEWAY, range: 'bytes=0-9, 100-109' });
    expect(multi.status).toBe(206);
    expect(String(multi.headers['content-type'])).toMatch(/^multipart\/byteranges; boundary=peregrine-/);
    const unsatisfiable = await tlsFetch(tls, path, { ...GATEWAY, range: `bytes=${content.length}-` });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers['content-range']).toBe(`bytes */${content.length}`);
    const head = await tlsFetch(tls, path, GATEWAY, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(content.length));
    expect(head.body.length).toBe(0);
  });

  it('refuses what peregrine refuses, and the internal location is not reachable from outside', async () => {
    expect((await tlsFetch(tls, path, { authorization: 'GatewayToken wrong' })).status).toBe(401);
    const stranger = `/${app.tenant}/controller/v1/dev-stranger/softwaremodules/${seeded.module.id}/artifacts/image%20v1.bin`;
    const refused = await tlsFetch(tls, stranger, GATEWAY); // no action delivers the module to this device
    expect(refused.status).toBe(404);
    expect(refused.body.includes(content.subarray(0, 64))).toBe(false);
    const internal = await tlsFetch(tls, `/_peregrine/artifacts/${app.tenant}/${sha1.slice(0, 2)}/${sha1}`, GATEWAY);
    expect(internal.status).toBe(404);
    expect(internal.body.includes(content.subarray(0, 64))).toBe(false);
  });

  async function actionIdOf(): Promise<number> {
    const res = await app.mgmt.get('/rest/v1/targets/dev-accel/actions');
    return res.json<{ content: { id: number }[] }>().content[0]!.id;
  }
});
