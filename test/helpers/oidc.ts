/**
 * A real OpenID provider in process: panva's certified `oidc-provider` on a free port of 127.0.0.1,
 * for sign-in and bearer tests (test/api/auth) and the console's browser tests.
 *
 * - Client `peregrine` (secret `peregrine-secret`, client_secret_basic): redirect URIs
 *   `http://127.0.0.1:<any port>/ui/oidc/callback` and `http://localhost:<any port>/ui/oidc/callback`
 *   (loopback redirects of a native client, RFC 8252: any port), plus the `redirectUris` given (loopback
 *   http or https URLs). Configure peregrine with `oidcConfig(provider)`.
 * - Its own sign-in pages (oidc-provider's development interactions): a login form with the fields
 *   `login` (any username) and `password` (anything: it is not checked) and a "Sign-in" button,
 *   then a consent page with a "Continue" button. The user's roles come from `users`; a name not
 *   listed signs in with no roles.
 * - Claims of every user: sub = preferred_username = the username, email, `roles` and Keycloak's
 *   `realm_access.roles`, in the ID token and in the JWT access tokens issued for `audience`.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider, { type AccountClaims } from 'oidc-provider';

export interface OidcUser {
  readonly username: string;
  readonly roles: readonly string[];
}

export interface OidcProviderOptions {
  /** Further redirect URIs of client `peregrine`: http on a loopback host, or https (/ui/oidc/callback on 127.0.0.1 and localhost, any port, is allowed anyway). */
  readonly redirectUris?: readonly string[];
  readonly users?: readonly OidcUser[];
  /** Resource indicator of peregrine's API: the `aud` of access tokens (default urn:peregrine:api). */
  readonly audience?: string;
}

export interface TestOidcProvider {
  /** http://127.0.0.1:<port> */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly audience: string;
  /**
   * An access token the provider really issues (authorization code flow with PKCE for `username`,
   * through its login and consent pages): a JWT for `audience` with the user's roles, or `roles` when given.
   */
  accessToken(username: string, roles?: readonly string[]): Promise<string>;
  /**
   * Signs in at the provider as a browser would, from an authorization request URL: follows its
   * redirects with `redirect: 'manual'`, posts the login form (login = username) and the consent
   * form, and returns the URL the provider sends the browser back to (redirect_uri?code=...&state=...).
   */
  signIn(authorizeUrl: string, username: string): Promise<string>;
  /** A JWT signed with the provider's own key (claims as given, `iss` defaults to the issuer): for expired or crafted tokens. */
  sign(claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

/** `auth.oidc` of a peregrine config for this provider. */
export function oidcConfig(p: TestOidcProvider, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { issuer: p.issuer, clientId: p.clientId, clientSecret: p.clientSecret, audience: p.audience, ...extra };
}

const CLIENT_ID = 'peregrine';
const CLIENT_SECRET = 'peregrine-secret';
/** The helper's own client for accessToken(): its redirect URI is never served, only read from the Location header. */
const CLI = { id: 'peregrine-test-cli', secret: 'peregrine-test-cli-secret', redirectUri: 'http://127.0.0.1/cli-callback' };

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<TestOidcProvider> {
  const audience = options.audience ?? 'urn:peregrine:api';
  const roles = new Map<string, readonly string[]>((options.users ?? []).map((u) => [u.username, u.roles]));
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = 'test-key-1';
  const jwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };

  let handler: RequestListener | undefined;
  const server: Server = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const claimsOf = (sub: string): Record<string, unknown> => {
    const r = [...(roles.get(sub) ?? [])];
    return { sub, preferred_username: sub, email: `${sub}@example.test`, roles: r, realm_access: { roles: r } };
  };
  const resourceServer = { scope: 'api', audience, accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'RS256' } } };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID, client_secret: CLIENT_SECRET, application_type: 'native',
        redirect_uris: ['http://127.0.0.1/ui/oidc/callback', 'http://localhost/ui/oidc/callback', ...(options.redirectUris ?? [])],
        grant_types: ['authorization_code'], response_types: ['code'],
      },
      { client_id: CLI.id, client_secret: CLI.secret, application_type: 'native', redirect_uris: [CLI.redirectUri], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: { openid: ['sub'], profile: ['preferred_username', 'roles', 'realm_access'], email: ['email'] },
    conformIdTokenClaims: false, // profile claims in the ID token too, as Keycloak puts them
    findAccount: (_ctx: unknown, sub: string): AccountClaims => ({ accountId: sub, claims: () => claimsOf(sub) }),
    extraTokenClaims: (_ctx: unknown, token: { accountId?: string }) => {
      if (token.accountId === undefined) return undefined;
      const { sub: _sub, ...claims } = claimsOf(token.accountId);
      return claims;
    },
    features: {
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (indicator !== audience) throw new Error(`unknown resource ${indicator}`);
          return resourceServer;
        },
      },
    },
    pkce: { required: () => true },
    ttl: { AccessToken: 3600, IdToken: 3600, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
  });
  handler = provider.callback();

  const p: TestOidcProvider = {
    issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, audience,
    signIn: (authorizeUrl, username) => signInAt(issuer, authorizeUrl, username),
    async accessToken(username, withRoles) {
      if (withRoles !== undefined) roles.set(username, withRoles);
      const verifier = randomBytes(32).toString('base64url');
      const url = new URL(`${issuer}/auth`);
      const params = {
        client_id: CLI.id, response_type: 'code', redirect_uri: CLI.redirectUri, scope: 'openid profile', resource: audience,
        state: 's', nonce: 'n', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const code = new URL(await p.signIn(url.href, username)).searchParams.get('code') ?? '';
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${CLI.id}:${CLI.secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CLI.redirectUri, code_verifier: verifier, resource: audience }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || body.access_token === undefined) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    sign: (claims) =>
      new SignJWT({ iss: issuer, ...claims }).setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' }).sign(privateKey),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  return p;
}

/** Cookies by name, as a browser keeps them for one host (paths ignored: enough for one sign-in at a time). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /;\s*max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function signInAt(issuer: string, authorizeUrl: string, username: string): Promise<string> {
  const jar = new CookieJar();
  let url = authorizeUrl;
  let form: URLSearchParams | undefined;
  for (let step = 0; step < 12; step++) {
    const res = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST', redirect: 'manual', body: form,
      headers: { cookie: jar.header(), ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    });
    jar.take(res);
    form = undefined;
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location') ?? '', url).href;
      if (!next.startsWith(issuer)) return next; // back to the client: done
      url = next;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url}: ${html.slice(0, 300)}`);
    // the login form (fields login, password) or the consent form, both posted to the page's own URL
    form = html.includes('name="login"')
      ? new URLSearchParams({ prompt: 'login', login: username, password: 'any' })
      : new URLSearchParams({ prompt: 'consent' });
  }
  throw new Error('sign-in at the provider did not finish in 12 steps');
}
