/**
 * Password sign-in for people (issue 22): login, the session cookie on the Management API, its CSRF
 * rules, logout, and every way a cookie is refused (tampered, another key, expired, user gone).
 */
import { describe, expect, test } from 'vitest';
import { SessionCodec } from '../../../src/auth/session.js';
import { ADMIN_HASH, http, startTestServer } from '../../helpers/server.js';
import { ERROR_401, ERROR_403, login, tamper } from './sign-in.js';

const READER = { username: 'reader', password: ADMIN_HASH, permissions: ['READ_TARGET'] }; // password "admin"
const SECRET = 'a-shared-session-secret-of-32-chars-or-more';

async function server(overrides: Record<string, unknown> = {}) {
  return startTestServer({
    tenants: [{ name: 'DEFAULT', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }, READER] }],
    ...overrides,
  });
}

describe('password sign-in', () => {
  test('auth-methods answers without credentials', async () => {
    const s = await server();
    const res = await http(s.url).get('/ui/api/auth-methods');
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ password: true, oidc: { enabled: false, loginUrl: '/ui/oidc/login' } });
  });

  test('login, session, Management GET with the cookie, logout', async () => {
    const s = await server();
    const before = Date.now();
    const me = await login(s.url);
    expect(me.json).toMatchObject({ tenant: 'DEFAULT', username: 'admin', source: 'password', csrf: me.csrf });
    expect(me.json.permissions).toContain('READ_TARGET');
    expect(me.json.permissions).toContain('ALL');
    expect(me.json.expiresAt).toBeGreaterThanOrEqual(before + 480 * 60_000);
    expect(me.setCookie).toMatch(/; Path=\/; Max-Age=28800; HttpOnly; SameSite=Strict$/);
    expect(me.csrf).toMatch(/^[\w-]{20,}$/);

    const api = http(s.url);
    const session = await api.get('/ui/api/session', { headers: { cookie: me.cookie } });
    expect(session.status).toBe(200);
    expect(session.json()).toEqual(me.json);
    expect((await api.get('/rest/v1/targets', { headers: { cookie: me.cookie } })).status).toBe(200);
    const info = await api.get('/rest/v1/userinfo', { headers: { cookie: me.cookie } });
    expect(info.json()).toMatchObject({ tenant: 'DEFAULT', username: 'admin' });

    const noCsrf = await api.post('/ui/api/logout', { headers: { cookie: me.cookie } });
    expect(noCsrf.status).toBe(403);
    const out = await api.post('/ui/api/logout', { headers: { cookie: me.cookie, 'x-csrf-token': me.csrf } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe('peregrine_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
    expect((await api.get('/ui/api/session')).status).toBe(401);
  });

  test('a tenant-qualified login, and the tenant field', async () => {
    const s = await server();
    expect((await login(s.url, 'DEFAULT\\reader')).json.username).toBe('reader');
    const me = await login(s.url, 'reader', 'admin', 'default');
    expect(me.json).toMatchObject({ tenant: 'DEFAULT', username: 'reader', permissions: ['READ_TARGET'] });
  });

  test('wrong password, unknown user and missing fields', async () => {
    const s = await server();
    const api = http(s.url);
    for (const json of [{ username: 'admin', password: 'nope' }, { username: 'ghost', password: 'admin' }, { username: 'admin', password: 'admin', tenant: 'OTHER' }]) {
      const res = await api.post('/ui/api/login', { json });
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ ...ERROR_401, message: 'Bad credentials' });
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('www-authenticate')).toBeNull(); // no browser password dialog
    }
    const missing = await api.post('/ui/api/login', { json: { password: 'admin' } });
    expect(missing.status).toBe(400);
    expect(missing.json()).toMatchObject({ errorCode: 'hawkbit.server.error.rest.body.notReadable', message: 'body.username: required' });
    expect((await api.post('/ui/api/login', { json: { username: 'admin' } })).json().message).toBe('body.password: required');
  });

  test('the Management API needs the permission: 403 for a session without it', async () => {
    const s = await server();
    const me = await login(s.url, 'reader');
    const api = http(s.url);
    expect((await api.get('/rest/v1/targets', { headers: { cookie: me.cookie } })).status).toBe(200);
    const res = await api.post('/rest/v1/targets', { headers: { cookie: me.cookie, 'x-csrf-token': me.csrf }, json: [{ controllerId: 'x' }] });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ ...ERROR_403, message: 'User reader lacks the permission CREATE_TARGET' });
  });
});

describe('CSRF on cookie-authenticated changes', () => {
  test('no token, a wrong token or a foreign Origin: 403; the right token (and our own Origin): done', async () => {
    const s = await server();
    const me = await login(s.url);
    const api = http(s.url);
    const create = (headers: Record<string, string>, id: string) => api.post('/rest/v1/targets', { headers: { cookie: me.cookie, ...headers }, json: [{ controllerId: id }] });

    const none = await create({}, 'a');
    expect(none.status).toBe(403);
    expect(none.json()).toMatchObject(ERROR_403);
    expect(none.json().message).toMatch(/CSRF/);
    const wrong = await create({ 'x-csrf-token': `${me.csrf.slice(0, -1)}x` }, 'b');
    expect(wrong.status).toBe(403);
    expect(wrong.json().message).toMatch(/X-CSRF-Token/);
    const foreign = await create({ 'x-csrf-token': me.csrf, origin: 'https://evil.example' }, 'c');
    expect(foreign.status).toBe(403);
    expect(foreign.json().message).toBe(`CSRF check failed: Origin https://evil.example is not this server (${s.url})`);
    expect((await api.get('/rest/v1/targets', { headers: { cookie: me.cookie } })).json().total).toBe(0); // nothing was created

    expect((await create({ 'x-csrf-token': me.csrf }, 'd')).status).toBe(201);
    expect((await create({ 'x-csrf-token': me.csrf, origin: s.url }, 'e')).status).toBe(201);
    const del = await api.delete('/rest/v1/targets/d', { headers: { cookie: me.cookie } });
    expect(del.status).toBe(403);
  });

  test('Basic requests need no CSRF token, even with a cookie beside them', async () => {
    const s = await server();
    const me = await login(s.url);
    const res = await http(s.url).post('/rest/v1/targets', { auth: ['admin', 'admin'], headers: { cookie: me.cookie }, json: [{ controllerId: 'basic' }] });
    expect(res.status).toBe(201);
  });
});

describe('refused cookies: 401', () => {
  test('any changed byte: the tenant, the user, the CSRF value, the signature', async () => {
    const s = await server();
    const me = await login(s.url, 'reader');
    const api = http(s.url);
    const [name, value = ''] = me.cookie.split('=');
    const flipped = (i: number) => `${name}=${value.slice(0, i)}${value[i] === 'A' ? 'B' : 'A'}${value.slice(i + 1)}`;
    const forged = [
      tamper(me.cookie, (p) => { p['t'] = 'OTHER'; }),
      tamper(me.cookie, (p) => { p['u'] = 'admin'; }),
      tamper(me.cookie, (p) => { p['e'] = Number(p['e']) + 1; }),
      flipped(3), flipped(value.length - 1), flipped(value.indexOf('.') + 1),
      `${me.cookie}x`, `${name}=garbage`,
    ];
    for (const cookie of forged) {
      const res = await api.get('/rest/v1/targets', { headers: { cookie } });
      expect(res.status, cookie).toBe(401);
      expect(res.json()).toEqual({ ...ERROR_401, message: 'The session has expired or is not valid; sign in again' });
      expect(res.headers.get('www-authenticate')).toBe('Cookie realm="peregrine"');
      expect((await api.get('/ui/api/session', { headers: { cookie } })).status).toBe(401);
    }
  });

  test('a cookie of a server with another secret; the same secret works across servers', async () => {
    const a = await server({ auth: { session: { secret: SECRET } } });
    const b = await server({ auth: { session: { secret: SECRET } } });
    const c = await server();
    const me = await login(a.url);
    expect((await http(b.url).get('/rest/v1/targets', { headers: { cookie: me.cookie } })).status).toBe(200);
    expect((await http(c.url).get('/rest/v1/targets', { headers: { cookie: me.cookie } })).status).toBe(401);
  });

  test('an expired session (minted with a clock 9 hours back)', async () => {
    const s = await server({ auth: { session: { secret: SECRET } } });
    const ttl = 480 * 60_000;
    const past = new SessionCodec(Buffer.from(SECRET), ttl, () => Date.now() - ttl - 60_000).issue({ tenant: 'DEFAULT', username: 'admin', source: 'password' });
    const fresh = new SessionCodec(Buffer.from(SECRET), ttl, () => Date.now()).issue({ tenant: 'DEFAULT', username: 'admin', source: 'password' });
    const api = http(s.url);
    expect((await api.get('/rest/v1/targets', { headers: { cookie: `peregrine_session=${past.value}` } })).status).toBe(401);
    expect((await api.get('/rest/v1/targets', { headers: { cookie: `peregrine_session=${fresh.value}` } })).status).toBe(200);
  });

  test('a user no longer configured', async () => {
    const a = await server({ auth: { session: { secret: SECRET } } });
    const me = await login(a.url, 'reader');
    const b = await startTestServer({ auth: { session: { secret: SECRET } } }); // only admin
    const res = await http(b.url).get('/rest/v1/targets', { headers: { cookie: me.cookie } });
    expect(res.status).toBe(401);
  });

  test('no session cookie (or an emptied one) and no credentials: Basic\'s 401 and challenge as ever', async () => {
    const s = await server();
    const res = await http(s.url).get('/rest/v1/targets', { headers: { cookie: 'other=1; peregrine_session=' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="peregrine"');
    expect(res.json()).toEqual({ ...ERROR_401, message: 'Full authentication is required to access this resource' });
  });
});

test('Secure cookies when the client came over https (X-Forwarded-Proto from a trusted proxy)', async () => {
  const s = await server({ server: { trustedProxies: ['127.0.0.1'] } });
  const res = await http(s.url).post('/ui/api/login', { json: { username: 'admin', password: 'admin' }, headers: { 'x-forwarded-proto': 'https' } });
  expect(res.headers.get('set-cookie')).toMatch(/; SameSite=Strict; Secure$/);
});
