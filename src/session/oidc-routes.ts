/**
 * Signing in through the OpenID provider of `auth.oidc`: `GET /ui/oidc/login` sends the browser to
 * the provider; `GET /ui/oidc/callback` takes it back, sets `peregrine_session` and goes to the
 * console at `/ui/`. Every failure goes to the console's sign-in page with a short reason
 * (`/ui/#/login?error=...`); the detail goes to the log, never to the browser.
 */
import type { Logger } from 'pino';
import { isHttps, readCookie, setCookie, type Auth } from '../auth/index.js';
import type { OidcIssuer } from '../auth/oidc-issuer.js';
import type { Reply, Route } from '../http/types.js';
import { FLOW_COOKIE, FLOW_TTL_MS, SignInError, beginSignIn, finishSignIn } from './oidc-flow.js';

export const OIDC_LOGIN_PATH = '/ui/oidc/login';
const FLOW_PATH = '/ui/oidc';

/** The flow cookie: Lax, because the provider's redirect back is a cross-site navigation. */
function flowCookie(value: string, baseUrl: string, maxAge: number): string {
  return setCookie(FLOW_COOKIE, value, { path: FLOW_PATH, sameSite: 'Lax', maxAge, secure: isHttps(baseUrl) });
}

function redirect(location: string, cookies: readonly string[]): Reply {
  return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store', 'Set-Cookie': cookies.join('\n') } };
}

function failed(message: string, baseUrl: string): Reply {
  return redirect(`/ui/#/login?error=${encodeURIComponent(message)}`, [flowCookie('', baseUrl, 0)]);
}

function shortReason(err: unknown, log: Logger, step: string): string {
  if (err instanceof SignInError) {
    log.info({ reason: err.message }, `OpenID sign-in failed at ${step}`);
    return err.message;
  }
  log.warn({ err }, `OpenID sign-in failed at ${step}`);
  return 'the OpenID provider could not be used; try again later';
}

export function oidcRoutes(auth: Auth, oidc: OidcIssuer, log: Logger): Route[] {
  return [
    {
      method: 'GET', path: OIDC_LOGIN_PATH, produces: 'other', etag: false,
      handler: async (req) => {
        try {
          const { location, cookie } = await beginSignIn(auth, oidc, req.baseUrl);
          return redirect(location, [flowCookie(cookie, req.baseUrl, FLOW_TTL_MS / 1000)]);
        } catch (err) {
          return failed(shortReason(err, log, 'login'), req.baseUrl);
        }
      },
    },
    {
      method: 'GET', path: `${FLOW_PATH}/callback`, produces: 'other', etag: false,
      handler: async (req) => {
        try {
          const grant = await finishSignIn(auth, oidc, readCookie(req.headers['cookie'], FLOW_COOKIE), req.query);
          const { value } = auth.sessions.issue(grant);
          return redirect('/ui/', [auth.sessions.cookie(value, req.baseUrl), flowCookie('', req.baseUrl, 0)]);
        } catch (err) {
          return failed(shortReason(err, log, 'callback'), req.baseUrl);
        }
      },
    },
  ];
}
