/**
 * OIDC access tokens on the Management API (hawkBit 0.9+ as an OAuth2 resource server): tokens a
 * real provider issued (oidc-provider, test/helpers/oidc.ts) and every kind of bad token.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import { http, startTestServer, type TestServer } from '../../helpers/server.js';
import { oidcConfig, startOidcProvider, type TestOidcProvider } from '../../helpers/oidc.js';
import { ERROR_401, ERROR_403 } from './sign-in.js';

const ROLES = { 'peregrine-admin': ['ALL'], 'peregrine-reader': ['READ_TARGET'] };
let provider: TestOidcProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startOidcProvider({ users: [{ username: 'alice', roles: ['peregrine-admin'] }, { username: 'bob', roles: ['peregrine-reader', 'other'] }] });
  server = await startTestServer({ auth: { oidc: oidcConfig(provider, { roles: ROLES }) } });
});
afterAll(() => provider.close());

const get = (token: string, path = '/rest/v1/targets') => http(server.url).get(path, { headers: { authorization: `Bearer ${token}` } });
const now = () => Math.floor(Date.now() / 1000);

function expect401(res: Awaited<ReturnType<typeof get>>, reason: RegExp): void {
  expect(res.status).toBe(401);
  expect(res.json()).toMatchObject(ERROR_401);
  expect(res.json().message).toMatch(reason);
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="peregrine", error="invalid_token"');
}

describe('tokens the provider issued', () => {
  test('a role mapped to ALL: 200 everywhere, and the user is named by preferred_username', async () => {
    const token = await provider.accessToken('alice');
    expect((await get(token)).status).toBe(200);
    expect((await get(token)).status).toBe(200); // the second time from the cache
    const info = await get(token, '/rest/v1/userinfo');
    expect(info.json()).toMatchObject({ tenant: 'DEFAULT', username: 'alice' });
    const created = await http(server.url).post('/rest/v1/targets', { headers: { authorization: `Bearer ${token}` }, json: [{ controllerId: 'by-token' }] });
    expect(created.status).toBe(201); // no CSRF token: a bearer token is no ambient credential
  });

  test('a role without the permission: 403; unmapped roles grant nothing', async () => {
    const token = await provider.accessToken('bob');
    expect((await get(token)).status).toBe(200);
    const res = await http(server.url).post('/rest/v1/targets', { headers: { authorization: `Bearer ${token}` }, json: [{ controllerId: 'x' }] });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ ...ERROR_403, message: 'User bob lacks the permission CREATE_TARGET' });
    const none = await provider.accessToken('carol', ['other']);
    expect((await get(none)).status).toBe(403);
  });

  test('roles from a nested claim (rolesClaim realm_access.roles, Keycloak\'s)', async () => {
    const s = await startTestServer({ auth: { oidc: oidcConfig(provider, { roles: ROLES, rolesClaim: 'realm_access.roles', usernameClaim: 'email' }) } });
    const res = await http(s.url).get('/rest/v1/userinfo', { headers: { authorization: `Bearer ${await provider.accessToken('alice')}` } });
    expect(res.json()).toMatchObject({ username: 'alice@example.test' });
    expect(res.json().permissions).toContain('CREATE_TARGET');
  });
});

describe('bad tokens: 401', () => {
  test('expired, and not yet valid', async () => {
    expect401(await get(await provider.sign({ sub: 'alice', aud: provider.audience, roles: ['peregrine-admin'], exp: now() - 120, iat: now() - 3720 })), /"exp" claim/);
    expect401(await get(await provider.sign({ sub: 'alice', aud: provider.audience, exp: now() + 3600, nbf: now() + 600 })), /"nbf" claim/);
  });

  test('no exp at all', async () => {
    expect401(await get(await provider.sign({ sub: 'alice', aud: provider.audience })), /"exp" claim/);
  });

  test('signed by a foreign key, even under the provider\'s key id', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ iss: provider.issuer, sub: 'alice', aud: provider.audience, roles: ['peregrine-admin'] })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' }).setExpirationTime('1h').sign(privateKey);
    expect401(await get(forged), /signature verification failed/);
  });

  test('another issuer, another audience', async () => {
    expect401(await get(await provider.sign({ iss: 'http://evil.example', sub: 'alice', aud: provider.audience, exp: now() + 600 })), /"iss" claim/);
    expect401(await get(await provider.sign({ sub: 'alice', aud: 'someone-else', exp: now() + 600 })), /"aud" claim/);
  });

  test('a real token with its payload changed (roles added)', async () => {
    const [head, body = '', sig] = (await provider.accessToken('bob')).split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    claims.roles = ['peregrine-admin'];
    expect401(await get(`${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`), /signature verification failed/);
  });

  test('unsigned (alg none)', async () => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: provider.issuer, sub: 'alice', aud: provider.audience, exp: now() + 600, roles: ['peregrine-admin'] })}.`;
    expect401(await get(unsigned), /alg/);
  });

  test('garbage after Bearer', async () => {
    expect401(await get('not.a.jwt'), /.+/);
  });
});

test('without auth.oidc a Bearer header is no Basic credential: 401 as before', async () => {
  const plain = await startTestServer();
  const res = await http(plain.url).get('/rest/v1/targets', { headers: { authorization: `Bearer ${await provider.accessToken('alice')}` } });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Basic realm="peregrine"');
  expect(res.json()).toEqual({ ...ERROR_401, message: 'Authorization header is not valid HTTP Basic credentials' });
});

test('Basic keeps working beside auth.oidc', async () => {
  expect((await http(server.url).get('/rest/v1/targets', { auth: ['admin', 'admin'] })).status).toBe(200);
  expect((await http(server.url).get('/rest/v1/targets', { auth: ['admin', 'wrong'] })).json().message).toBe('Bad credentials');
});
