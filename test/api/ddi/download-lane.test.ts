/**
 * The artifact download's express lane (src/ddi/download-lane.ts): for a hot binary it answers whole,
 * ranged, conditional and HEAD requests byte for byte as the generic path does (compared on the wire,
 * the Date header aside, against the same request with the token's scheme spelled in lower case, which
 * only the generic path reads), leaves every other request to it, writes no DOWNLOAD entry the generic
 * path would write, and stops answering the moment the token changes, the action is canceled or the
 * artifact is deleted: on this server, and on Redis when a second server makes the change.
 * `http_express_lane_requests_total` tells which path answered.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { LOCAL_STORES, storeOptions, type StoreKind } from '../../helpers/app.js';
import { seedDistributionSet, type SeededDs } from '../../helpers/seed.js';
import { ADMIN, ADMIN_HASH, http, startTestServer } from '../../helpers/server.js';
import { assign, GATEWAY_KEY, laneCount as lanes, startDdiApp, targetOf, type DdiApp } from './fixture.js';

const ROUTE = 'ddi GET /softwaremodules/:softwareModuleId/artifacts/:fileName';
const SIZE = 200 * 1024;

/** One request on its own connection, the whole answer as received, without its Date header. */
function raw(url: string, method: string, path: string, headers: Record<string, string>): Promise<Buffer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.from(Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r]*/, ''), 'latin1')));
  });
}

interface Seen {
  readonly wire: Buffer;
  readonly status: number;
  readonly lane: boolean;
}

function statusOf(wire: Buffer): number {
  return Number(wire.toString('latin1', 9, 12));
}

function bodyOf(wire: Buffer): Buffer {
  return wire.subarray(wire.indexOf('\r\n\r\n') + 4);
}

interface Fixture {
  readonly app: DdiApp;
  readonly cid: string;
  readonly seeded: SeededDs;
  readonly content: Buffer;
  readonly actionId: number;
  readonly path: string;
  token: string;
}

async function fetched(f: Fixture, headers: Record<string, string>, method = 'GET', url = f.app.url): Promise<Seen> {
  const before = await lanes(f.app, ROUTE);
  const wire = await raw(url, method, f.path, headers);
  const lane = (await lanes(f.app, ROUTE)) > before;
  return { wire, status: statusOf(wire), lane };
}

/** A device with an action delivering a hot `image.bin`, downloaded whole once (its DOWNLOAD entry written). */
async function hotDownload(kind: StoreKind, cid: string): Promise<Fixture> {
  const app = await startDdiApp(kind);
  const content = randomBytes(SIZE);
  const seeded = await seedDistributionSet(app, { artifacts: [{ filename: 'image.bin', content }] });
  await app.device(cid).get();
  const actionId = await assign(app, cid, seeded.ds.id);
  const token = (await targetOf(app, cid)).securityToken;
  const f: Fixture = { app, cid, seeded, content, actionId, path: `${app.ddi}/${cid}/softwaremodules/${seeded.module.id}/artifacts/image.bin`, token };
  // the first whole download adds the DOWNLOAD entry (generic path), the second makes the binary hot
  const first = await fetched(f, tokenOf(f));
  expect(first).toMatchObject({ status: 200, lane: false });
  expect(bodyOf(first.wire).equals(content)).toBe(true);
  await vi.waitFor(async () => expect((await fetched(f, { ...tokenOf(f), range: 'bytes=0-9' })).lane).toBe(true), { timeout: 10_000, interval: 20 });
  return f;
}

const tokenOf = (f: Fixture): Record<string, string> => ({ authorization: `TargetToken ${f.token}` });
/** The same credentials in a spelling only the generic path reads. */
const genericTokenOf = (f: Fixture): Record<string, string> => ({ authorization: `targettoken ${f.token}` });

async function downloadEntries(f: Fixture): Promise<number> {
  const res = await f.app.mgmt.get(`/rest/v1/targets/${f.cid}/actions/${f.actionId}/status?limit=100`);
  expect(res.status).toBe(200);
  return res.json<{ content: { type: string }[] }>().content.filter((e) => e.type === 'download').length;
}

describe.each(LOCAL_STORES)('artifact download lane, %s store', (kind) => {
  it('answers byte for byte as the generic path, and leaves the rest to it', async () => {
    const f = await hotDownload(kind, 'dl-1');
    const etag = `"${f.seeded.artifacts[0]!.record.hashes.sha1}"`;
    const cases: [string, string, Record<string, string>, number, boolean][] = [
      ['whole, repeated', 'GET', {}, 200, true],
      ['single range', 'GET', { range: 'bytes=1000-1999' }, 206, true],
      ['open range', 'GET', { range: 'bytes=204000-' }, 206, true],
      ['suffix range', 'GET', { range: 'bytes=-500' }, 206, true],
      ['range past the end, clamped', 'GET', { range: `bytes=100-${SIZE * 2}` }, 206, true],
      ['If-Range mismatch: whole', 'GET', { range: 'bytes=0-99', 'if-range': '"other"' }, 200, true],
      ['If-Range match', 'GET', { range: 'bytes=0-99', 'if-range': etag }, 206, true],
      ['If-None-Match match', 'GET', { 'if-none-match': etag }, 304, true],
      ['If-None-Match weak match, ranged', 'GET', { 'if-none-match': `W/${etag}`, range: 'bytes=0-9' }, 304, true],
      ['If-None-Match mismatch', 'GET', { 'if-none-match': '"other"', range: 'bytes=0-9' }, 206, true],
      ['HEAD', 'HEAD', {}, 200, true],
      ['HEAD with a range', 'HEAD', { range: 'bytes=0-9' }, 200, true],
      ['HEAD, If-None-Match', 'HEAD', { 'if-none-match': etag }, 304, true],
      ['unsatisfiable range', 'GET', { range: `bytes=${SIZE}-` }, 416, false],
      ['malformed range', 'GET', { range: 'bytes=abc' }, 416, false],
      ['empty range', 'GET', { range: '' }, 416, false],
      ['range ending before it starts', 'GET', { range: 'bytes=9-1' }, 416, false],
      ['If-Match mismatch', 'GET', { 'if-match': '"other"' }, 412, false],
      ['If-Match match, ranged', 'GET', { 'if-match': etag, range: 'bytes=0-9' }, 206, false],
      ['If-Modified-Since', 'GET', { 'if-modified-since': new Date(Date.now() + 60_000).toUTCString() }, 304, false],
      ['If-Unmodified-Since', 'GET', { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT', range: 'bytes=0-9' }, 412, false],
      ['wrong token', 'GET', { authorization: `TargetToken ${f.token}x`, range: 'bytes=0-9' }, 401, false],
    ];
    for (const [what, method, headers, status, viaLane] of cases) {
      const lane = await fetched(f, { ...tokenOf(f), ...headers }, method);
      const generic = await fetched(f, { ...genericTokenOf(f), ...headers }, method);
      expect([what, lane.status, lane.lane, generic.lane]).toEqual([what, status, viaLane, false]);
      if (status !== 401) expect([what, lane.wire.toString('latin1')]).toEqual([what, generic.wire.toString('latin1')]);
    }
    const ranged = await fetched(f, { ...tokenOf(f), range: 'bytes=1000-1999' });
    expect(bodyOf(ranged.wire).equals(f.content.subarray(1000, 2000))).toBe(true);
    expect(bodyOf((await fetched(f, tokenOf(f))).wire).equals(f.content)).toBe(true);
    // the gateway token too; several ranges are a multipart body (a random boundary): the generic path's
    expect(await fetched(f, { authorization: `GatewayToken ${GATEWAY_KEY}`, range: 'bytes=0-9' })).toMatchObject({ status: 206, lane: true });
    expect(await fetched(f, { ...tokenOf(f), range: 'bytes=0-9,100-109' })).toMatchObject({ status: 206, lane: false });
    // a repeated range header, a percent-encoded file name: the generic path
    const twice = await raw(f.app.url, 'GET', f.path, { ...tokenOf(f), range: 'bytes=0-9\r\nRange: bytes=5-9' });
    expect(statusOf(twice)).toBe(416);
    expect(await fetched({ ...f, path: f.path.replace('image.bin', 'image%2Ebin') }, { ...tokenOf(f), range: 'bytes=0-9' }))
      .toMatchObject({ status: 206, lane: false });
    // the first whole download wrote the one DOWNLOAD entry; no repeat wrote another
    expect(await downloadEntries(f)).toBe(1);
  }, 60_000);

  it('leaves a whole download that adds a DOWNLOAD entry to the generic path', async () => {
    const f = await hotDownload(kind, 'dl-2');
    // another spelling of the path: hawkBit records the request URI, so this one adds an entry
    const other = { ...f, path: f.path.replace(`/${f.app.tenant}/`, `/${f.app.tenant.toLowerCase()}/`) };
    expect(await fetched(other, tokenOf(f))).toMatchObject({ status: 200, lane: false });
    expect(await downloadEntries(f)).toBe(2);
    // now that spelling's download is the newest entry: repeating it adds none, the first spelling adds one
    // (on Redis the action the write replaced is read again first: the generic path answers until it is cached)
    await vi.waitFor(async () => expect(await fetched(other, tokenOf(f))).toMatchObject({ status: 200, lane: true }), { timeout: 10_000 });
    expect(await downloadEntries(f)).toBe(2);
    expect(await fetched(f, tokenOf(f))).toMatchObject({ status: 200, lane: false });
    expect(await downloadEntries(f)).toBe(3);
  });

  it('stops answering the moment the token changes, the action is canceled, the artifact is deleted', async () => {
    const f = await hotDownload(kind, 'dl-3');
    await stopsAnswering(f, f.app, true);
  }, 60_000);
});

describe('artifact download lane, two servers on one Redis', () => {
  it("stops answering once the other server's change reaches it", async () => {
    const f = await hotDownload('redis', 'dl-peer');
    const admin = { username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] };
    const tenants = [{ name: f.app.tenant, users: [admin], config: f.app.tenantConfig }];
    const peer = await startTestServer({ tenants }, storeOptions('redis'));
    const client = http(peer.url);
    const writer: Writer = {
      mgmt: { put: (p, o) => client.put(p, { auth: ADMIN, ...o }), delete: (p, o) => client.delete(p, { auth: ADMIN, ...o }) },
    };
    await stopsAnswering(f, writer, false);
  }, 60_000);
});

type Writer = { readonly mgmt: Pick<DdiApp['mgmt'], 'put' | 'delete'> };

/**
 * Changes the token, cancels the action and deletes the artifact through `writer` (this server or a
 * peer), and checks that after each the answer is the generic path's: at once on this server; on a peer
 * once its write reached this server's cache, and the lane never answers after that.
 */
async function stopsAnswering(f: Fixture, writer: Writer, local: boolean): Promise<void> {
  const ranged = { range: 'bytes=0-9' };
  const until = async (d: Fixture, headers: Record<string, string>, status: number): Promise<void> => {
    if (!local) await vi.waitFor(async () => expect((await fetched(d, headers)).status).toBe(status), { timeout: 10_000, interval: 20 });
    for (let i = 0; i < 3; i++) expect(await fetched(d, headers)).toMatchObject({ status, lane: false });
  };
  // a new token: the old one is refused, the new one served (by the lane again)
  const old = tokenOf(f);
  const put = await writer.mgmt.put(`/rest/v1/targets/${f.cid}`, { json: { securityToken: 'a-new-token-0123' } });
  expect(put.status).toBe(200);
  await until(f, { ...old, ...ranged }, 401);
  f.token = 'a-new-token-0123';
  const served = async (d: Fixture): Promise<void> => vi.waitFor(async () => {
    expect(await fetched(d, { ...tokenOf(d), ...ranged })).toMatchObject({ status: 206, lane: true });
  }, { timeout: 10_000 });
  await served(f);
  // a second device with the same set, for the last step
  const cid = `${f.cid}-b`;
  await f.app.device(cid).get();
  await assign(f.app, cid, f.seeded.ds.id);
  const g: Fixture = { ...f, cid, path: f.path.replace(`/${f.cid}/`, `/${cid}/`), token: (await targetOf(f.app, cid)).securityToken };
  await served(g);
  // the action canceled: the module is no longer the device's to fetch
  expect((await writer.mgmt.delete(`/rest/v1/targets/${f.cid}/actions/${f.actionId}`)).status).toBe(204);
  await until(f, { ...tokenOf(f), ...ranged }, 404);
  // the artifact deleted
  const moduleUrl = `/rest/v1/softwaremodules/${f.seeded.module.id}`;
  expect((await writer.mgmt.put(moduleUrl, { json: { locked: false } })).status).toBe(200);
  expect((await writer.mgmt.delete(`${moduleUrl}/artifacts/${f.seeded.artifacts[0]!.record.id}`)).status).toBe(204);
  await until(g, { ...tokenOf(g), ...ranged }, 404);
}
