/**
 * Signing in to the console through a real OpenID provider (oidc-provider in process): the
 * authorization code flow with PKCE driven over HTTP as a browser would, and its failures, each of
 * which lands on the console's sign-in page with a short reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CookieJar, oidcConfig, startOidcProvider, type TestOidcProvider } from '../../helpers/oidc.js';
import { http, startTestServer, type TestServer } from '../../helpers/server.js';

const ROLES = { 'peregrine-admin': ['ALL'], 'peregrine-reader': ['READ_TARGET'] };
let provider: TestOidcProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startOidcProvider({ users: [{ username: 'alice', roles: ['peregrine-admin'] }, { username: 'bob', roles: ['peregrine-reader'] }] });
  server = await startTestServer({ auth: { oidc: oidcConfig(provider, { roles: ROLES }) } });
});
afterAll(() => provider.close());

/** GET on peregrine without following redirects, keeping its cookies in `jar`. */
async function visit(jar: CookieJar, url: string): Promise<Response> {
  const res = await fetch(url.startsWith('http') ? url : server.url + url, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(res);
  return res;
}

/** /ui/oidc/login: the redirect to the provider and its parameters. */
async function start(jar: CookieJar): Promise<URL> {
  const res = await visit(jar, '/ui/oidc/login');
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location') ?? '');
}

function loginError(res: Response): string | null {
  expect(res.status).toBe(302);
  const location = res.headers.get('location') ?? '';
  expect(location).toMatch(/^\/ui\/#\/login\?error=/);
  return new URLSearchParams(location.slice(location.indexOf('?') + 1)).get('error');
}

describe('the code flow with PKCE', () => {
  test('login -> provider login and consent pages -> callback -> a session cookie that works on /rest/v1/targets', async () => {
    const jar = new CookieJar();
    const authorize = await start(jar);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${provider.issuer}/auth`);
    const q = authorize.searchParams;
    expect(Object.fromEntries([...q].filter(([k]) => ['response_type', 'client_id', 'redirect_uri', 'scope', 'code_challenge_method'].includes(k)))).toEqual({
      response_type: 'code', client_id: 'peregrine', redirect_uri: `${server.url}/ui/oidc/callback`, scope: 'openid profile email', code_challenge_method: 'S256',
    });
    for (const k of ['state', 'nonce', 'code_challenge']) expect(q.get(k)).toMatch(/^[\w-]{43}$/);
    const flowCookie = jar.get('peregrine_oidc');
    expect(flowCookie).toBeDefined();

    const back = await provider.signIn(authorize.href, 'alice');
    expect(back.startsWith(`${server.url}/ui/oidc/callback?`)).toBe(true);
    const done = await visit(jar, back);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/ui/');
    const cookies = done.headers.getSetCookie();
    expect(cookies).toHaveLength(2); // the session, and the flow cookie deleted
    expect(cookies[0]).toMatch(/^peregrine_session=[\w-]+\.[\w-]+; Path=\/; Max-Age=28800; HttpOnly; SameSite=Strict$/);
    expect(cookies[1]).toBe('peregrine_oidc=; Path=/ui/oidc; Max-Age=0; HttpOnly; SameSite=Lax');
    expect(jar.get('peregrine_oidc')).toBeUndefined();

    const api = http(server.url);
    const session = await api.get('/ui/api/session', { headers: { cookie: jar.header() } });
    expect(session.status).toBe(200);
    expect(session.json()).toMatchObject({ tenant: 'DEFAULT', username: 'alice', source: 'oidc' });
    expect(session.json().permissions).toContain('CREATE_TARGET');
    expect((await api.get('/rest/v1/targets', { headers: { cookie: jar.header() } })).status).toBe(200);
    const created = await api.post('/rest/v1/targets', { headers: { cookie: jar.header(), 'x-csrf-token': session.json().csrf }, json: [{ controllerId: 'oidc-made' }] });
    expect(created.status).toBe(201);

    // the same callback again: the flow cookie is gone, so it is refused before the provider is asked
    expect(loginError(await visit(jar, back))).toMatch(/sign-in expired|state/);
  });

  test('the flow cookie is Lax, HttpOnly, for /ui/oidc, 10 minutes', async () => {
    const res = await fetch(`${server.url}/ui/oidc/login`, { redirect: 'manual' });
    expect(res.headers.get('set-cookie')).toMatch(/^peregrine_oidc=[\w-]+\.[\w-]+; Path=\/ui\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });

  test('a reader gets the mapped permissions only', async () => {
    const jar = new CookieJar();
    await visit(jar, await provider.signIn((await start(jar)).href, 'bob'));
    const session = await http(server.url).get('/ui/api/session', { headers: { cookie: jar.header() } });
    expect(session.json().permissions).toEqual(['READ_TARGET']);
  });

  test('auth-methods announces the provider', async () => {
    expect((await http(server.url).get('/ui/api/auth-methods')).json()).toEqual({ password: true, oidc: { enabled: true, loginUrl: '/ui/oidc/login' } });
  });
});

describe('failures land on the sign-in page', () => {
  test('a user whose roles map to no permission', async () => {
    const jar = new CookieJar();
    const res = await visit(jar, await provider.signIn((await start(jar)).href, 'mallory'));
    expect(loginError(res)).toBe('no role of mallory grants a permission in peregrine');
    expect(jar.get('peregrine_session')).toBeUndefined();
  });

  test('the provider\'s error, a wrong state, no flow cookie, no code (each failure ends the attempt)', async () => {
    const callback = async (query: (state: string) => string, keepCookie = true): Promise<string | null> => {
      const jar = new CookieJar();
      const state = (await start(jar)).searchParams.get('state') ?? '';
      const res = await visit(keepCookie ? jar : new CookieJar(), `/ui/oidc/callback?${query(state)}`);
      expect(res.headers.get('set-cookie')).toBe('peregrine_oidc=; Path=/ui/oidc; Max-Age=0; HttpOnly; SameSite=Lax');
      return loginError(res);
    };
    expect(await callback((st) => `error=access_denied&error_description=End-User%20aborted&state=${st}`)).toBe('the provider refused: End-User aborted');
    expect(await callback(() => 'code=abc&state=wrong')).toBe('sign-in state does not match; try again');
    expect(await callback((st) => `state=${st}`)).toBe('the provider sent no authorization code');
    expect(await callback((st) => `code=abc&state=${st}`, false)).toBe('sign-in expired or was not started here; try again');
  });

  test('a code the provider does not know', async () => {
    const jar = new CookieJar();
    const state = (await start(jar)).searchParams.get('state') ?? '';
    expect(loginError(await visit(jar, `/ui/oidc/callback?code=made-up&state=${state}`))).toBe('the provider refused the authorization code (400)');
  });

  test('a wrong client secret: the exchange fails', async () => {
    const s = await startTestServer({ auth: { oidc: oidcConfig(provider, { roles: ROLES, clientSecret: 'wrong' }) } });
    const jar = new CookieJar();
    const res = await fetch(`${s.url}/ui/oidc/login`, { redirect: 'manual' });
    jar.take(res);
    const back = await provider.signIn(res.headers.get('location') ?? '', 'alice');
    const done = await fetch(back, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(loginError(done)).toMatch(/^the provider refused the authorization code \(40[01]\)$/);
  });

  test('a provider that cannot be reached: no 500, a reason', async () => {
    const s = await startTestServer({ auth: { oidc: { issuer: 'http://127.0.0.1:9', clientId: 'x', roles: ROLES } } });
    const res = await fetch(`${s.url}/ui/oidc/login`, { redirect: 'manual' });
    expect(loginError(res)).toBe('the OpenID provider could not be used; try again later');
  });
});
