import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { basicAuth } from '../../src/http/auth-basic.js';
import { acceptSingleAsArray, readJson } from '../../src/http/json.js';
import type { Authenticator, Route } from '../../src/http/types.js';
import { StoreUnavailableError } from '../../src/store/port.js';
import { ADMIN, ADMIN_HASH, http, rawHttp, startTestServer, type TestServer } from '../helpers/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const probe = z.object({ name: z.string().min(1), count: z.number().int().min(1).max(500) });
let calls = 0;
let auth: Authenticator = () => {
  throw new Error('not ready');
};
const routes: Route[] = [
  { method: 'POST', path: '/probe/json', handler: (req) => ({ status: 201, json: { ...readJson(req, probe), call: ++calls } }) },
  { method: 'POST', path: '/probe/items', handler: (req) => ({ status: 200, json: readJson(req, acceptSingleAsArray(probe)) }) },
  { method: 'GET', path: '/probe/items/:itemId', handler: (req) => ({ status: 200, json: { itemId: req.params['itemId'] } }) },
  { method: 'DELETE', path: '/probe/items/:itemId', handler: () => ({ status: 204 }) },
  { method: 'GET', path: '/probe/throw', handler: () => { throw new TypeError('boom'); } },
  { method: 'GET', path: '/probe/reject', handler: async () => { await new Promise((r) => setTimeout(r, 5)); throw new Error('async boom'); } },
  { method: 'GET', path: '/probe/bigint', handler: () => ({ status: 200, json: { n: 1n } }) },
  { method: 'GET', path: '/probe/store-down', handler: () => { throw new StoreUnavailableError('ECONNREFUSED'); } },
  { method: 'GET', path: '/probe/text', produces: 'other', handler: () => ({ status: 200, body: 'plain', headers: { 'X-Probe': 'yes' } }) },
  {
    method: 'GET',
    path: '/probe/secure',
    auth: (req) => auth(req),
    handler: (req) => ({ status: 200, json: { tenant: req.principal?.tenant, kind: req.principal?.kind } }),
  },
];

let server: TestServer;
let api: ReturnType<typeof http>;
beforeAll(async () => {
  server = await startTestServer(
    {
      tenants: [
        { name: 'DEFAULT', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }, { username: 'viewer', password: ADMIN_HASH, permissions: ['READ_ROLLOUT'] }] },
        { name: 'acme', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['READ_TARGET'] }] },
      ],
    },
    { routes },
  );
  auth = basicAuth(() => server.config.tenants, 'READ_TARGET');
  api = http(server.url);
});

const ERROR_KEYS = ['errorCode', 'exceptionClass', 'message'];

describe('routing errors', () => {
  it('answers an unknown route with 404 and the error body', async () => {
    const res = await api.get('/no/such/thing');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/hal+json'); // no Accept: hawkBit's first type
    expect(Object.keys(res.json()).sort()).toEqual(ERROR_KEYS);
    expect(res.json()).toMatchObject({ errorCode: 'hawkbit.server.error.rest.route.notFound', message: 'No route matches GET /no/such/thing' });
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await api.put('/health', { json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.json().errorCode).toBe('hawkbit.server.error.rest.method.notAllowed');
  });

  it.each([
    ['/probe/items/%2e%2e', "path parameter itemId must not be '..'"],
    ['/probe/items/..', "path parameter itemId must not be '..'"],
    ['/probe/items/a%00b', 'path parameter itemId must not contain NUL'],
    ['/probe/items/a%2Fb', "path parameter itemId must not contain '/'"],
    ['/probe/items/%E0%A4%A', 'path parameter itemId is not valid percent-encoding'],
  ])('refuses the path %s with 400 naming the parameter', async (path) => {
    const res = await rawHttp(server.port, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).message).toMatch(/^path parameter itemId /);
  });

  it('decodes ordinary percent-encoded parameters', async () => {
    expect((await api.get('/probe/items/dev%20one%3A1')).json()).toEqual({ itemId: 'dev one:1' });
  });

  it('answers HEAD like GET without a body', async () => {
    const get = await rawHttp(server.port, 'GET /probe/items/x HTTP/1.1\r\nHost: x\r\n\r\n');
    const head = await new Promise<string>((resolve, reject) => {
      void import('node:net').then(({ connect }) => {
        const s = connect(server.port, '127.0.0.1', () => s.write('HEAD /probe/items/x HTTP/1.1\r\nHost: x\r\n\r\n'));
        let out = '';
        s.on('data', (d) => (out += d.toString()));
        s.on('error', reject);
        setTimeout(() => { s.destroy(); resolve(out); }, 200);
      });
    });
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(head).toContain(`Content-Length: ${get.body.length}`);
    expect(head.endsWith('\r\n\r\n')).toBe(true);
  });
});

describe('media types', () => {
  it('answers 406 when Accept excludes JSON, before a mutating handler runs', async () => {
    const before = calls;
    const res = await api.post('/probe/json', { json: { name: 'a', count: 1 }, headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(res.json().errorCode).toBe('hawkbit.server.error.rest.mediaType.notAcceptable');
    expect(calls).toBe(before);
    expect((await api.get('/health', { headers: { accept: 'application/xml' } })).status).toBe(406);
  });

  it('serves non-JSON replies whatever the Accept', async () => {
    const res = await api.get('/probe/text', { headers: { accept: 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('plain');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-probe')).toBe('yes');
  });

  it('answers hal+json first, as hawkBit does, and application/json when asked for it first', async () => {
    expect((await api.get('/health', { headers: { accept: 'application/hal+json' } })).headers.get('content-type')).toBe('application/hal+json');
    expect((await api.get('/health', { headers: { accept: 'application/json, application/hal+json' } })).headers.get('content-type')).toBe('application/json');
    expect((await api.get('/health', { headers: { accept: 'application/json' } })).headers.get('content-type')).toBe('application/json');
    expect((await api.get('/health', { headers: { accept: '*/*' } })).headers.get('content-type')).toBe('application/hal+json');
    expect((await api.get('/health')).headers.get('content-type')).toBe('application/hal+json');
  });

  it('answers 415 for a JSON route with another Content-Type', async () => {
    const res = await api.post('/probe/json', { body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.json().errorCode).toBe('hawkbit.server.error.rest.mediaType.unsupported');
    const ok = await api.post('/probe/json', { body: '{"name":"a","count":2}', headers: { 'content-type': 'application/hal+json; charset=utf-8' } });
    expect(ok.status).toBe(201);
  });
});

describe('bad bodies', () => {
  it.each([
    ['{"name":"a",', 'body: truncated JSON'],
    ['{"name":"a",}', 'body: malformed JSON'],
    ['', 'body: required request body is missing'],
  ])('answers 400 for %j naming the problem', async (body, message) => {
    const res = await api.post('/probe/json', { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json().errorCode).toBe('hawkbit.server.error.rest.body.notReadable');
    expect(res.json().message).toContain(message);
  });

  it('answers 400 for invalid UTF-8', async () => {
    const res = await api.post('/probe/json', { body: Buffer.from([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json().message).toBe('body: is not valid UTF-8');
  });

  it.each([
    [{ name: 5, count: 1 }, 'body.name: expected a string, got 5'],
    [{ name: 'a' }, 'body.count: required'],
    [{ name: 'a', count: 9000 }, 'body.count: must be at most 500, got 9000'],
    [{ name: 'a', count: '3' }, 'body.count: expected a number, got "3"'],
  ])('answers 400 for wrong types in %j', async (json, message) => {
    const res = await api.post('/probe/json', { json });
    expect(res.status).toBe(400);
    expect(res.json().message).toBe(message);
  });

  it('accepts a single object where an array is expected, and names array items', async () => {
    expect((await api.post('/probe/items', { json: { name: 'a', count: 1 } })).json()).toEqual([{ name: 'a', count: 1 }]);
    expect((await api.post('/probe/items', { json: [{ name: 'a', count: 1 }, {}] })).json().message).toBe('body[1].name: required; body[1].count: required');
  });

  it('answers a 50 MB body with 413 and keeps serving', async () => {
    const res = await api.post('/probe/json', { body: Buffer.alloc(50 * 1024 * 1024, 0x20), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.json().errorCode).toBe('hawkbit.server.error.rest.body.tooLarge');
    expect((await api.get('/health')).status).toBe(200);
  });

  it('stops a chunked body at the limit with 413 and closes the connection', async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    async function* chunks(): AsyncIterable<Buffer> {
      for (let i = 0; i < 3200; i++) {
        yield Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
        await new Promise((r) => setTimeout(r, 1)); // paced, so the 413 arrives before we write into a closed socket
      }
    }
    const res = await rawHttp(server.port, 'POST /probe/json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', chunks);
    expect(res.status).toBe(413);
    expect(res.headers['connection']).toBe('close');
    expect((await api.get('/health')).status).toBe(200);
  });
});

describe('failures', () => {
  it.each(['/probe/throw', '/probe/reject', '/probe/bigint'])('turns %s into a 500 error body and keeps serving', async (path) => {
    const res = await api.get(path);
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({
      exceptionClass: 'org.eclipse.hawkbit.exception.GenericSpServerException', errorCode: 'hawkbit.server.error.repo.genericError',
      message: 'An unexpected error occurred on the server.', requestId: expect.stringMatching(UUID),
    });
    expect((await api.get('/health')).status).toBe(200);
  });

  it('answers 503 when the store is unavailable and counts it', async () => {
    const res = await api.get('/probe/store-down');
    expect(res.status).toBe(503);
    expect(res.json().errorCode).toBe('peregrine.server.error.storeUnavailable');
    expect((await api.get('/metrics')).text).toMatch(/^store_errors_total [1-9]/m);
  });
});

describe('basic authentication', () => {
  it('answers 401 with WWW-Authenticate without credentials', async () => {
    const res = await api.get('/probe/secure');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="peregrine"');
    expect(res.json().errorCode).toBe('hawkbit.server.error.unauthorized');
  });

  it('answers 401 for a wrong password or garbled header', async () => {
    expect((await api.get('/probe/secure', { auth: ['admin', 'nope'] })).status).toBe(401);
    expect((await api.get('/probe/secure', { headers: { authorization: 'Basic %%%' } })).status).toBe(401);
  });

  it('answers 403 naming the missing permission', async () => {
    const res = await api.get('/probe/secure', { auth: ['viewer', 'admin'] });
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ errorCode: 'hawkbit.server.error.insufficientPermission', message: 'User viewer lacks the permission READ_TARGET' });
  });

  it('takes the tenant from the user; TENANT\\user picks among equal names', async () => {
    expect((await api.get('/probe/secure', { auth: ADMIN })).json()).toEqual({ tenant: 'DEFAULT', kind: 'mgmt' });
    expect((await api.get('/probe/secure', { auth: ['acme\\admin', 'admin'] })).json()).toEqual({ tenant: 'ACME', kind: 'mgmt' });
  });
});

describe('platform routes', () => {
  it('GET /health and GET /ready answer UP on the memory store', async () => {
    expect((await api.get('/health')).json()).toEqual({ status: 'UP' });
    const ready = await api.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'UP' });
  });

  it('GET /metrics exposes request counters per route and process metrics', async () => {
    await api.get('/health');
    await api.get('/nowhere');
    const res = await api.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^http_requests_total\{route="health",method="GET",status="200"\} \d+/m);
    expect(res.text).toMatch(/^http_requests_total\{route="unmatched",method="GET",status="404"\} \d+/m);
    expect(res.text).toContain('http_request_duration_seconds_bucket{le="0.005",route="health"}');
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });
});

describe('startup', () => {
  it('warns when a user has its username as password, and only then', async () => {
    const { Writable } = await import('node:stream');
    const { pino } = await import('pino');
    const { parseConfig, hashPassword } = await import('../../src/config/index.js');
    const { startServer } = await import('../../src/app/server.js');
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => { lines.push(chunk.toString()); done(); } });
    const config = parseConfig({
      server: { host: '127.0.0.1', port: 0 },
      tenants: [{ name: 'DEFAULT', users: [{ username: 'admin', password: ADMIN_HASH }, { username: 'ops', password: hashPassword('long-secret') }] }],
    });
    const running = await startServer(config, { logger: pino({ level: 'warn' }, sink) });
    await running.close();
    const warnings = lines.map((l) => JSON.parse(l) as { msg: string }).filter((l) => l.msg.includes('has its username as password'));
    expect(warnings.map((w) => w.msg)).toEqual(['user admin of tenant DEFAULT has its username as password; change it in config.yaml']);
  });
});
