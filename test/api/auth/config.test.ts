/** config.yaml's `auth` keys: defaults, and startup errors that name the key. */
import { describe, expect, test } from 'vitest';
import type { Logger } from 'pino';
import { createAuth } from '../../../src/auth/index.js';
import { parseConfig } from '../../../src/config/index.js';
import { sessionModule } from '../../../src/session/index.js';

const TENANTS = { tenants: [{ name: 'default' }, { name: 'lab' }] };
const OIDC = { issuer: 'https://id.example.com/realms/fleet', clientId: 'peregrine' };

const errorOf = (raw: unknown): string => {
  try {
    parseConfig(raw, { source: 'config.yaml' });
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('auth configuration', () => {
  test('defaults: a generated secret, 8 hours, no OpenID provider', () => {
    const a = parseConfig({}).auth;
    const b = parseConfig({}).auth;
    expect(a.session.ttlMinutes).toBe(480);
    expect(a.session.secretGenerated).toBe(true);
    expect(a.session.secret.length).toBeGreaterThanOrEqual(32);
    expect(a.session.secret).not.toBe(b.session.secret);
    expect(a.oidc).toBeUndefined();
    const given = parseConfig({ auth: { session: { secret: 'x'.repeat(32), ttlMinutes: 60 } } }).auth.session;
    expect(given).toEqual({ secret: 'x'.repeat(32), ttlMinutes: 60, secretGenerated: false });
  });

  test('oidc defaults and a Keycloak-style mapping', () => {
    const oidc = parseConfig({ ...TENANTS, auth: { oidc: { ...OIDC, tenant: 'lab', rolesClaim: 'realm_access.roles', roles: { ops: ['READ_TARGET', 'UPDATE_TARGET'], admin: ['ALL'] }, scopes: 'openid  roles' } } }).auth.oidc;
    expect(oidc).toEqual({
      ...OIDC, tenant: 'LAB', usernameClaim: 'preferred_username', rolesClaim: 'realm_access.roles',
      roles: { ops: ['READ_TARGET', 'UPDATE_TARGET'], admin: ['ALL'] }, scopes: ['openid', 'roles'],
    });
    expect(parseConfig({ ...TENANTS, auth: { oidc: OIDC } }).auth.oidc).toMatchObject({ tenant: 'DEFAULT', rolesClaim: 'roles', scopes: ['openid', 'profile', 'email'], roles: {} });
  });

  test.each([
    [{ auth: { oidc: { ...OIDC, tenant: 'nowhere' } } }, 'config.yaml: auth.oidc.tenant: tenant "NOWHERE" is not configured in tenants'],
    [{ ...TENANTS, auth: { oidc: { ...OIDC, roles: { ops: ['READ_TARGET', 'FLY'] } } } }, 'config.yaml: auth.oidc.roles.ops[1]: unknown permission "FLY"'],
    [{ ...TENANTS, auth: { oidc: { clientId: 'x' } } }, 'config.yaml: auth.oidc.issuer: required'],
    [{ ...TENANTS, auth: { oidc: { ...OIDC, issuer: 'id.example.com' } } }, 'config.yaml: auth.oidc.issuer: expected an http:// or https:// URL without query, got "id.example.com"'],
    [{ ...TENANTS, auth: { oidc: { ...OIDC, redirectUrl: 'ftp://x' } } }, 'config.yaml: auth.oidc.redirectUrl: expected an http:// or https:// URL without query, got "ftp://x"'],
    [{ ...TENANTS, auth: { oidc: { ...OIDC, rolesClaim: 'a..b' } } }, 'config.yaml: auth.oidc.rolesClaim: expected a dot path such as realm_access.roles, got "a..b"'],
    [{ ...TENANTS, auth: { oidc: { ...OIDC, clientSecret: '' } } }, 'config.yaml: auth.oidc.clientSecret: must be at least 1 character'],
    [{ ...TENANTS, auth: { oidc: { ...OIDC, client: 'x' } } }, 'config.yaml: auth.oidc: unknown key: client'],
    [{ auth: { session: { secret: 'short' } } }, 'config.yaml: auth.session.secret: expected at least 32 characters'],
    [{ auth: { session: { ttlMinutes: 0 } } }, 'config.yaml: auth.session.ttlMinutes: '],
  ])('%j -> %s', (raw, message) => {
    expect(errorOf(raw)).toContain(message);
  });
});

test.each([
  ['redis', undefined, 1],
  ['redis', 'y'.repeat(32), 0],
  ['memory', undefined, 0],
])('store %s with secret %s: %i warning(s) at start about the session secret', async (kind, secret, count) => {
  const config = parseConfig({ store: { kind }, auth: { session: secret === undefined ? {} : { secret } } });
  const warnings: string[] = [];
  const logger = { warn: (msg: string) => warnings.push(msg), info: () => undefined } as unknown as Logger;
  await sessionModule({ auth: createAuth(config, () => config.tenants, Date.now), ctx: { config, logger } }).start?.();
  expect(warnings).toHaveLength(count);
  if (count > 0) expect(warnings[0]).toMatch(/^auth\.session\.secret is not set/);
});
