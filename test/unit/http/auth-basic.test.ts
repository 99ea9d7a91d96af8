import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import { AppError } from '../../../src/domain/errors.js';
import { basicAuth, missingPermission, parseBasic } from '../../../src/http/auth-basic.js';
import { HttpRequest } from '../../../src/http/request.js';
import { ADMIN_HASH } from '../../helpers/server.js';

const config = parseConfig({
  tenants: [
    { name: 'acme', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['ALL'] }, { username: 'reader', password: ADMIN_HASH, permissions: ['READ_TARGET'] }] },
    { name: 'other', users: [{ username: 'admin', password: ADMIN_HASH, permissions: ['READ_ROLLOUT'] }] },
  ],
});

function requestWith(authorization?: string): HttpRequest {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  return new HttpRequest({ method: 'GET', path: '/', rawQuery: '', headers, params: {}, remote: new Uint8Array([127, 0, 0, 1]), fromTrustedProxy: false, fallbackHost: 'x' });
}
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

describe('basic auth', () => {
  it('parses credentials, keeping colons in the password', () => {
    expect(parseBasic(basic('u', 'p:a:ss'))).toEqual({ username: 'u', password: 'p:a:ss' });
    expect(parseBasic(undefined)).toBeUndefined();
  });

  it.each(['Bearer abc', 'Basic', 'Basic !!!', `Basic ${Buffer.from('nocolon').toString('base64')}`])('refuses the garbled header %j with 401', (header) => {
    expect(() => parseBasic(header)).toThrow(AppError);
  });

  it('authenticates and takes the tenant from the user (first tenant for a shared name)', async () => {
    const p = await basicAuth(() => config.tenants)(requestWith(basic('admin', 'admin')));
    expect(p).toMatchObject({ kind: 'mgmt', tenant: 'ACME', username: 'admin' });
    expect(p.kind === 'mgmt' && p.permissions.has('READ_TARGET')).toBe(true);
  });

  it('accepts TENANT\\username to pick a tenant', async () => {
    const p = await basicAuth(() => config.tenants)(requestWith(basic('other\\admin', 'admin')));
    expect(p).toMatchObject({ tenant: 'OTHER', username: 'admin' });
  });

  it('answers 401 with WWW-Authenticate for missing, unknown and wrong credentials', async () => {
    for (const header of [undefined, basic('nobody', 'admin'), basic('admin', 'wrong'), basic('nosuch\\admin', 'admin')]) {
      const err = await rejection(Promise.resolve(basicAuth(() => config.tenants)(requestWith(header))));
      expect(err.code).toBe('UNAUTHORIZED');
      expect(err.headers).toEqual({ 'WWW-Authenticate': 'Basic realm="peregrine"' });
    }
  });

  it('answers 403 naming the missing permission', async () => {
    const err = await rejection(Promise.resolve(basicAuth(() => config.tenants, 'CREATE_TARGET')(requestWith(basic('reader', 'admin')))));
    expect(err.code).toBe('INSUFFICIENT_PERMISSION');
    expect(err.message).toContain('CREATE_TARGET');
    await expect(basicAuth(() => config.tenants, 'READ_TARGET')(requestWith(basic('reader', 'admin')))).resolves.toMatchObject({ username: 'reader' });
  });

  it('checks all-of and any-of requirements; ALL satisfies everything', () => {
    const perms = new Set(['READ_TARGET', 'READ_ROLLOUT']);
    expect(missingPermission(perms, ['READ_TARGET', 'READ_ROLLOUT'])).toBeUndefined();
    expect(missingPermission(perms, ['READ_TARGET', 'CREATE_TARGET'])).toBe('CREATE_TARGET');
    expect(missingPermission(perms, { anyOf: ['CREATE_TARGET', 'READ_TARGET'] })).toBeUndefined();
    expect(missingPermission(perms, { anyOf: ['CREATE_TARGET', 'DELETE_TARGET'] })).toBe('CREATE_TARGET or DELETE_TARGET');
    expect(missingPermission(new Set(['ALL']), 'ANYTHING')).toBeUndefined();
  });
});
