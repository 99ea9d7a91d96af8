/** The pure parts of sign-in: claims, roles, cookies, and the flow cookie's 10 minutes on an injected clock. */
import { describe, expect, test } from 'vitest';
import { createAuth } from '../../../src/auth/index.js';
import { claimAt, permissionsOf, rolesOf, usernameOf } from '../../../src/auth/claims.js';
import { readCookie } from '../../../src/auth/cookies.js';
import type { OidcIssuer } from '../../../src/auth/oidc-issuer.js';
import { parseConfig } from '../../../src/config/index.js';
import { beginSignIn, finishSignIn } from '../../../src/session/oidc-flow.js';

describe('claims', () => {
  const claims = { sub: 's-1', preferred_username: '', email: 'a@x', realm_access: { roles: ['ops', 7, 'admin'] }, scope_roles: 'ops  viewer' };

  test('a dot path reaches nested claims and nothing inherited', () => {
    expect(claimAt(claims, 'realm_access.roles')).toEqual(['ops', 7, 'admin']);
    expect(claimAt(claims, 'realm_access.missing.deeper')).toBeUndefined();
    expect(claimAt(claims, 'email.length')).toBeUndefined();
    expect(claimAt(claims, 'constructor')).toBeUndefined();
  });

  test('roles: a list (strings only) or one space-separated string; none when absent', () => {
    expect(rolesOf(claims, { rolesClaim: 'realm_access.roles' })).toEqual(['ops', 'admin']);
    expect(rolesOf(claims, { rolesClaim: 'scope_roles' })).toEqual(['ops', 'viewer']);
    expect(rolesOf(claims, { rolesClaim: 'roles' })).toEqual([]);
  });

  test('permissions: the union of mapped roles, sorted, each once; unmapped and inherited names grant nothing', () => {
    const roles = { ops: ['UPDATE_TARGET', 'READ_TARGET'], viewer: ['READ_TARGET'] };
    expect(permissionsOf(['viewer', 'ops', 'stranger', 'toString'], { roles })).toEqual(['READ_TARGET', 'UPDATE_TARGET']);
  });

  test('username: the configured claim when a non-empty string, else sub', () => {
    expect(usernameOf(claims, { usernameClaim: 'email' })).toBe('a@x');
    expect(usernameOf(claims, { usernameClaim: 'preferred_username' })).toBe('s-1');
    expect(usernameOf({}, { usernameClaim: 'email' })).toBeUndefined();
  });
});

test('readCookie finds one cookie among several, quoted or not', () => {
  expect(readCookie('a=1; peregrine_session=abc.def; b=2', 'peregrine_session')).toBe('abc.def');
  expect(readCookie('peregrine_session="q.v"', 'peregrine_session')).toBe('q.v');
  expect(readCookie('xperegrine_session=1', 'peregrine_session')).toBeUndefined();
  expect(readCookie(undefined, 'a')).toBeUndefined();
});

test('the flow cookie lasts 10 minutes (clock injected, no sleeping)', async () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const config = parseConfig({ tenants: [{ name: 'DEFAULT' }], auth: { oidc: { issuer: 'http://id.test', clientId: 'c' } } });
  const auth = createAuth(config, () => config.tenants, () => now);
  const oidc = {
    settings: config.auth.oidc,
    metadata: async () => ({ issuer: 'http://id.test', authorization_endpoint: 'http://id.test/auth', token_endpoint: 'http://127.0.0.1:9/token', jwks_uri: 'http://id.test/jwks' }),
  } as unknown as OidcIssuer;
  const { location, cookie } = await beginSignIn(auth, oidc, 'http://peregrine.test');
  const state = new URL(location).searchParams.get('state') ?? '';
  now += 600_001;
  await expect(finishSignIn(auth, oidc, cookie, new URLSearchParams({ code: 'c', state }))).rejects.toThrow('sign-in expired or was not started here; try again');
  now -= 2;
  // still within the 10 minutes: past the cookie checks, on to the (unreachable) token endpoint
  await expect(finishSignIn(auth, oidc, cookie, new URLSearchParams({ code: 'c', state }))).rejects.toThrow('the provider could not be reached to finish the sign-in');
});
