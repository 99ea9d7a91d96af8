/**
 * What peregrine reads from an OpenID provider's tokens: the username (`auth.oidc.usernameClaim`,
 * else `sub`) and the roles (`auth.oidc.rolesClaim`, a dot path such as `realm_access.roles`),
 * each role granting the permissions `auth.oidc.roles` maps it to. Unmapped roles grant nothing.
 */
import type { Config } from '../config/index.js';

export type OidcSettings = NonNullable<Config['auth']['oidc']>;

/** The value at a dot path (`realm_access.roles`); undefined where the path leads nowhere. */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let node: unknown = claims;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The roles a token names: a list of strings, or one string (space-separated names). */
export function rolesOf(claims: Readonly<Record<string, unknown>>, settings: Pick<OidcSettings, 'rolesClaim'>): string[] {
  const value = claimAt(claims, settings.rolesClaim);
  if (typeof value === 'string') return value.split(/\s+/).filter((r) => r !== '');
  return Array.isArray(value) ? value.filter((r): r is string => typeof r === 'string') : [];
}

/** The permission names the roles are mapped to, sorted, each once (`ALL` not expanded). */
export function permissionsOf(roles: readonly string[], settings: Pick<OidcSettings, 'roles'>): string[] {
  const names = new Set<string>();
  for (const role of roles) {
    if (Object.hasOwn(settings.roles, role)) for (const p of settings.roles[role] ?? []) names.add(p);
  }
  return [...names].sort();
}

/** The username: the configured claim when it is a non-empty string, else `sub`; undefined without either. */
export function usernameOf(claims: Readonly<Record<string, unknown>>, settings: Pick<OidcSettings, 'usernameClaim'>): string | undefined {
  const named = claimAt(claims, settings.usernameClaim);
  if (typeof named === 'string' && named !== '') return named;
  return typeof claims['sub'] === 'string' && claims['sub'] !== '' ? claims['sub'] : undefined;
}
