/**
 * The one authenticator of Management routes. In this order: `Authorization: Basic` (config.yaml
 * users, src/http/auth-basic.ts, unchanged), `Authorization: Bearer <JWT>` when `auth.oidc` is
 * configured (bearer.ts), the session cookie of a signed-in person (session.ts). A cookie carries
 * ambient authority, so every request it authenticates other than GET/HEAD must also send the
 * session's CSRF token in `X-CSRF-Token` and, when it sends `Origin`, come from this server's origin.
 * Nothing valid: 401; valid but without the permission (or failing the CSRF check): 403.
 */
import { AppError } from '../domain/errors.js';
import { basicAuth, localAccount, missingPermission, type PermissionRequirement } from '../http/auth-basic.js';
import { expandPermissions, type Config } from '../config/index.js';
import type { TenantAccounts } from '../tenancy/registry.js';
import type { Authenticator, MgmtPrincipal, Request } from '../http/types.js';
import { bearerToken, type BearerVerifier } from './bearer.js';
import { readCookie } from './cookies.js';
import { SESSION_COOKIE, type Session, type SessionCodec } from './session.js';
import { sameText } from './signed.js';

export const CSRF_HEADER = 'x-csrf-token';

export interface MgmtAuthDeps {
  readonly config: Pick<Config, 'auth'>;
  /** Every tenant's Management users: config.yaml's and the runtime tenants' (src/tenancy/registry.ts). */
  accounts(): readonly TenantAccounts[];
  readonly sessions: SessionCodec;
  readonly bearer: BearerVerifier | undefined;
}

/** 401 for a session cookie that is no longer good: no Basic challenge, so a browser shows no password dialog. */
function sessionRejected(): AppError {
  return new AppError('UNAUTHORIZED', 'The session has expired or is not valid; sign in again', {
    headers: { 'WWW-Authenticate': 'Cookie realm="peregrine"' },
  });
}

/** The principal a current session stands for, or undefined when its user is no longer configured. */
export function sessionPrincipal(deps: Pick<MgmtAuthDeps, 'config' | 'accounts'>, session: Session): MgmtPrincipal | undefined {
  const { auth } = deps.config;
  if (session.source === 'password') {
    const account = localAccount(deps.accounts(), session.tenant, session.username);
    return account === undefined ? undefined : { kind: 'mgmt', tenant: account.tenant, username: account.username, permissions: account.permissions };
  }
  if (auth.oidc?.tenant !== session.tenant) return undefined;
  return { kind: 'mgmt', tenant: session.tenant, username: session.username, permissions: expandPermissions(session.permissions ?? []) };
}

/** The session of the request's cookie and whom it stands for; 401 when there is a cookie but no good session. */
export function sessionOf(deps: Pick<MgmtAuthDeps, 'config' | 'accounts' | 'sessions'>, req: Request): { session: Session; principal: MgmtPrincipal } | undefined {
  const value = readCookie(req.headers['cookie'], SESSION_COOKIE);
  if (value === undefined || value === '') return undefined; // none, or one a logout emptied
  const session = deps.sessions.read(value);
  const principal = session === undefined ? undefined : sessionPrincipal(deps, session);
  if (session === undefined || principal === undefined) throw sessionRejected();
  return { session, principal };
}

/** 403 unless an unsafe cookie-authenticated request proves it comes from a page of this server. */
export function checkCsrf(req: Request, session: Session): void {
  if (req.method === 'GET' || req.method === 'HEAD') return;
  const token = req.headers[CSRF_HEADER];
  if (token === undefined || !sameText(token, session.csrf)) {
    throw new AppError('INSUFFICIENT_PERMISSION', 'CSRF check failed: a request signed in by the session cookie must send the session\'s X-CSRF-Token header');
  }
  const origin = req.headers['origin'];
  if (origin !== undefined && origin !== req.baseUrl) {
    throw new AppError('INSUFFICIENT_PERMISSION', `CSRF check failed: Origin ${origin} is not this server (${req.baseUrl})`);
  }
}

function permitted(principal: MgmtPrincipal, permission: PermissionRequirement | undefined): MgmtPrincipal {
  const missing = missingPermission(principal.permissions, permission);
  if (missing !== undefined) throw new AppError('INSUFFICIENT_PERMISSION', `User ${principal.username} lacks the permission ${missing}`);
  return principal;
}

export function managementAuth(deps: MgmtAuthDeps, permission?: PermissionRequirement): Authenticator {
  const basic = basicAuth(() => deps.accounts(), permission);
  return async (req) => {
    const header = req.headers['authorization'];
    if (header !== undefined && header.trim() !== '') {
      const token = deps.bearer === undefined ? undefined : bearerToken(header);
      if (token === undefined || deps.bearer === undefined) return basic(req);
      return permitted(await deps.bearer.principal(token), permission);
    }
    const signedIn = sessionOf(deps, req);
    if (signedIn === undefined) return basic(req); // nothing valid: Basic's 401 and challenge, as ever
    checkCsrf(req, signedIn.session);
    return permitted(signedIn.principal, permission);
  };
}
