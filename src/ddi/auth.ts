/**
 * Device authentication (spec 5; reference §1.2): which mode, if any, lets this request act for
 * `controllerId`. Each mode counts only when BOTH the system switch (config.yaml `ddi.authentication`)
 * and the tenant's key allow it. Pure: the caller supplies the target and the tenant configuration.
 *
 * Decisions:
 * - Presented credentials are tried first (token, then the proxy's certificate headers, hawkBit 1.0's
 *   `X-Controller-Id`/`X-Authority` or 0.9's `X-Ssl-Client-Cn`/`X-Ssl-Issuer-Hash`, each name with its
 *   own authority headers: src/http/certificate-headers.ts). When none
 *   is accepted and anonymous access is switched on, the request is served anonymously, as hawkBit's
 *   filter chain does (its pre-authentication filters continue on failure).
 * - Tokens are compared in constant time over their SHA-256 digests, so neither content nor length leaks.
 * - Issuer hashes are compared case-insensitively (they are hex digests in practice); the tenant's
 *   list is split on `,` and `;` as hawkBit splits `authentication.header.authority`.
 */
import type { TenantConfigView } from '../domain/tenant-config.js';
import { CERTIFICATE_HEADERS, type CertificateHeaderNames } from '../http/certificate-headers.js';
import type { DdiPrincipal } from '../http/types.js';

export type DdiMode = DdiPrincipal['mode'];

export interface AuthSwitches {
  readonly targetToken: boolean;
  readonly gatewayToken: boolean;
  readonly anonymous: boolean;
  readonly certificate: boolean;
  /** The proxy header names read (config `ddi.authentication.certificateHeaders`). */
  readonly certificateHeaders: '0.9' | '1.x' | 'both';
}

export interface AuthInput {
  readonly headers: Readonly<Record<string, string>>;
  readonly fromTrustedProxy: boolean;
  readonly controllerId: string;
  /** The target's pre-shared token; undefined when the target is not known yet. */
  readonly securityToken: string | undefined;
  readonly config: TenantConfigView;
  readonly system: AuthSwitches;
}

export type AuthOutcome = { readonly ok: true; readonly mode: DdiMode } | { readonly ok: false; readonly reason: string };

const SCHEME = /^(TargetToken|GatewayToken)[ \t]+(\S+)[ \t]*$/i;

/** The token modes a tenant accepts: both switches on, and for the gateway token a key that is set. */
export interface TokenModes {
  readonly targetToken: boolean;
  /** The gateway token, or undefined when that mode is off. */
  readonly gatewayKey: string | undefined;
}

export function tokenModes(config: TenantConfigView, system: AuthSwitches): TokenModes {
  const key = String(config.get('authentication.gatewaytoken.key'));
  return {
    targetToken: system.targetToken && config.bool('authentication.targettoken.enabled'),
    gatewayKey: system.gatewayToken && config.bool('authentication.gatewaytoken.enabled') && key !== '' ? key : undefined,
  };
}

export function authenticateDevice(input: AuthInput): AuthOutcome {
  const { headers, config, system } = input;
  const authorization = headers['authorization'];
  const m = authorization === undefined ? null : SCHEME.exec(authorization);
  if (m !== null) {
    const scheme = (m[1] as string).toLowerCase();
    const token = m[2] as string;
    const modes = tokenModes(config, system);
    if (scheme === 'targettoken') {
      if (modes.targetToken && input.securityToken !== undefined && input.securityToken !== '' && tokensEqual(token, input.securityToken)) {
        return { ok: true, mode: 'targettoken' };
      }
    } else if (modes.gatewayKey !== undefined && tokensEqual(token, modes.gatewayKey)) {
      return { ok: true, mode: 'gatewaytoken' };
    }
  }
  // the http layer drops certificate headers from untrusted peers; checking here as well costs nothing
  const generation = system.certificateHeaders;
  const certificates = input.fromTrustedProxy
    ? CERTIFICATE_HEADERS.filter((names) => (generation === 'both' || names.generation === generation) && headers[names.controllerId] !== undefined)
    : [];
  if (certificates.length > 0 && system.certificate && config.bool('authentication.header.enabled')) {
    const trusted = authorities(String(config.get('authentication.header.authority')));
    const vouched = (names: CertificateHeaderNames): boolean =>
      (headers[names.controllerId] as string).trim() === input.controllerId &&
      authorityValues(headers, names.authority).some((h) => trusted.has(h));
    if (trusted.size > 0 && certificates.some(vouched)) return { ok: true, mode: 'certificate' };
  }
  if (system.anonymous) return { ok: true, mode: 'anonymous' };
  const presented = m !== null || certificates.length > 0;
  return {
    ok: false,
    reason: presented
      ? `The credentials presented for target '${input.controllerId}' were not accepted.`
      : 'Authentication required: send Authorization: TargetToken <token> or GatewayToken <token>, or a client certificate through the trusted proxy.',
  };
}

/**
 * Whether the token presented (`presented` from index `from` on) is `expected`.
 * Constant time in the length of the presented token: every character is compared whatever the
 * first difference, and a length mismatch is folded into the result instead of returning early
 * (the presented token is then compared with itself). Digesting both sides would hide lengths too,
 * but costs two SHA-256 per poll on the hot path; a division per character cost 4 % of the poll.
 */
export function tokensEqual(presented: string, expected: string, from = 0): boolean {
  // the presented token is `presented` from `from` on, read in place (a slice is an allocation per poll)
  const n = presented.length - from;
  const m = expected.length;
  const other = n === m ? expected : presented;
  const at = n === m ? 0 : from;
  let diff = n ^ m;
  for (let i = 0; i < n; i++) diff |= presented.charCodeAt(from + i) ^ other.charCodeAt(at + i);
  return diff === 0 && m > 0;
}

const WHITESPACE = /\s/;

/**
 * A token an express lane compares presented ones with: none when empty, or when it holds whitespace (the
 * generic path reads a token as the non-blank run after the scheme, so it never accepts such a one).
 */
export function laneToken(token: string | undefined): string | undefined {
  return token === undefined || token === '' || WHITESPACE.test(token) ? undefined : token;
}

const TARGET_TOKEN = 'TargetToken ';
const GATEWAY_TOKEN = 'GatewayToken ';

/**
 * An express lane's token check: `Authorization` spelled exactly `TargetToken <token>` or `GatewayToken
 * <token>` names the expected token, the target's (undefined when target tokens do not count) or the
 * gateway key, both as `laneToken` gives them. False for anything else, which the generic path then decides.
 */
export function laneAuthorized(authorization: string, targetToken: string | undefined, gatewayKey: string | undefined): boolean {
  let from: number;
  let expected: string | undefined;
  if (authorization.startsWith(TARGET_TOKEN)) {
    from = TARGET_TOKEN.length;
    expected = targetToken;
  } else if (authorization.startsWith(GATEWAY_TOKEN)) {
    from = GATEWAY_TOKEN.length;
    expected = gatewayKey;
  } else {
    return false;
  }
  // equal to a token without whitespace: the presented one has none either
  return expected !== undefined && tokensEqual(authorization, expected, from);
}

function authorities(list: string): Set<string> {
  return new Set(list.split(/[;,]/).map((s) => s.trim().toLowerCase()).filter((s) => s !== ''));
}

/**
 * The authorities (issuer hashes) the proxy forwarded under one generation's base name, read as
 * hawkBit's SecurityHeaderAuthenticator reads them: `X-Authority` (a list split at `,` and `;`) when
 * present, else `X-Authority-0` (optional), `-1`, `-2`... up to the first one missing; the same for
 * `X-Ssl-Issuer-Hash`. A proxy that sets `-1` and clears `-2` (and the bare and `-0` names) therefore
 * decides alone what counts, whatever else a client sends (deploy/nginx.conf). A repeated header
 * arrives joined with ', ', so values are split at commas.
 */
function authorityValues(headers: Readonly<Record<string, string>>, base: string): string[] {
  const values: string[] = [];
  const bare = headers[base];
  if (bare !== undefined) values.push(bare);
  else {
    for (let i = 0; ; i++) {
      const value = headers[`${base}-${i}`];
      if (value === undefined) {
        if (i === 0) continue;
        break;
      }
      values.push(value);
    }
  }
  return values.flatMap((v) => v.split(/[;,]/)).map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
}
