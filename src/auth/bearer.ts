/**
 * `Authorization: Bearer <JWT>` for the Management API, as hawkBit 0.9+ accepts tokens as an OAuth2
 * resource server: a token the configured provider signed for `auth.oidc.audience` (default the
 * client id) names a user of `auth.oidc.tenant` whose roles map to permissions. Each token is
 * verified once and then served from a bounded cache until it expires.
 */
import { LRUCache } from 'lru-cache';
import { AppError } from '../domain/errors.js';
import { expandPermissions } from '../config/index.js';
import type { MgmtPrincipal } from '../http/types.js';
import { permissionsOf, rolesOf, usernameOf } from './claims.js';
import type { OidcIssuer } from './oidc-issuer.js';

const CACHE_ENTRIES = 10_000;

interface Verified {
  readonly principal: MgmtPrincipal;
  /** Milliseconds since the epoch. */
  readonly expiresAt: number;
}

/** The `Bearer` token of an Authorization header, or undefined when the header is not one. */
export function bearerToken(header: string): string | undefined {
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return m?.[1];
}

export function invalidToken(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer realm="peregrine", error="invalid_token"' } });
}

export class BearerVerifier {
  private readonly cache = new LRUCache<string, Verified>({ max: CACHE_ENTRIES });

  constructor(
    private readonly issuer: OidcIssuer,
    private readonly now: () => number,
  ) {}

  /** Who the token names; 401 when it is not a current token of the provider for this API. */
  async principal(token: string): Promise<MgmtPrincipal> {
    const cached = this.cache.get(token);
    if (cached !== undefined && cached.expiresAt > this.now()) return cached.principal;
    const { settings } = this.issuer;
    let claims: Record<string, unknown>;
    try {
      claims = await this.issuer.verify(token, settings.audience ?? settings.clientId);
    } catch (err) {
      throw invalidToken(`Bearer token rejected: ${reason(err)}`);
    }
    const username = usernameOf(claims, settings);
    if (username === undefined) throw invalidToken(`Bearer token rejected: it names no user (no ${settings.usernameClaim} or sub claim)`);
    const principal: MgmtPrincipal = {
      kind: 'mgmt', tenant: settings.tenant, username, permissions: expandPermissions(permissionsOf(rolesOf(claims, settings), settings)),
    };
    const expiresAt = Number(claims['exp']) * 1000;
    this.cache.set(token, { principal, expiresAt }, { ttl: Math.max(1, expiresAt - this.now()) });
    return principal;
  }
}

/** jose's messages say what failed ("\"exp\" claim timestamp check failed", "signature verification failed"). */
function reason(err: unknown): string {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('ERR_J')) return err.message;
  return 'the OpenID provider could not be reached to check it';
}
