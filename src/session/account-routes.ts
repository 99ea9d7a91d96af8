/**
 * Signing in with a password for the browser console, and the session it gets:
 * `GET /ui/api/auth-methods`, `POST /ui/api/login`, `GET /ui/api/session`, `POST /ui/api/logout`.
 * The session travels in the HttpOnly cookie `peregrine_session`; the JSON answers carry the CSRF
 * token the page sends back in `X-CSRF-Token` on every request other than GET/HEAD.
 */
import { z } from 'zod';
import { checkCsrf, sessionOf, type Auth, type Session } from '../auth/index.js';
import { AppError } from '../domain/errors.js';
import { checkCredentials } from '../http/auth-basic.js';
import type { MgmtPrincipal, Reply, Request, Route } from '../http/types.js';
import { readBody } from '../mgmt/kit/body.js';
import { OIDC_LOGIN_PATH } from './oidc-routes.js';

const NO_STORE = { 'Cache-Control': 'no-store' } as const;

const loginBody = z.object({ username: z.string().min(1), password: z.string(), tenant: z.string().min(1).optional() });

/** What login and GET /ui/api/session answer. */
function sessionJson(session: Session, principal: MgmtPrincipal): Record<string, unknown> {
  return {
    tenant: principal.tenant, username: principal.username, permissions: [...principal.permissions].sort(),
    csrf: session.csrf, source: session.source, expiresAt: session.expiresAt,
  };
}

function signedIn(auth: Auth, req: Request): { session: Session; principal: MgmtPrincipal } {
  const found = sessionOf(auth, req);
  if (found === undefined) throw new AppError('UNAUTHORIZED', 'Not signed in');
  return found;
}

export function accountRoutes(auth: Auth): Route[] {
  return [
    {
      method: 'GET', path: '/ui/api/auth-methods', etag: false,
      handler: () => {
        const oidc = { enabled: auth.oidc !== undefined, loginUrl: OIDC_LOGIN_PATH };
        return { status: 200, headers: NO_STORE, json: { password: true, oidc } };
      },
    },
    {
      method: 'POST', path: '/ui/api/login',
      handler: async (req): Promise<Reply> => {
        const body = readBody(req, loginBody);
        const login = body.tenant === undefined ? body.username : `${body.tenant}\\${body.username}`;
        const account = await checkCredentials(auth.accounts(), login, body.password);
        if (account === undefined) throw new AppError('UNAUTHORIZED', 'Bad credentials');
        const { session, value } = auth.sessions.issue({ tenant: account.tenant, username: account.username, source: 'password' });
        const principal: MgmtPrincipal = { kind: 'mgmt', tenant: account.tenant, username: account.username, permissions: account.permissions };
        return { status: 200, headers: { ...NO_STORE, 'Set-Cookie': auth.sessions.cookie(value, req.baseUrl) }, json: sessionJson(session, principal) };
      },
    },
    {
      method: 'GET', path: '/ui/api/session', etag: false,
      handler: (req) => {
        const { session, principal } = signedIn(auth, req);
        return { status: 200, headers: NO_STORE, json: sessionJson(session, principal) };
      },
    },
    {
      method: 'POST', path: '/ui/api/logout', body: 'none', produces: 'other',
      handler: (req) => {
        checkCsrf(req, signedIn(auth, req).session);
        return { status: 204, headers: { ...NO_STORE, 'Set-Cookie': auth.sessions.clear(req.baseUrl) } };
      },
    },
  ];
}
