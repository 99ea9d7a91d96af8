import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { href } from '../../src/http/links.js';
import type { Route, StreamBody } from '../../src/http/types.js';
import { http, rawHttp, startTestServer, type TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deterministic bytes: chunk i is filled with i % 251. */
function pattern(total: number, chunk: number, cut = 0): StreamBody {
  return {
    length: total,
    chunks: async function* () {
      for (let sent = 0, i = 0; sent < total - cut; sent += chunk, i++) yield Buffer.alloc(Math.min(chunk, total - cut - sent), i % 251);
    },
  };
}
function patternSha(total: number, chunk: number): string {
  const h = createHash('sha256');
  for (let sent = 0, i = 0; sent < total; sent += chunk, i++) h.update(Buffer.alloc(Math.min(chunk, total - sent), i % 251));
  return h.digest('hex');
}

let signalled = 0;
/** Requests the slow probe has begun to handle. */
let slowStarted = 0;
const routes: Route[] = [
  { method: 'GET', path: '/probe/download/:mib', produces: 'other', handler: (req) => ({ status: 200, headers: { 'Content-Type': 'application/octet-stream' }, stream: pattern(Number(req.params['mib']) * MiB, 64 * 1024) }) },
  { method: 'GET', path: '/probe/short', produces: 'other', handler: () => ({ status: 200, stream: pattern(MiB, 64 * 1024, 100 * 1024) }) },
  {
    method: 'GET',
    path: '/probe/broken',
    produces: 'other',
    handler: () => ({ status: 200, stream: { length: 10, chunks: async function* () { throw new Error('disk gone'); } } }),
  },
  {
    method: 'POST',
    path: '/probe/upload',
    body: 'stream',
    handler: async (req) => {
      const h = createHash('sha256');
      let bytes = 0;
      for await (const chunk of req.bodyStream ?? []) {
        h.update(chunk);
        bytes += chunk.length;
        if (bytes % (4 * MiB) < chunk.length) await sleep(20); // a slow consumer: the socket must pause
      }
      return { status: 200, json: { bytes, sha256: h.digest('hex') } };
    },
  },
  { method: 'POST', path: '/probe/ignore-upload', body: 'stream', handler: () => ({ status: 202, json: { ignored: true } }) },
  {
    method: 'GET',
    path: '/probe/slow',
    handler: async (req) => {
      req.signal.addEventListener('abort', () => signalled++);
      slowStarted++;
      await sleep(Number(req.query.get('ms') ?? '300')); // the handler's own work, not a wait in the test
      return { status: 200, json: { slow: true } };
    },
  },
  {
    method: 'GET',
    path: '/probe/base',
    handler: (req) => ({
      status: 200,
      json: { baseUrl: req.baseUrl, self: href(req, '/rest/v1/targets/a'), trusted: req.fromTrustedProxy, remote: req.remoteAddress, cn: req.headers['x-ssl-client-cn'] ?? null },
    }),
  },
];

let server: TestServer;
let api: ReturnType<typeof http>;
beforeAll(async () => {
  server = await startTestServer({ limits: { uploadBytes: 24 * MiB } }, { routes });
  api = http(server.url);
});

describe('stream replies', () => {
  it('streams a 16 MiB body completely and in order', async () => {
    const res = await fetch(`${server.url}/probe/download/16`);
    expect(res.headers.get('content-length')).toBe(String(16 * MiB));
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBe(16 * MiB);
    expect(createHash('sha256').update(body).digest('hex')).toBe(patternSha(16 * MiB, 64 * 1024));
  });

  it('keeps a slow reader correct (backpressure)', async () => {
    const total = 8 * MiB;
    const received = await new Promise<Buffer>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /probe/download/8 HTTP/1.1\r\nHost: x\r\n\r\n'));
      const parts: Buffer[] = [];
      socket.pause(); // read nothing for a while: the server must wait for the socket to drain
      setTimeout(() => socket.resume(), 300);
      socket.on('data', (d: Buffer) => {
        parts.push(d);
        const all = Buffer.concat(parts);
        const end = all.indexOf('\r\n\r\n');
        if (end !== -1 && all.length - end - 4 >= total) {
          socket.destroy();
          resolve(all.subarray(end + 4));
        }
      });
      socket.on('error', reject);
    });
    expect(createHash('sha256').update(received).digest('hex')).toBe(patternSha(total, 64 * 1024));
  });

  it('answers HEAD with the length and no body', async () => {
    const res = await fetch(`${server.url}/probe/download/2`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(2 * MiB));
  });

  it('closes the connection when the producer comes up short, and keeps serving', async () => {
    await expect(fetch(`${server.url}/probe/short`).then((r) => r.arrayBuffer())).rejects.toThrow();
    expect((await api.get('/health')).status).toBe(200);
  });

  it('answers 500 when the producer fails before the first byte', async () => {
    const res = await api.get('/probe/broken');
    expect(res.status).toBe(500);
    expect(res.json().errorCode).toBe('hawkbit.server.error.repo.genericError');
  });
});

describe('stream uploads', () => {
  it('delivers a 20 MiB upload intact to a slow consumer', async () => {
    const body = Buffer.alloc(20 * MiB);
    for (let i = 0; i < body.length; i += 4096) body[i] = i % 256;
    const res = await api.post('/probe/upload', { body, headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
  });

  it('answers 413 for an upload over the limit (declared or streamed)', async () => {
    const small = await startTestServer({ limits: { uploadBytes: MiB } }, { routes });
    const res = await http(small.url).post('/probe/upload', { body: Buffer.alloc(2 * MiB) });
    expect(res.status).toBe(413);
    const chunk = Buffer.alloc(16 * 1024, 1);
    async function* chunked(): AsyncIterable<Buffer> {
      for (let i = 0; i < 200; i++) {
        yield Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
        await sleep(1); // paced, so the 413 arrives before we write into a closed socket
      }
    }
    const streamed = await rawHttp(small.port, 'POST /probe/upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', chunked);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).message).toBe('request body exceeds the limit of 1048576 bytes');
    expect((await http(small.url).get('/health')).status).toBe(200);
  });

  it('closes the connection when a handler answers without reading the upload', async () => {
    const res = await rawHttp(server.port, 'POST /probe/ignore-upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n', Buffer.from('01234'));
    expect(res.status).toBe(202);
    expect(res.headers['connection']).toBe('close');
  });
});

describe('forwarded headers', () => {
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'updates.example.com', 'x-forwarded-port': '8443', 'x-ssl-client-cn': 'dev-1' };

  it('are ignored from a peer that is not a trusted proxy', async () => {
    const body = (await api.get('/probe/base', { headers: forwarded })).json();
    // cn is null, and null properties are left out of replies (hawkBit's NON_NULL)
    expect(body).toEqual({ baseUrl: server.url, self: `${server.url}/rest/v1/targets/a`, trusted: false, remote: '127.0.0.1' });
  });

  it('are honoured from a trusted proxy', async () => {
    const proxied = await startTestServer({ server: { trustedProxies: ['127.0.0.1'] } }, { routes });
    const body = (await http(proxied.url).get('/probe/base', { headers: forwarded })).json();
    expect(body).toEqual({ baseUrl: 'https://updates.example.com:8443', self: 'https://updates.example.com:8443/rest/v1/targets/a', trusted: true, remote: '127.0.0.1', cn: 'dev-1' });
  });
});

describe('aborts and shutdown', () => {
  it('tells a handler when its client went away and keeps serving', async () => {
    const before = signalled;
    const started = slowStarted;
    const controller = new AbortController();
    const pending = fetch(`${server.url}/probe/slow?ms=300`, { signal: controller.signal }).catch(() => 'aborted');
    await vi.waitFor(() => expect(slowStarted).toBe(started + 1), { timeout: 5000, interval: 5 });
    controller.abort();
    expect(await pending).toBe('aborted');
    await vi.waitFor(() => expect(signalled).toBe(before + 1), { timeout: 5000, interval: 5 });
    expect((await api.get('/health')).status).toBe(200);
  });

  it('lets an in-flight request finish on close, then refuses connections', async () => {
    const own = await startTestServer({}, { routes });
    const started = slowStarted;
    const slow = http(own.url).get('/probe/slow?ms=400');
    await vi.waitFor(() => expect(slowStarted).toBe(started + 1), { timeout: 5000, interval: 5 });
    const closed = own.close();
    const res = await slow;
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ slow: true });
    await closed;
    await expect(fetch(`${own.url}/health`)).rejects.toThrow();
  });
});
