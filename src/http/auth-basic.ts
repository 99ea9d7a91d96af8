/**
 * HTTP Basic authentication for the Management API against the users of config.yaml
 * (spec section 5). The tenant comes from the user. A username may exist in several tenants:
 * `TENANT\username` picks one explicitly, a bare name means its first tenant in config order.
 * Passwords are scrypt hashes compared in constant time; a successful check is cached, so only
 * the first request of a user (and every failed one) pays for scrypt, on the thread pool.
 */
import { AppError } from '../domain/errors.js';
import { expandPermissions, hashPassword, verifyPasswordAsync, type TenantConfig } from '../config/index.js';

/** A tenant's users: config.yaml's entry, or a runtime tenant's (src/tenancy/registry.ts). */
type TenantUsers = Pick<TenantConfig, 'name' | 'users'>;
import type { Authenticator, MgmtPrincipal } from './types.js';

export const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Basic realm="peregrine"' } as const;

/** A permission name, all of several names, or any one of several. `ALL` always satisfies it. */
export type PermissionRequirement = string | readonly string[] | { readonly anyOf: readonly string[] };

/** A user of config.yaml with the permissions it holds (`ALL` expanded). */
export interface LocalAccount {
  readonly tenant: string;
  readonly username: string;
  readonly hash: string;
  readonly permissions: ReadonlySet<string>;
}

interface Directory {
  /** By bare username, in tenant order. */
  readonly byName: ReadonlyMap<string, readonly LocalAccount[]>;
  /** By `TENANT\username`. */
  readonly byQualified: ReadonlyMap<string, LocalAccount>;
}

const directories = new WeakMap<readonly TenantUsers[], Directory>();

function directoryOf(tenants: readonly TenantUsers[]): Directory {
  let dir = directories.get(tenants);
  if (dir !== undefined) return dir;
  const byName = new Map<string, LocalAccount[]>();
  const byQualified = new Map<string, LocalAccount>();
  for (const tenant of tenants) {
    for (const user of tenant.users) {
      const account: LocalAccount = {
        tenant: tenant.name, username: user.username, hash: user.password, permissions: expandPermissions(user.permissions),
      };
      const list = byName.get(user.username) ?? [];
      list.push(account);
      byName.set(user.username, list);
      byQualified.set(`${tenant.name}\\${user.username}`, account);
    }
  }
  dir = { byName, byQualified };
  directories.set(tenants, dir);
  return dir;
}

// Unknown users are checked against this hash too, so a wrong username costs what a wrong password does.
let dummyHash: string | undefined;

function unauthorized(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { headers: { ...WWW_AUTHENTICATE } });
}

/** Decodes `Basic base64(user:password)`; undefined when the header is absent. */
export function parseBasic(header: string | undefined): { username: string; password: string } | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const m = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (m === null) throw unauthorized('Authorization header is not valid HTTP Basic credentials');
  const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw unauthorized('Authorization header is not valid HTTP Basic credentials');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function findAccount(dir: Directory, login: string): LocalAccount | undefined {
  const slash = login.indexOf('\\');
  if (slash === -1) return dir.byName.get(login)?.[0];
  return dir.byQualified.get(`${login.slice(0, slash).toUpperCase()}\\${login.slice(slash + 1)}`);
}

/**
 * The configured user a login names (`username` or `TENANT\username`) when the password is right,
 * else undefined. An unknown user costs an scrypt check too, so the time tells nothing.
 */
export async function checkCredentials(
  tenants: readonly TenantUsers[], login: string, password: string,
): Promise<LocalAccount | undefined> {
  const account = findAccount(directoryOf(tenants), login);
  const ok = await verifyPasswordAsync(password, account?.hash ?? (dummyHash ??= hashPassword('peregrine-dummy')));
  return account !== undefined && ok ? account : undefined;
}

/** A configured user by canonical tenant and username (session cookies look their user up at each request). */
export function localAccount(tenants: readonly TenantUsers[], tenant: string, username: string): LocalAccount | undefined {
  return directoryOf(tenants).byQualified.get(`${tenant}\\${username}`);
}

/** True when the permissions satisfy the requirement; otherwise the name of a missing permission. */
export function missingPermission(permissions: ReadonlySet<string>, required: PermissionRequirement | undefined): string | undefined {
  if (required === undefined || permissions.has('ALL')) return undefined;
  if (typeof required === 'string') return permissions.has(required) ? undefined : required;
  if ('anyOf' in required) return required.anyOf.some((p) => permissions.has(p)) ? undefined : required.anyOf.join(' or ');
  return required.find((p) => !permissions.has(p));
}

/**
 * Authenticator for Management routes. Missing, garbled or wrong credentials: 401 with
 * `WWW-Authenticate: Basic realm="peregrine"`; a valid user without the permission: 403.
 */
export function basicAuth(tenants: () => readonly TenantUsers[], permission?: PermissionRequirement): Authenticator {
  return async (req) => {
    const credentials = parseBasic(req.headers['authorization']);
    if (credentials === undefined) throw unauthorized('Full authentication is required to access this resource');
    const account = await checkCredentials(tenants(), credentials.username, credentials.password);
    if (account === undefined) throw unauthorized('Bad credentials');
    const missing = missingPermission(account.permissions, permission);
    if (missing !== undefined) {
      throw new AppError('INSUFFICIENT_PERMISSION', `User ${account.username} lacks the permission ${missing}`);
    }
    const principal: MgmtPrincipal = { kind: 'mgmt', tenant: account.tenant, username: account.username, permissions: account.permissions };
    return principal;
  };
}
