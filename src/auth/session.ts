/**
 * The session cookie `peregrine_session`: who signed in (tenant, username, how), a CSRF nonce and
 * the validity window, signed with `auth.session.secret` (signed.ts). Stateless: any instance sharing
 * the secret reads it; signing out deletes the cookie in the browser. Local users' permissions are
 * looked up in config.yaml at each request; an OIDC user's, mapped from the provider's roles, ride in
 * the cookie.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isHttps, setCookie } from './cookies.js';
import { signPayload, verifyPayload } from './signed.js';

export const SESSION_COOKIE = 'peregrine_session';

export interface Session {
  readonly tenant: string;
  readonly username: string;
  readonly source: 'password' | 'oidc';
  /** Permission names as granted (`ALL` not expanded); OIDC sessions only. */
  readonly permissions?: readonly string[];
  /** The value X-CSRF-Token must carry on unsafe requests. */
  readonly csrf: string;
  /** Milliseconds since the epoch. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export type SessionGrant = Pick<Session, 'tenant' | 'username' | 'source' | 'permissions'>;

const payload = z.object({
  t: z.string(), u: z.string(), s: z.enum(['password', 'oidc']), p: z.array(z.string()).optional(),
  c: z.string(), i: z.number(), e: z.number(),
});

export class SessionCodec {
  constructor(
    private readonly key: Buffer,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** A new session and the cookie value that carries it. */
  issue(grant: SessionGrant): { session: Session; value: string } {
    const issuedAt = this.now();
    const session: Session = { ...grant, csrf: randomBytes(18).toString('base64url'), issuedAt, expiresAt: issuedAt + this.ttlMs };
    const { tenant: t, username: u, source: s, permissions: p, csrf: c } = session;
    return { session, value: signPayload(this.key, { t, u, s, p, c, i: issuedAt, e: session.expiresAt }) };
  }

  /** The session in a cookie value when it is ours and current, else undefined. */
  read(value: string | undefined): Session | undefined {
    if (value === undefined || value === '') return undefined;
    const parsed = payload.safeParse(verifyPayload(this.key, value));
    if (!parsed.success) return undefined;
    const { t, u, s, p, c, i, e } = parsed.data;
    const now = this.now();
    if (e <= now || i > now + 60_000) return undefined; // expired, or issued in the future (beyond clock skew)
    return { tenant: t, username: u, source: s, ...(p === undefined ? {} : { permissions: p }), csrf: c, issuedAt: i, expiresAt: e };
  }

  /** Set-Cookie for a value made by issue(). */
  cookie(value: string, baseUrl: string): string {
    return setCookie(SESSION_COOKIE, value, { path: '/', sameSite: 'Strict', maxAge: Math.floor(this.ttlMs / 1000), secure: isHttps(baseUrl) });
  }

  /** Set-Cookie that deletes the session cookie. */
  clear(baseUrl: string): string {
    return setCookie(SESSION_COOKIE, '', { path: '/', sameSite: 'Strict', maxAge: 0, secure: isHttps(baseUrl) });
  }
}
