/**
 * The OpenID Connect authorization code flow with PKCE (S256), as the relying party: the request to
 * the provider's authorization endpoint, the short-lived signed cookie `peregrine_oidc` that keeps
 * state, nonce and code verifier until the provider sends the browser back, and at the callback the
 * code exchange at the token endpoint and the checks of the ID token (issuer, audience = client id,
 * nonce, signature, exp). Username and roles come from the ID token's claims and, when the access
 * token is a JWT of the provider, from its claims too.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { permissionsOf, rolesOf, signPayload, usernameOf, verifyPayload, type Auth, type SessionGrant } from '../auth/index.js';
import type { OidcIssuer } from '../auth/oidc-issuer.js';

export const FLOW_COOKIE = 'peregrine_oidc';
export const FLOW_TTL_MS = 600_000; // 10 minutes to sign in at the provider
const TOKEN_TIMEOUT_MS = 10_000;

/** A failure whose message is fit for the person signing in (no internals). */
export class SignInError extends Error {}

const flowPayload = z.object({ st: z.string(), n: z.string(), v: z.string(), r: z.string(), e: z.number() });
type Flow = z.output<typeof flowPayload>;

const random = (): string => randomBytes(32).toString('base64url');

/** The flow cookie's own key, derived from the session secret (a session cookie is never a flow cookie). */
export function flowKey(auth: Auth): Buffer {
  return createHmac('sha256', auth.config.auth.session.secret).update(FLOW_COOKIE).digest();
}

/** Where to send the browser, and the flow cookie's value. */
export async function beginSignIn(auth: Auth, oidc: OidcIssuer, baseUrl: string): Promise<{ location: string; cookie: string }> {
  const { settings } = oidc;
  const { authorization_endpoint: endpoint } = await oidc.metadata();
  const redirectUri = settings.redirectUrl ?? `${baseUrl}/ui/oidc/callback`;
  const flow: Flow = { st: random(), n: random(), v: random(), r: redirectUri, e: auth.now() + FLOW_TTL_MS };
  const url = new URL(endpoint);
  const params = {
    response_type: 'code', client_id: settings.clientId, redirect_uri: flow.r, scope: settings.scopes.join(' '),
    state: flow.st, nonce: flow.n, code_challenge: createHash('sha256').update(flow.v).digest('base64url'), code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { location: url.href, cookie: signPayload(flowKey(auth), flow) };
}

/** The session grant for the person the provider sent back, or a SignInError saying why not. */
export async function finishSignIn(
  auth: Auth, oidc: OidcIssuer, flowCookie: string | undefined, query: URLSearchParams,
): Promise<SessionGrant> {
  const error = query.get('error');
  if (error !== null) throw new SignInError(`the provider refused: ${query.get('error_description') ?? error}`);
  const flow = flowPayload.safeParse(flowCookie === undefined ? undefined : verifyPayload(flowKey(auth), flowCookie));
  if (!flow.success || flow.data.e <= auth.now()) throw new SignInError('sign-in expired or was not started here; try again');
  if (query.get('state') !== flow.data.st) throw new SignInError('sign-in state does not match; try again');
  const code = query.get('code');
  if (code === null || code === '') throw new SignInError('the provider sent no authorization code');

  const tokens = await exchange(oidc, code, flow.data);
  const { settings } = oidc;
  let idClaims: Record<string, unknown>;
  try {
    idClaims = await oidc.verify(tokens.idToken, settings.clientId);
  } catch {
    throw new SignInError('the ID token of the provider is not valid');
  }
  if (idClaims['nonce'] !== flow.data.n) throw new SignInError('the ID token was not issued for this sign-in (nonce)');
  const accessClaims = tokens.accessToken.split('.').length === 3 ? await oidc.verify(tokens.accessToken, undefined).catch(() => ({})) : {};
  const username = usernameOf(idClaims, settings) ?? usernameOf(accessClaims, settings);
  if (username === undefined) throw new SignInError('the provider named no user');
  const permissions = permissionsOf([...rolesOf(idClaims, settings), ...rolesOf(accessClaims, settings)], settings);
  if (permissions.length === 0) throw new SignInError(`no role of ${username} grants a permission in peregrine`);
  return { tenant: settings.tenant, username, source: 'oidc', permissions };
}

const tokenResponse = z.object({ id_token: z.string().min(1), access_token: z.string().default('') });

async function exchange(oidc: OidcIssuer, code: string, flow: Flow): Promise<{ idToken: string; accessToken: string }> {
  const { settings } = oidc;
  const { token_endpoint: endpoint } = await oidc.metadata();
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: flow.r, code_verifier: flow.v });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (settings.clientSecret === undefined) form.set('client_id', settings.clientId); // a public client: PKCE only
  else headers['authorization'] = `Basic ${Buffer.from(`${formEncode(settings.clientId)}:${formEncode(settings.clientSecret)}`).toString('base64')}`;
  let res: Response;
  try {
    res = await fetch(endpoint, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS) });
  } catch {
    throw new SignInError('the provider could not be reached to finish the sign-in');
  }
  const parsed = tokenResponse.safeParse(await res.json().catch(() => undefined));
  if (!res.ok || !parsed.success) throw new SignInError(`the provider refused the authorization code (${res.status})`);
  return { idToken: parsed.data.id_token, accessToken: parsed.data.access_token };
}

/** client_secret_basic encodes id and secret as form values first (RFC 6749 section 2.3.1). */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
