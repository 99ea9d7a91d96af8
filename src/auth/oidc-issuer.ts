/**
 * The OpenID provider as peregrine sees it: its metadata from `${issuer}/.well-known/openid-configuration`
 * (kept an hour; a failed fetch is tried again at the next use) and its signing keys from `jwks_uri`
 * (jose's remote key set: fetched on first use, again for an unknown key id). `verify` checks a JWT
 * against them: signature by an asymmetric algorithm (never `none`, never a shared-secret HMAC),
 * issuer, audience, exp and nbf.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { OidcSettings } from './claims.js';

export interface ProviderMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
}

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const METADATA_TTL_MS = 3_600_000;
const FETCH_TIMEOUT_MS = 10_000;
/** Clock skew tolerated between the provider and this server, in seconds. */
const CLOCK_TOLERANCE_S = 30;

export class OidcIssuer {
  private metadataPromise: Promise<ProviderMetadata> | undefined;
  private fetchedAt = 0;
  private keys: { uri: string; set: JWTVerifyGetKey } | undefined;

  constructor(
    readonly settings: OidcSettings,
    private readonly now: () => number,
  ) {}

  metadata(): Promise<ProviderMetadata> {
    if (this.metadataPromise === undefined || this.now() - this.fetchedAt > METADATA_TTL_MS) {
      this.fetchedAt = this.now();
      const pending = discover(this.settings.issuer);
      pending.catch(() => {
        if (this.metadataPromise === pending) this.metadataPromise = undefined;
      });
      this.metadataPromise = pending;
    }
    return this.metadataPromise;
  }

  /** The verified claims of a JWT signed by the provider for `audience`; throws when it is not. */
  async verify(token: string, audience: string | undefined): Promise<JWTPayload> {
    const { jwks_uri: uri } = await this.metadata();
    if (this.keys?.uri !== uri) this.keys = { uri, set: createRemoteJWKSet(new URL(uri), { timeoutDuration: FETCH_TIMEOUT_MS }) };
    const { payload } = await jwtVerify(token, this.keys.set, {
      issuer: this.settings.issuer,
      ...(audience === undefined ? {} : { audience }),
      algorithms: ALGORITHMS,
      requiredClaims: ['exp'],
      currentDate: new Date(this.now()),
      clockTolerance: CLOCK_TOLERANCE_S,
    });
    return payload;
  }
}

async function discover(issuer: string): Promise<ProviderMetadata> {
  const res = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`OpenID discovery at ${issuer} answered ${res.status}`);
  const doc = (await res.json()) as Record<string, unknown>;
  for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
    if (typeof doc[key] !== 'string') throw new Error(`OpenID discovery at ${issuer}: no ${key}`);
  }
  // OpenID Connect Discovery 1.0 section 4.3: the document must name the issuer it was fetched for
  if (doc['issuer'] !== issuer) {
    throw new Error(`OpenID discovery at ${issuer} names another issuer (${String(doc['issuer'])})`);
  }
  return doc as unknown as ProviderMetadata;
}
