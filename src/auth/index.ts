/**
 * Sign-in, built once per event loop from config.yaml's `auth` (src/app/services.ts): the session
 * cookie codec, the OpenID provider when `auth.oidc` is set, and the Management authenticator.
 */
import type { PermissionRequirement } from '../http/auth-basic.js';
import type { Authenticator } from '../http/types.js';
import type { Config } from '../config/index.js';
import type { TenantAccounts } from '../tenancy/registry.js';
import { BearerVerifier } from './bearer.js';
import { managementAuth, type MgmtAuthDeps } from './mgmt-auth.js';
import { OidcIssuer } from './oidc-issuer.js';
import { SessionCodec } from './session.js';

export interface Auth extends MgmtAuthDeps {
  /** The OpenID provider; undefined without `auth.oidc`. */
  readonly oidc: OidcIssuer | undefined;
  /** Milliseconds since the epoch. */
  now(): number;
  mgmtAuth(permission?: PermissionRequirement): Authenticator;
}

export function createAuth(config: Pick<Config, 'auth'>, accounts: () => readonly TenantAccounts[], now: () => number): Auth {
  const { session, oidc: settings } = config.auth;
  const sessions = new SessionCodec(Buffer.from(session.secret, 'utf8'), session.ttlMinutes * 60_000, now);
  const oidc = settings === undefined ? undefined : new OidcIssuer(settings, now);
  const bearer = oidc === undefined ? undefined : new BearerVerifier(oidc, now);
  const auths = new Map<string, Authenticator>();
  const auth: Auth = {
    config, accounts, sessions, bearer, oidc, now,
    mgmtAuth(permission) {
      const key = JSON.stringify(permission ?? null);
      let found = auths.get(key);
      if (found === undefined) auths.set(key, (found = managementAuth(auth, permission)));
      return found;
    },
  };
  return auth;
}

export { checkCsrf, sessionOf } from './mgmt-auth.js';
export type { Session, SessionGrant } from './session.js';
export { permissionsOf, rolesOf, usernameOf } from './claims.js';
export { readCookie, setCookie, isHttps } from './cookies.js';
export { signPayload, verifyPayload } from './signed.js';
